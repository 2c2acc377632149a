import { setup } from 'xstate';
import type { TickConfig } from '../config/tick-config.js';
import { actActions } from './act/actions.js';
import { actGuards } from './act/guards.js';
import { admitActions } from './admit/actions.js';
import { admitGuards } from './admit/guards.js';
import { fleetHaltActions } from './fleet-halt/actions.js';
import { fleetHaltGuards } from './fleet-halt/guards.js';
import { fleetPromotionActions } from './fleet-promotion/actions.js';
import { fleetPromotionGuards } from './fleet-promotion/guards.js';
import { observeActions } from './observe/actions.js';
import { observeGuards } from './observe/guards.js';
import { ownershipActions } from './ownership/actions.js';
import { ownershipGuards } from './ownership/guards.js';
import { recordActions } from './record/actions.js';
import { recordGuards } from './record/guards.js';
import { resolveActions } from './resolve/actions.js';
import { resolveGuards } from './resolve/guards.js';
import { tickActors } from './tick-actors.js';
import type { TickContext } from './tick-context.js';
import type { TickOutcome } from './tick-outcome.js';
import { tickWideActions } from './tick-wide/actions.js';
import { wayBackActions } from './way-back/actions.js';
import { wayBackGuards } from './way-back/guards.js';

/** The machine's named guards, actions and actors, set up once: the state tree refers to them by name only. */
export const tickSetup = setup({
  types: {
    context: {} as TickContext,
    input: {} as TickConfig,
    output: {} as TickOutcome,
  },
  actors: tickActors,
  guards: {
    ...observeGuards,
    ...resolveGuards,
    ...fleetHaltGuards,
    ...fleetPromotionGuards,
    ...admitGuards,
    ...ownershipGuards,
    ...actGuards,
    ...wayBackGuards,
    ...recordGuards,
  },
  actions: {
    ...tickWideActions,
    ...observeActions,
    ...resolveActions,
    ...fleetHaltActions,
    ...fleetPromotionActions,
    ...admitActions,
    ...ownershipActions,
    ...actActions,
    ...wayBackActions,
    ...recordActions,
  },
});
