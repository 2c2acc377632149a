import { type AnyActorRef, initialTransition, transition } from 'xstate';
import type { TickConfig } from '../config/tick-config.js';
import { type InterruptPoint, interruptedOutcome, isWrite, type TickSignal } from './interrupted.js';
import type { TickEvent } from './tick-event.js';
import { type TickMachine, tickMachine } from './tick-machine.js';
import type { TickOutcome } from './tick-outcome.js';

// The imperative shell around the machine. The machine decides: each state
// that needs the world invokes a named actor, and xstate's pure step
// functions (`initialTransition`, `transition`) return the next snapshot with
// the actions to execute — among them the spawn of that actor, with its
// input. This loop does: it runs the port call behind that name and feeds the
// answer back as the actor's done/error event. No actor is ever started and
// no timer or microtask of xstate's is involved, so the tick is a plain fold
// over port answers (I20), cheaper than starting promise actors — which
// matters to a property suite running hundreds of thousands of ticks.

export type PortAnswer =
  | { readonly ok: true; readonly value: unknown }
  | { readonly ok: false; readonly error: unknown };

/** Runs the port call an invoked actor stands for. */
export type InvokeHandler = (src: string, input: unknown) => Promise<PortAnswer>;

type Step = ReturnType<typeof transition<TickMachine>>;
type Snapshot = Step[0];
type Action = Step[1][number];

/** The one port call a step asks for: the invoked actor's name, id and input. */
interface Invocation {
  readonly src: string;
  readonly id: string;
  readonly input: unknown;
}

/** Actions the loop may leave alone: the machine's own effects are its invocations (and their clean-up). */
const INERT: ReadonlySet<string> = new Set(['xstate.stopChild']);

const inputOf = (actorRef: AnyActorRef | undefined): unknown => {
  // A promise actor's snapshot carries its input from creation on.
  const snapshot: unknown = actorRef?.getSnapshot();
  return typeof snapshot === 'object' && snapshot !== null && 'input' in snapshot ? snapshot.input : undefined;
};

const invocationOf = (snapshot: Snapshot, actions: readonly Action[]): Invocation | undefined => {
  const spawns: Invocation[] = [];
  const live = new Set<unknown>(Object.values(snapshot.children));
  for (const action of actions) {
    if (action.type === 'xstate.spawnChild' && 'actorRef' in action.params) {
      const { src, id, actorRef } = action.params;
      // An `always` that passes straight through an invoking state (a pinned
      // workload's observation) spawns and stops its actor in the same step:
      // only a child the snapshot still holds is waited on.
      if (!live.has(actorRef)) continue;
      spawns.push({ src: typeof src === 'string' ? src : String(id), id, input: inputOf(actorRef) });
    } else if (!INERT.has(action.type)) {
      throw new Error(`the tick machine asked for ${action.type}, an effect this loop does not perform`);
    }
  }
  if (spawns.length > 1 || (snapshot.status === 'active' && spawns.length === 0)) {
    throw new Error(
      `the tick machine is waiting in ${JSON.stringify(snapshot.value)} with ${spawns.length} invoked actors`,
    );
  }
  return spawns[0];
};

/** Read afresh at each step: the signal aborts while a port call is awaited. */
const aborted = (signal: TickSignal | undefined): boolean => signal?.aborted === true;

/**
 * Fold the machine over port answers until it reaches a final state.
 * `onEvent` sees each operator event as soon as the machine emits it, so a
 * CronJob's log shows "set image …" before the rollout wait, not after.
 */
export const driveTick = async (
  config: TickConfig,
  handle: InvokeHandler,
  onEvent: (event: TickEvent) => void = () => undefined,
  signal?: TickSignal,
): Promise<TickOutcome> => {
  let [snapshot, actions] = initialTransition(tickMachine, config);
  let told = 0;
  const tell = () => {
    const { events } = snapshot.context;
    for (const event of events.slice(told)) onEvent(event);
    told = events.length;
  };
  tell();
  let invocation = invocationOf(snapshot, actions);
  let lastCall: Invocation | undefined;
  const stop = (point: Invocation, phase: InterruptPoint['phase']): TickOutcome => {
    const outcome = interruptedOutcome(snapshot.context, { src: point.src, input: point.input, phase }, signal?.reason);
    const line = outcome.events.at(-1);
    if (line !== undefined) onEvent(line);
    return outcome;
  };
  while (snapshot.status === 'active' && invocation !== undefined) {
    const { id, src, input } = invocation;
    // Issue 13: once the tick's signal aborted, no port call starts. A read
    // or wait that returned meanwhile was cut short by the abort: its answer
    // is not fed to the machine (a cut-off rollout wait would read as a
    // failed rollout). A write that landed is: the bookkeeping says it.
    if (aborted(signal)) return stop(invocation, 'before');
    const answer = await handle(src, input);
    if (aborted(signal) && !(answer.ok && isWrite(src))) return stop(invocation, 'during');
    [snapshot, actions] = transition(
      tickMachine,
      snapshot,
      answer.ok
        ? { type: `xstate.done.actor.${id}`, output: answer.value, actorId: id }
        : { type: `xstate.error.actor.${id}`, error: answer.error, actorId: id },
    );
    tell();
    lastCall = invocation;
    invocation = invocationOf(snapshot, actions);
  }
  // The signal came while the tick's last write was in flight, and it landed:
  // the tick did its work, but the process was told to stop — say so, with
  // what that write left (docs/behaviour.md §3, Signals).
  if (aborted(signal) && lastCall !== undefined) return stop(lastCall, 'after');
  if (snapshot.status !== 'done' || snapshot.output === undefined)
    throw new Error(`the tick machine ended ${snapshot.status}: ${String(snapshot.error)}`);
  return snapshot.output;
};
