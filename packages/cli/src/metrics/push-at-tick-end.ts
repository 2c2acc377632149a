import { interruptedAfterTheTick, type TickConfig, type TickOutcome } from '@image-refresh/core';
import type { LogEvent } from '../render/log-lines.js';
import type { MetricsSession } from './metrics-push.js';

// The metrics push is the last thing a tick does before its summary, and the
// first SIGTERM / SIGINT wins there too (docs/behaviour.md §3, Signals): a
// signal cuts a push in flight short at once — a gateway that accepts and
// never answers held the process for all of API_TIMEOUT, then it exited 0 as
// if no signal had come. The tick then ends `interrupted`, 143 / 130, says
// so, and pushes its metrics again as interrupted within the bound an
// interrupted tick's Events get. The push itself stays an observer: a push
// that fails is a WARN and changes nothing (only the signal does).

/** How long an interrupted tick may spend on its metrics push (its Events get as long). */
export const INTERRUPTED_PUSH_BOUND_MS = 1_500;

export interface PushBounds {
  /** Aborted once the summary is printed: nothing of the push outlives it. */
  readonly tickOver: AbortSignal;
  /** SIGTERM / SIGINT. */
  readonly interrupt?: AbortSignal | undefined;
}

/** Read afresh after each await: the signal aborts while the push is in flight. */
const stoppedBy = (interrupt: AbortSignal | undefined): boolean => interrupt?.aborted === true;

const interruptedBoundMs = (config: TickConfig): number => Math.min(INTERRUPTED_PUSH_BOUND_MS, config.apiTimeoutMs);

/** Push the tick's metrics; the outcome the summary reports (interrupted when a signal came meanwhile). */
export const pushAtTickEnd = async (
  session: MetricsSession,
  outcome: TickOutcome,
  config: TickConfig,
  bounds: PushBounds,
  say: (event: LogEvent) => void,
): Promise<TickOutcome> => {
  const { tickOver, interrupt } = bounds;
  const pushAsInterrupted = async (stopped: TickOutcome): Promise<TickOutcome> => {
    const warning = await session.push(stopped, config, { signal: tickOver, timeoutMs: interruptedBoundMs(config) });
    if (warning !== undefined) say(warning);
    return stopped;
  };
  // Interrupted already (or the signal came during the tick's Events): the process has about two seconds left.
  if (outcome.result === 'interrupted') return pushAsInterrupted(outcome);
  if (stoppedBy(interrupt)) {
    const stopped = interruptedAfterTheTick(outcome, interrupt?.reason, "while recording the tick's Kubernetes Events");
    say(stopped.events.at(-1) as LogEvent);
    return pushAsInterrupted(stopped);
  }
  const warning = await session.push(outcome, config, { signal: tickOver, interrupt, timeoutMs: config.apiTimeoutMs });
  if (!stoppedBy(interrupt)) {
    if (warning !== undefined) say(warning);
    return outcome;
  }
  // The signal came while the push was in flight: it wins, and the push it cut short is said by its line.
  const stopped = interruptedAfterTheTick(
    outcome,
    interrupt?.reason,
    "while pushing this tick's metrics to the Pushgateway",
  );
  say(stopped.events.at(-1) as LogEvent);
  return pushAsInterrupted(stopped);
};
