import * as E from 'fp-ts/lib/Either.js';
import type { TickConfig } from '../config/tick-config.js';
import { describePortError, isPortError } from '../domain/port-error.js';
import { kubernetesEventsFor } from '../machine/kubernetes-events.js';
import { portBounds } from '../machine/port-bounds.js';
import type { TickEvent } from '../machine/tick-event.js';
import type { TickOutcome } from '../machine/tick-outcome.js';
import type { EventsPort } from '../ports/events-port.js';
import { bounded, platformTimers } from './backstop.js';
import type { TickOptions, TickPorts, Timers } from './tick-ports.js';

// After the tick: its findings as Kubernetes Events, never changing it (I18b).

/** An interrupted tick's Events get this long at most: the pod is being stopped (docs/behaviour.md §3, Signals). */
const INTERRUPTED_EVENT_BOUND_MS = 1_500;

export const afterTheTick = (outcome: TickOutcome, config: TickConfig, ports: TickPorts, options: TickOptions) =>
  ports.events === undefined || !config.kubernetesEvents
    ? outcome
    : publishKubernetesEvents(
        outcome,
        ports.events,
        outcome.result === 'interrupted'
          ? Math.min(INTERRUPTED_EVENT_BOUND_MS, portBounds(config).apiMs)
          : portBounds(config).apiMs,
        options.timers ?? platformTimers(),
        options.onEvent,
      );

/**
 * After the tick has decided, record its findings as Kubernetes Events. An
 * Event that cannot be written is a WARN line — the outcome's result, exit
 * code, findings and writes stay exactly as the tick left them (I18b).
 */
const publishKubernetesEvents = async (
  outcome: TickOutcome,
  port: EventsPort,
  boundMs: number,
  timers: Timers,
  onEvent: ((event: TickEvent) => void) | undefined,
): Promise<TickOutcome> => {
  const warnings: TickEvent[] = [];
  for (const kubeEvent of kubernetesEventsFor(outcome)) {
    const recorded = await bounded(timers, boundMs, 'recordEvent', port.record(kubeEvent));
    if (E.isRight(recorded)) continue;
    const cause = isPortError(recorded.left) ? describePortError(recorded.left) : String(recorded.left);
    const warning: TickEvent = {
      level: 'warn',
      code: 'EVENT_NOT_RECORDED',
      message: `WARN: could not record the Kubernetes Event ${kubeEvent.reason} (${cause}); the tick's outcome is unchanged`,
    };
    warnings.push(warning);
    onEvent?.(warning);
  }
  // Stryker disable next-line ConditionalExpression: with no warning the copy equals the outcome; returning it as is only saves the copy
  return warnings.length === 0 ? outcome : { ...outcome, events: [...outcome.events, ...warnings] };
};
