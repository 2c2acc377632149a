import type { AnyActorRef, AnyActorScope, AnyMachineSnapshot } from 'xstate';
import { createActor } from 'xstate';
import type { TickConfig } from '../config/tick-config.js';
import { interruptedOutcome, isWrite, type TickSignal } from './interrupted.js';
import type { TickContext } from './tick-context.js';
import type { TickEvent } from './tick-event.js';
import { type TickMachine, tickMachine } from './tick-machine.js';
import type { TickOutcome } from './tick-outcome.js';

// The imperative shell around the machine. The machine decides: each state
// that needs the world invokes a named actor, and xstate's own step function
// (`machine.transition`) says which, with what input. This loop does: it runs
// the port call behind that name and feeds the answer back as the actor's
// done/error event. No child actor is ever started, no timer or microtask of
// xstate's is involved, so the tick is a plain fold over port answers (I20) —
// and ten times cheaper than spawning promise actors, which matters to a
// property suite running hundreds of thousands of ticks.

export type PortAnswer =
  | { readonly ok: true; readonly value: unknown }
  | { readonly ok: false; readonly error: unknown };

/** Runs the port call an invoked actor stands for. */
export type InvokeHandler = (src: string, input: unknown) => Promise<PortAnswer>;

const inertScope = (machine: TickMachine): AnyActorScope => {
  // An unstarted actor gives the step function a `self` and a system to hang
  // (never started) children on; nothing here executes or defers anything.
  const self = createActor(machine, { input: undefined as unknown as TickConfig });
  // Every effect hook is a no-op on purpose: the machine's only effects are
  // invocations, and this loop performs those itself.
  const nothing = (): void => undefined;
  return {
    self,
    id: '',
    sessionId: '',
    logger: nothing,
    defer: nothing,
    emit: nothing,
    system: self.system,
    stopChild: nothing,
    actionExecutor: nothing,
  };
};

let scope: AnyActorScope | undefined;

const invokedChild = (snapshot: AnyMachineSnapshot): AnyActorRef => {
  const children = Object.values(snapshot.children as Record<string, AnyActorRef | undefined>).filter(
    (child): child is AnyActorRef => child !== undefined,
  );
  const [child] = children;
  if (child === undefined || children.length > 1) {
    throw new Error(
      `the tick machine is waiting in ${JSON.stringify(snapshot.value)} with ${children.length} invoked actors`,
    );
  }
  return child;
};

/** Read afresh at each step: the signal aborts while a port call is awaited. */
const aborted = (signal: TickSignal | undefined): boolean => signal?.aborted === true;

const eventsOf = (snapshot: AnyMachineSnapshot): readonly TickEvent[] => (snapshot.context as TickContext).events;

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
  scope ??= inertScope(tickMachine);
  let snapshot: AnyMachineSnapshot = tickMachine.getInitialSnapshot(scope, config);
  let told = 0;
  const tell = () => {
    const events = eventsOf(snapshot);
    for (; told < events.length; told++) onEvent(events[told] as TickEvent);
  };
  tell();
  while (snapshot.status === 'active') {
    const child = invokedChild(snapshot);
    const input: unknown = (child as unknown as { options: { input: unknown } }).options.input;
    const src = child.src as string;
    // Issue 13: once the tick's signal aborted, no port call starts. A read
    // or wait that returned meanwhile was cut short by the abort: its answer
    // is not fed to the machine (a cut-off rollout wait would read as a
    // failed rollout). A write that landed is: the bookkeeping says it.
    const stop = (phase: 'before' | 'during'): TickOutcome => {
      const outcome = interruptedOutcome(snapshot.context as TickContext, { src, input, phase }, signal?.reason);
      onEvent(outcome.events[outcome.events.length - 1] as TickEvent);
      return outcome;
    };
    if (aborted(signal)) return stop('before');
    const answer = await handle(src, input);
    if (aborted(signal) && !(answer.ok && isWrite(src))) return stop('during');
    const event = answer.ok
      ? { type: `xstate.done.actor.${child.id}`, output: answer.value, actorId: child.id }
      : { type: `xstate.error.actor.${child.id}`, error: answer.error, actorId: child.id };
    snapshot = tickMachine.transition(snapshot as never, event as never, scope);
    tell();
  }
  if (snapshot.status !== 'done')
    throw new Error(`the tick machine ended ${snapshot.status}: ${String(snapshot.error)}`);
  return snapshot.output as TickOutcome;
};
