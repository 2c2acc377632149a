import {
  configInvalidOutcome,
  type DryRunMode,
  dryRunPorts,
  ENV,
  hasUserinfo,
  interruptedAfterTheTick,
  isPrivateMirror,
  misspelledVariables,
  REGISTRY_ACCESS_ENV,
  runTick,
  type TickOutcome,
  type TickPorts,
  withoutUserinfo,
} from '@image-refresh/core';
import * as E from 'fp-ts/lib/Either.js';
import type { Connect } from '../connection.js';
import { pushAtTickEnd } from '../metrics/push-at-tick-end.js';
import { dryRunEvent } from '../render/dry-run-lines.js';
import { jsonLine, type LogEvent, logLines, PREFIX } from '../render/log-lines.js';
import { profileLines } from '../render/profile-lines.js';
import { summaryLine } from '../render/summary.js';
import { tickVariablesHelp } from '../render/variables-help.js';
import { plainHttpLines } from '../wiring/plain-http-lines.js';
import { readConfiguration } from '../wiring/read-configuration.js';
import type { CommandResult, Output } from './command.js';

export const TICK_HELP = `Usage: image-refresh tick [--json] [--dry-run]

Runs one refresh tick against the cluster, configured by the chart's
environment (RELEASE_NAME, RELEASE_NAMESPACE, IMAGE_TAG, MAX_SKIP_TICKS, …).
Drop-in for image-refresh.sh: same annotations, phrases and exit codes.

  --json     one JSON object per event on stdout instead of [image-refresh] lines
  --dry-run[=server|client]
             read and decide, persist nothing; print every write and re-image it
             would make. server (the default, as kubectl's): each write is sent
             with dryRun=All, so the API server checks RBAC, admission and the
             object, and a refusal ends the tick as it would end the real one;
             client: nothing is sent (for credentials that may only read)

${tickVariablesHelp()}
Exit codes: 0 ok (including a counted skip below MAX_SKIP_TICKS), 1 a finding an
operator must see (FROZEN, unreadable Deployment, failed rollout, …), 2 a
configuration error (every problem is named at once; nothing was called),
143 / 130 stopped by SIGTERM / SIGINT (it says where it was; the summary says
outcome=interrupted). The last line is always the summary.
`;

