import type { BookkeepingChanges } from '../domain/bookkeeping.js';
import { portErrorOf } from './tick-actors.js';
import type { InputArgs, TickContext } from './tick-context.js';
import type { AnnotationWrite, TickOutcome, TickResult, WriteKind } from './tick-outcome.js';
import { outcomeOf } from './tick-outcome-of.js';

// What the phases' state configs hand their invoked actors and their named
// guards and actions: a port's answer as params, a write as an actor input,
// a final state's outcome.

/**
 * readGate serves two reads of the one Deployment: the settled guard's
 * watch, which may wait out SETTLE_TIMEOUT for it to settle (docs/behaviour.md
 * §3.2), and every bookkeeping read after it, one request each. The input
 * says which; the bound (port-calls.ts) and an interrupted tick's line
 * (interrupted.ts) follow it.
 */
export const settleWatch = ({ context }: InputArgs) => ({ settleWithinMs: context.config.settleTimeoutMs });

/** A bookkeeping read of the gate (skip streak, records, attempt, pending digests). */
export const bookkeepingRead = () => ({ settleWithinMs: 0 });

export const withPortError = ({ event }: { event: { error: unknown } }) => ({ error: portErrorOf(event) });

/** A bookkeeping write as the machine decides it; the port is handed exactly `annotations`. */
export const write = (kind: WriteKind, annotations: BookkeepingChanges): { write: AnnotationWrite } => ({
  write: { kind, annotations },
});

/** Remember a write the port accepted: the very object it was handed. */
export const written = ({ event }: { event: { output: AnnotationWrite } }) => ({ write: event.output });

/** A route taken by a transition that acts as it leaves: every branch carries its actions. */
export const acting = <const Route extends readonly object[], const Actions>(route: Route, actions: Actions) =>
  route.map((branch) => ({ ...branch, actions })) as { [K in keyof Route]: Route[K] & { actions: Actions } };

/** Each final state hands out its own outcome (xstate 5: the root's output would see the previous state). */
export const outcome =
  (result: TickResult) =>
  ({ context }: { context: TickContext }): TickOutcome =>
    outcomeOf(result, context);
