import { actEnds, actSteps } from './act/states.js';
import { admitSteps } from './admit/states.js';
import { fleetHaltSteps } from './fleet-halt/states.js';
import { fleetPromotionSteps } from './fleet-promotion/states.js';
import { observeEnds, observeSteps } from './observe/states.js';
import { ownershipEnds, ownershipSteps } from './ownership/states.js';
import { recordEnds, recordSteps } from './record/states.js';
import { resolveEnds, resolveSteps } from './resolve/states.js';
import { initialContext } from './tick-context.js';
import type { TickOutcome } from './tick-outcome.js';
import { tickSetup } from './tick-setup.js';
import { wayBackEnds, wayBackSteps } from './way-back/states.js';

// One tick of docs/behaviour.md §3 as a state machine, composed of its phases
// in the order a tick runs them: observe, resolve, the fleet halt, admit,
// ownership, act, the way back, record (each a folder beside this file with its states, guards
// and actions).
// Every step is a state, every decision a named guard, every port call a named
// actor; the machine does no I/O and reads no clock.

const MISSING_CONFIG = new Error('the tick machine needs a parsed TickConfig as its input');

/**
 * One tick of docs/behaviour.md §3 as an xstate v5 machine: one state per step, one named
 * guard per decision, one named actor per port call (the actors are typed
 * placeholders; `runTick` binds them to ports). It does no I/O and
 * reads no clock (I20). Public for those who inspect or draw it — walk
 * `tickMachine.root`, or `mermaidDiagram` it; run ticks with
 * `runTick`. Its final states are named as the {@link TickResult}
 * values (all but `configInvalid`, which ends before the machine starts).
 */
export const tickMachine = tickSetup.createMachine({
  id: 'tick',
  // Without a config there is no tick: fail before the first step (xstate's
  // pure step functions build a throw-away actor of this machine, without
  // input, on every call — this keeps that actor to one cheap failure).
  context: ({ input }) => {
    if (input === undefined) throw MISSING_CONFIG;
    return initialContext(input);
  },
  // The root hands out the outcome its final state computed.
  output: ({ event }) => (event as unknown as { output: TickOutcome }).output,
  initial: 'checkingMirror',
  states: {
    ...observeSteps,
    ...resolveSteps,
    ...fleetHaltSteps,
    ...fleetPromotionSteps,
    ...admitSteps,
    ...ownershipSteps,
    ...actSteps,
    ...wayBackSteps,
    ...recordSteps,
    ...observeEnds,
    ...resolveEnds,
    ...ownershipEnds,
    ...actEnds,
    ...wayBackEnds,
    ...recordEnds,
  },
});

/** The type of {@link tickMachine}. */
export type TickMachine = typeof tickMachine;
