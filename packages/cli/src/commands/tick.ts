import {
  describeConfigError,
  dryRunPorts,
  runTickFromEnvironment,
  type TickConfig,
  type TickPorts,
} from '@image-refresh/core';
import * as E from 'fp-ts/lib/Either.js';
import type { Connect } from '../connection.js';
import { jsonLine, type LogEvent, logLines, PREFIX } from '../render/log-lines.js';
import { summaryLine } from '../render/summary.js';
import type { CommandResult, Output } from './command.js';

export const TICK_HELP = `Usage: image-refresh tick [--json] [--dry-run]

Runs one refresh tick against the cluster, configured by the chart's
environment (RELEASE_NAME, RELEASE_NAMESPACE, IMAGE_TAG, MAX_SKIP_TICKS, …).
Drop-in for image-refresh.sh: same annotations, phrases and exit codes.

  --json     one JSON object per event on stdout instead of [image-refresh] lines
  --dry-run  read and decide, write nothing; print every write and re-image it would make

Exit codes: 0 ok (including a counted skip below MAX_SKIP_TICKS), 1 a finding an
operator must see (FROZEN, unreadable Deployment, failed rollout, …), 2 a
configuration error (nothing was called).
`;

export interface TickOptions {
  readonly json?: boolean | undefined;
  readonly dryRun?: boolean | undefined;
  /** The tick's abort signal; it also ends the metrics push. */
  readonly signal?: AbortSignal | undefined;
}

export const tick = async (
  options: TickOptions,
  env: Readonly<Record<string, string | undefined>>,
  connect: Connect,
  out: Output,
): Promise<CommandResult> => {
  const say = (event: LogEvent) => {
    if (options.json === true) out.stdout(jsonLine(event));
    else for (const line of logLines(event)) out.stderr(line);
  };
  const note = (code: string, message: string) => say({ level: 'info', code, message });
  // README, "Fleet visibility": loaded only when PUSHGATEWAY_URL is set.
  const metrics = env.PUSHGATEWAY_URL ? (await import('../metrics/metrics-push.js')).startMetrics(env) : undefined;
  if (metrics !== undefined && E.isLeft(metrics)) {
    for (const e of metrics.left) out.stderr(`${PREFIX} ERROR: configuration: ${describeConfigError(e)}`);
    return { exitCode: 2 };
  }
  let tickConfig: TickConfig | undefined;

  const outcome = await runTickFromEnvironment(
    env,
    (config) => {
      tickConfig = config;
      const connection = connect(config);
      note('CLUSTER', `cluster: ${connection.source}`);
      const connected: TickPorts = connection.ports({
        onProgress: (line) => note('ROLLOUT_PROGRESS', `  ${line}`),
        onRateLimit: (line) => note('REGISTRY_BUDGET', `  ${line}`),
      });
      const ports = metrics === undefined ? connected : metrics.right.observe(connected);
      if (options.dryRun !== true) return ports;
      note('DRY_RUN', 'dry-run: reading and deciding only; nothing will be written or re-imaged');
      return dryRunPorts(ports, config, (action) => note('DRY_RUN', `  dry-run: would ${action}`));
    },
    { onEvent: say },
  );
  // A configuration error ends before any event streams: print it now.
  if (outcome.result === 'configInvalid') for (const event of outcome.events) say(event);
  // A dry run writes nothing, and a push would tell the fleet a tick ran.
  if (metrics !== undefined && tickConfig !== undefined && options.dryRun !== true) {
    const warning = await metrics.right.push(outcome, tickConfig, options.signal);
    if (warning !== undefined) say(warning);
  }
  const summary = summaryLine(outcome);
  if (options.json === true) out.stdout(JSON.stringify({ level: 'info', code: 'SUMMARY', message: summary }));
  else out.stderr(`${PREFIX} ${options.dryRun === true ? 'dry-run ' : ''}${summary}`);
  return { exitCode: outcome.exitCode };
};
