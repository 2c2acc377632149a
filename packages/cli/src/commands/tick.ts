import {
  describeConfigError,
  dryRunPorts,
  parseTickConfig,
  runTickFromEnvironment,
  type TickConfig,
  type TickPorts,
} from '@image-refresh/core';
import * as E from 'fp-ts/lib/Either.js';
import type { Connect } from '../connection.js';
import { dryRunEvent } from '../render/dry-run-lines.js';
import { jsonLine, type LogEvent, logLines, PREFIX } from '../render/log-lines.js';
import { summaryLine } from '../render/summary.js';
import { loadSignatureTrust } from '../wiring/load-signature-trust.js';
import type { CommandResult, Output } from './command.js';

export const TICK_HELP = `Usage: image-refresh tick [--json] [--dry-run]

Runs one refresh tick against the cluster, configured by the chart's
environment (RELEASE_NAME, RELEASE_NAMESPACE, IMAGE_TAG, MAX_SKIP_TICKS, …).
Drop-in for image-refresh.sh: same annotations, phrases and exit codes.

  --json     one JSON object per event on stdout instead of [image-refresh] lines
  --dry-run  read and decide, write nothing; print every write and re-image it would make

The chart's variables: RELEASE_NAME, RELEASE_NAMESPACE, DEPLOYMENT_NAME,
REQUESTS_PROXY_DEPLOYMENT, RESOURCE_MONITOR_DAEMONSET, NODE_AGENTS_NAMESPACE,
IMAGE_REGISTRY, IMAGE_TAG, ROLLOUT_TIMEOUT (10m), MAX_REFRESH_ATTEMPTS (3),
MAX_SKIP_TICKS (8), JOBS_MANAGER_PINNED, PODS_MONITOR_PINNED,
RESOURCE_MONITOR_PINNED, REQUESTS_PROXY_PINNED. Beyond them: SETTLE_TIMEOUT
(10s), API_TIMEOUT (15s), REGISTRY_TIMEOUT (10s) — every duration at most 24h —,
IMAGE_REFRESH_REGISTRY_URL, FLAP_LOCKOUT_EXIT (0), REGISTRY_BUDGET_FLOOR (10;
0: only a 429 holds re-images back; off: no budget guard), IMAGE_REFRESH_EVENTS
(1), RECONCILE_LIVE (0 | report | 1), DECOUPLED_REFRESH (0), VERIFY_SIGNATURES
(off | warn | enforce) with SIGNATURE_PUBLIC_KEYS (comma-separated PEM files)
and/or SIGNATURE_IDENTITY (exact, or /regex/), SIGNATURE_ISSUER and
SIGSTORE_TRUSTED_ROOT (keyless), ON_ROLLOUT_FAILURE (keep | revert),
ROLLOUT_STABLE_FOR (0s), MIN_DIGEST_AGE (0s), ROLLOUT_RING (0), RING_DELAY
(1h), START_JITTER (0s), PLATFORM_CHECK (off | on), PREPULL (off | on) with
PREPULL_TIMEOUT (30m) and PREPULL_PARALLEL (1).

Exit codes: 0 ok (including a counted skip below MAX_SKIP_TICKS), 1 a finding an
operator must see (FROZEN, unreadable Deployment, failed rollout, …), 2 a
configuration error (nothing was called), 143 / 130 stopped by SIGTERM / SIGINT
(it says where it was; the summary says outcome=interrupted).
`;

/** How long an interrupted tick may spend on its metrics push (its Events get as long). */
const INTERRUPTED_PUSH_BOUND_MS = 1_500;

export interface TickOptions {
  readonly json?: boolean | undefined;
  readonly dryRun?: boolean | undefined;
  /** SIGTERM / SIGINT: stop starting calls, end waits and reads, say where the tick was (issue 13). */
  readonly interrupt?: AbortSignal | undefined;
}