export interface TickOptions {
  readonly json?: boolean | undefined;
  /** `--dry-run`: `server` sends every write as dryRun=All; `client` sends none. */
  readonly dryRun?: DryRunMode | undefined;
  /** SIGTERM / SIGINT: stop starting calls, end waits and reads, say where the tick was (docs/behaviour.md §3, Signals). */
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
    if (options.dryRun === undefined) return print(event);
    const shown = dryRunEvent(event);
    if (shown !== undefined) print(shown);
  };
  const note = (code: string, message: string) => say({ level: 'info', code, message });
  // The summary is the last line of every exit, exit 2 included (#1964: never only the Job's colour).
  const summarise = (outcome: TickOutcome): CommandResult => {
    const summary = summaryLine(outcome);
    if (options.json === true) out.stdout(JSON.stringify({ level: 'info', code: 'SUMMARY', message: summary }));
    else out.stderr(`${PREFIX} ${options.dryRun === undefined ? '' : 'dry-run '}${summary}`);
    return { exitCode: outcome.exitCode };
  };

  // Every problem of the environment at once — core's parse, the metrics
  // settings, the signature check's files — before any call (I18).
  const configuration = await readConfiguration(env, { metrics: true, signatureFiles: true });
  if (E.isLeft(configuration)) {
    const refused = configInvalidOutcome(configuration.left);
    for (const event of refused.events) say(event);
    return summarise(refused);
  }
  const { config, trust, metrics, registryAccess } = configuration.right;
  // A likely typo of one of ours is said, not silently ignored (docs/behaviour.md §2).
  for (const { variable, meant } of misspelledVariables(env, config)) {
    say({
      level: 'warn',
      code: 'VARIABLE_MISSPELLED',
      message: `WARN: ${variable} is not a variable image-refresh reads (did you mean ${meant}?); it is ignored`,
    });
  }
  // Node turns `https://user:pass@host` into Basic auth, but the password then
  // sits in the pod spec in plain text (docs/configuration.md, "The registry").
  if (hasUserinfo(config.registryUrl)) {
    say({
      level: 'warn',
      code: 'REGISTRY_URL_CREDENTIALS',
      message: `WARN: ${ENV.registryUrl} carries credentials (${withoutUserinfo(config.registryUrl)}), in the pod spec in plain text; mount the pull Secret and name it in ${REGISTRY_ACCESS_ENV.registryAuthFile} instead. The next minor version refuses such a URL.`,
    });
  }
  // Plain http is said once per tick, for every listed host the tick asks (docs/configuration.md, "The registry").
  for (const line of plainHttpLines(config, registryAccess)) say(line);
  // Every request and wait of this tick carries this signal; it is aborted
  // once the summary is printed, so nothing is in flight after it.
  const tickOver = new AbortController();
  const connection = connect(config, registryAccess);
  // No credentials to talk to the cluster with is the environment's fault, found before any call (I18);
  // behind a private mirror the tick makes no call at all (I14), so it needs none.
  if (connection.configProblem !== undefined && !isPrivateMirror(config)) {
    const refused = configInvalidOutcome([connection.configProblem]);
    for (const event of refused.events) say(event);
    return summarise(refused);
  }
  // No cluster to talk to is not news for --json readers filtering on level.
  const ports = (): TickPorts => {
    say({
      level: connection.reachable === false ? 'warn' : 'info',
      code: 'CLUSTER',
      message: `cluster: ${connection.source}`,
    });
    // Every manifest answer reports the budget; once per tick is enough.
    let budgetSaid = false;
    const connected: TickPorts = connection.ports({
      onProgress: (line) => note('ROLLOUT_PROGRESS', `  ${line}`),
      onRateLimit: (line) => {
        if (budgetSaid) return;
        budgetSaid = true;
        note('REGISTRY_BUDGET', `  ${line}`);
      },
      signal: tickOver.signal,
      ...(options.dryRun === 'server' ? { dryRun: true } : {}),
      ...(options.interrupt === undefined ? {} : { interrupt: options.interrupt }),
      ...(trust === undefined ? {} : { signatureTrust: trust }),
    });
    const observed = metrics === undefined ? connected : metrics.observe(connected, config.topology);
    if (options.dryRun === undefined) return observed;
    note(
      'DRY_RUN',
      options.dryRun === 'server'
        ? 'dry-run: reading and deciding; every write goes to the API server as a dry run (dryRun=All): checked, persisted nowhere, nothing rolls'
        : 'dry-run: reading and deciding only; nothing will be written or re-imaged',
    );
    for (const line of profileLines(config, env[ENV.profile] || undefined)) note('DRY_RUN', `dry-run: ${line}`);
    return dryRunPorts(observed, config, (action) => note('DRY_RUN', `  dry-run: would ${action}`), options.dryRun);
  };
  const ran = await runTick(config, ports(), {
    onEvent: say,
    ...(options.interrupt === undefined ? {} : { signal: options.interrupt }),
  });
  // A dry run writes nothing, and a push would tell the fleet a tick ran.
  const outcome =
    metrics !== undefined && options.dryRun === undefined
      ? await pushAtTickEnd(metrics, ran, config, { tickOver: tickOver.signal, interrupt: options.interrupt }, say)
      : stoppedBeforeTheSummary(ran, options.interrupt, say);
  const result = summarise(outcome);
  tickOver.abort(new Error('the tick is over: its summary is printed'));
  return result;
};

/** A signal that came after the machine ended (while its Events were recorded) still wins. */
const stoppedBeforeTheSummary = (
  outcome: TickOutcome,
  interrupt: AbortSignal | undefined,
  say: (event: LogEvent) => void,
): TickOutcome => {
  if (interrupt?.aborted !== true || outcome.result === 'interrupted') return outcome;
  const stopped = interruptedAfterTheTick(outcome, interrupt.reason, "while recording the tick's Kubernetes Events");
  say(stopped.events.at(-1) as LogEvent);
  return stopped;
};
