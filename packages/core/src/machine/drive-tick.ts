import { type ActorLogic, createActor, type EventObject, type Snapshot } from 'xstate';
import type { TickConfig } from '../config/tick-config.js';
import { type InterruptPoint, interruptedOutcome, interruptedView, isWrite, type TickSignal } from './interrupted.js';
import { tickActors } from './tick-actors.js';
import type { TickEvent } from './tick-event.js';
import { tickMachine } from './tick-machine.js';
import type { TickOutcome } from './tick-outcome.js';

// The imperative shell around the machine: one xstate actor per tick. The
// machine decides; each state that needs the world invokes one named actor,
// and behind every name here is the same small actor logic — a port call:
// started with its input, it asks this tick's handler and, once answered,
// ends done or in error, which xstate hands the machine as the invoked
// actor's done/error event. Nothing else runs: no timer or delay of
// xstate's, no action but the machine's own assigns, so a tick is still a
// fold over port answers (I20).
//
// Measured on this machine (README.md, Benchmarks): one
// long-lived actor per tick runs a steady tick about 1.3× and a re-image tick
// 1.5× faster than xstate's public `transition()` per answer, which builds a
// throw-away actor of the whole machine (and its system) on every call.

export type PortAnswer =
  | { readonly ok: true; readonly value: unknown }
  | { readonly ok: false; readonly error: unknown };

/** Runs the port call an invoked actor stands for. */
export type InvokeHandler = (src: string, input: unknown) => Promise<PortAnswer>;

/** One port call the machine asked for: the invoked actor's name and input. */
interface Invocation {
  readonly src: string;
  readonly input: unknown;
}

type PortCallSnapshot = Snapshot<unknown> & { readonly input: unknown };

interface Answered extends EventObject {
  readonly type: 'port.answered';
  readonly answer: PortAnswer;
}

/** What a port call asks of the tick it runs in. */
type Ask = (invocation: Invocation, answer: (answer: PortAnswer) => void) => void;

/** The running ticks, by the actor system each runs in: a port call finds its tick through its own system. */
const ticks = new WeakMap<object, Ask>();

/** A port call as actor logic: its snapshot carries its input; the answer ends it. */
const portCall = (src: string): ActorLogic<PortCallSnapshot, Answered, unknown> => ({
  transition: (snapshot, event) => {
    if (event.type !== 'port.answered') return snapshot;
    return event.answer.ok
      ? { status: 'done', output: event.answer.value, error: undefined, input: snapshot.input }
      : { status: 'error', output: undefined, error: event.answer.error, input: snapshot.input };
  },
  getInitialSnapshot: (_, input) => ({ status: 'active', output: undefined, error: undefined, input }),
  start: (snapshot, { self, system }) =>
    ticks.get(system)?.({ src, input: snapshot.input }, (answer) => self.send({ type: 'port.answered', answer })),
  getPersistedSnapshot: (snapshot) => snapshot,
});

/** The tick machine with a port call behind every actor name, built once. */
const drivenMachine = tickMachine.provide({
  actors: Object.fromEntries(Object.keys(tickActors).map((src) => [src, portCall(src)])) as never,
});

/** Read afresh at each step: the signal aborts while a port call is awaited. */
const aborted = (signal: TickSignal | undefined): boolean => signal?.aborted === true;

/**
 * Run the machine over port answers until it reaches a final state.
 * `onEvent` sees each operator event as soon as the machine emits it, so a
 * CronJob's log shows "set image …" before the rollout wait, not after.
 */
export const driveTick = (
  config: TickConfig,
  handle: InvokeHandler,
  onEvent: (event: TickEvent) => void = () => undefined,
  signal?: TickSignal,
): Promise<TickOutcome> =>
  new Promise((resolve, reject) => {
    const actor = createActor(drivenMachine, { input: config });
    let told = 0;
    let settled = false;
    let lastCall: Invocation | undefined;
    const tell = () => {
      const { events } = actor.getSnapshot().context;
      for (let i = told; i < events.length; i += 1) onEvent(events[i] as TickEvent);
      told = events.length;
    };
    const end = (result: () => void) => {
      if (settled) return;
      settled = true;
      result();
      actor.stop();
    };
    const fail = (error: unknown) => end(() => reject(error));
    const stop = (point: Invocation, phase: InterruptPoint['phase']) =>
      end(() => {
        tell();
        const outcome = interruptedOutcome(
          interruptedView(actor.getSnapshot().context),
          { ...point, phase },
          signal?.reason,
        );
        const line = outcome.events.at(-1);
        if (line !== undefined) onEvent(line);
        resolve(outcome);
      });
    ticks.set(actor.system, (invocation, answer) => {
      // The lines said on the way to this call come before it (the log shows "set image …" first).
      tell();
      // Once the tick's signal aborted, no port call starts (docs/behaviour.md
      // §3, Signals). A read or wait that returned meanwhile was cut short by
      // the abort: its answer is not fed to the machine (a cut-off rollout wait
      // would read as a failed rollout). A write that landed is: the
      // bookkeeping says it.
      if (aborted(signal)) return stop(invocation, 'before');
      handle(invocation.src, invocation.input).then((a) => {
        if (settled) return;
        if (aborted(signal) && !(a.ok && isWrite(invocation.src))) return stop(invocation, 'during');
        lastCall = invocation;
        answer(a);
      }, fail);
    });
    actor.subscribe({
      next: (snapshot) => {
        tell();
        const waitingOn = Object.keys(snapshot.children).length;
        // A step waits on exactly one port call: none would wait forever, two would race.
        if (snapshot.status === 'active' && waitingOn !== 1)
          fail(
            new Error(
              `the tick machine is waiting in ${JSON.stringify(snapshot.value)} with ${waitingOn} invoked actors`,
            ),
          );
      },
      complete: () => {
        tell();
        // The signal came while the tick's last write was in flight, and it landed:
        // the tick did its work, but the process was told to stop — say so, with
        // what that write left (docs/behaviour.md §3, Signals).
        if (aborted(signal) && lastCall !== undefined) return stop(lastCall, 'after');
        const { output } = actor.getSnapshot();
        if (output === undefined) return fail(new Error('the tick machine ended without an outcome'));
        end(() => resolve(output));
      },
      error: fail,
    });
    actor.start();
  });