export const tick = async (
  options: TickOptions,
  env: Readonly<Record<string, string | undefined>>,
  connect: Connect,
  out: Output,
): Promise<CommandResult> => {
  const print = (event: LogEvent) => {
    if (options.json === true) out.stdout(jsonLine(event));
    else for (const line of logLines(event)) out.stderr(line);
  };
  const say = (event: LogEvent) => {
    if (options.dryRun !== true) return print(event);
    const shown = dryRunEvent(event);
    if (shown !== undefined) print(shown);
  };
  const note = (code: string, message: string) => say({ level: 'info', code, message });
  // README, "Fleet visibility": loaded only when PUSHGATEWAY_URL is set.
  const metrics = env.PUSHGATEWAY_URL ? (await import('../metrics/metrics-push.js')).startMetrics(env) : undefined;
  if (metrics !== undefined && E.isLeft(metrics)) {
    for (const e of metrics.left) out.stderr(`${PREFIX} ERROR: configuration: ${describeConfigError(e)}`);
    return { exitCode: 2 };
  }
  // Issue 15: the key files and trusted root are read before any call; one
  // that is missing or not a key is exit 2, naming the variable and the file.
  const parsed = parseTickConfig(env);
  const trust = E.isRight(parsed) ? await loadSignatureTrust(parsed.right) : E.right(undefined);
  if (E.isLeft(trust)) {
    for (const e of trust.left) {
      say({ level: 'error', code: 'CONFIG_INVALID', message: `ERROR: configuration: ${describeConfigError(e)}` });
    }
    return { exitCode: 2 };
  }
  let tickConfig: TickConfig | undefined;
  // Every request and wait of this tick carries this signal; it is aborted
  // once the summary is printed, so nothing is in flight after it (issue 13).
  const tickOver = new AbortController();

  const outcome = await runTickFromEnvironment(
    env,
    (config) => {
      tickConfig = config;
      const connection = connect(config);
      // No cluster to talk to is not news for --json readers filtering on level (issue 13).
      say({
        level: connection.reachable === false ? 'warn' : 'info',
        code: 'CLUSTER',
        message: `cluster: ${connection.source}`,
      });
      // Every manifest answer reports the budget; once per tick is enough (issue 13).
      let budgetSaid = false;
      const connected: TickPorts = connection.ports({
        onProgress: (line) => note('ROLLOUT_PROGRESS', `  ${line}`),
        onRateLimit: (line) => {
          if (budgetSaid) return;
          budgetSaid = true;
          note('REGISTRY_BUDGET', `  ${line}`);
        },
        signal: tickOver.signal,
        ...(options.interrupt === undefined ? {} : { interrupt: options.interrupt }),
        ...(trust.right === undefined ? {} : { signatureTrust: trust.right }),
      });
      const ports = metrics === undefined ? connected : metrics.right.observe(connected);
      if (options.dryRun !== true) return ports;
      note('DRY_RUN', 'dry-run: reading and deciding only; nothing will be written or re-imaged');
      return dryRunPorts(ports, config, (action) => note('DRY_RUN', `  dry-run: would ${action}`));
    },
    { onEvent: say, ...(options.interrupt === undefined ? {} : { signal: options.interrupt }) },
  );
  // A configuration error ends before any event streams: print it now.
  if (outcome.result === 'configInvalid') for (const event of outcome.events) say(event);
  // A dry run writes nothing, and a push would tell the fleet a tick ran.
  if (metrics !== undefined && tickConfig !== undefined && options.dryRun !== true) {
    // Interrupted, the process has about two seconds left (issue 13): the push
    // gets the bound an interrupted tick's Events get, not all of API_TIMEOUT —
    // as its own bound, which pushMetrics makes with boundedCall.
    const interrupted = outcome.result === 'interrupted' || options.interrupt?.aborted === true;
    const boundMs = interrupted
      ? Math.min(INTERRUPTED_PUSH_BOUND_MS, tickConfig.apiTimeoutMs)
      : tickConfig.apiTimeoutMs;
    const warning = await metrics.right.push(outcome, tickConfig, { signal: tickOver.signal, timeoutMs: boundMs });
    if (warning !== undefined) say(warning);
  }
  const summary = summaryLine(outcome);
  if (options.json === true) out.stdout(JSON.stringify({ level: 'info', code: 'SUMMARY', message: summary }));
  else out.stderr(`${PREFIX} ${options.dryRun === true ? 'dry-run ' : ''}${summary}`);
  tickOver.abort(new Error('the tick is over: its summary is printed'));
  return { exitCode: outcome.exitCode };
};
