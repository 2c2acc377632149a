import {
  type ConfigError,
  describePortError,
  type TickConfig,
  type TickOutcome,
  type TickPorts,
  type Topology,
} from '@image-refresh/core';
import * as E from 'fp-ts/lib/Either.js';
import type { LogEvent } from '../render/log-lines.js';
import { renderExposition } from './exposition.js';
import { type MetricsConfig, parseMetricsConfig, pushUrl } from './metrics-config.js';
import { emptyObservations, observePorts } from './observations.js';
import { pushMetrics } from './push.js';
import { countRequests } from './request-count.js';
import { tickMetrics } from './tick-metrics.js';

// The tick's metrics, end to end: loaded by the tick command only when
// PUSHGATEWAY_URL is set (a tick without it loads none of this: same memory,
// no request). Start it before the tick, hand the tick `observe(ports)`, then
// `push` once at the end: one POST, whose failure is a WARN and nothing else
// — no exit code, write or Event changes (docs/behaviour.md §6).

export interface MetricsSession {
  /** The ports the tick runs on, their answers noted for the metrics (in the topology's terms). */
  readonly observe: (ports: TickPorts, topology: Topology) => TickPorts;
  /**
   * Push this tick's metrics, within `bound` (the tick's signal, a signal
   * that cuts it short, and a `timeoutMs` that defaults to API_TIMEOUT); a
   * WARN event when the push failed, else undefined. May be called again
   * (an interrupted tick's metrics replace the ones a signal cut short).
   */
  readonly push: (
    outcome: TickOutcome,
    config: TickConfig,
    bound?: {
      readonly signal?: AbortSignal | undefined;
      readonly interrupt?: AbortSignal | undefined;
      readonly timeoutMs?: number | undefined;
    },
  ) => Promise<LogEvent | undefined>;
}

const session = (metrics: MetricsConfig, now: () => number): MetricsSession => {
  const startedAtMs = now();
  const requests = countRequests();
  const observed = emptyObservations();
  return {
    observe: (ports, topology) => observePorts(ports, observed, topology),
    push: async (outcome, config, bound = {}) => {
      const endedAtMs = now();
      requests.stop();
      const body = renderExposition(
        tickMetrics({ outcome, observed, requests: requests.counts(), startedAtMs, endedAtMs }, config),
      );
      const pushed = await pushMetrics(pushUrl(metrics, config.topology), body, {
        timeoutMs: bound.timeoutMs ?? config.apiTimeoutMs,
        signal: bound.signal,
        interrupt: bound.interrupt,
      });
      return E.isRight(pushed)
        ? undefined
        : {
            level: 'warn',
            code: 'METRICS_NOT_PUSHED',
            message: `WARN: could not push this tick's metrics to the Pushgateway (${describePortError(pushed.left)}); the tick's outcome is unchanged`,
          };
    },
  };
};

/** The session, or every problem with PUSHGATEWAY_URL, METRICS_JOB and METRICS_GROUPING; undefined when off. */
export const startMetrics = (
  env: Readonly<Record<string, string | undefined>>,
  now: () => number = Date.now,
): E.Either<readonly ConfigError[], MetricsSession> | undefined => {
  const parsed = parseMetricsConfig(env);
  return parsed === undefined ? undefined : E.map((m: MetricsConfig) => session(m, now))(parsed);
};
