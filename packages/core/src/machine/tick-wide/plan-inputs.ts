import { answersAfterHalt, haltScopeOf } from '../../domain/fleet-halt-admission.js';
import type { TickPlanInputs } from '../../domain/tick-plan.js';
import { holdsReimages } from '../../domain/window-room.js';
import type { TickContext } from '../tick-context.js';

// What the plan is made from (docs/behaviour.md §3.4): made once after
// admission, and made again after staging (§3.5a) from the same inputs, so
// both see the fleet halt's pins as the answers and its scope (§3.4b).

/** The plan's inputs as the tick knows them now. */
export const planInputsOf = (context: TickContext): TickPlanInputs => {
  const { config, observe, resolve, admit, halt } = context;
  return {
    config,
    ...resolve,
    resolutions: answersAfterHalt(resolve.resolutions, admit.haltPins),
    decoupled: observe.decoupled,
    holds: admit.holds,
    halt: haltScopeOf(halt.reading, halt.nowMs),
    windowHolds: holdsReimages(admit.window),
  };
};
