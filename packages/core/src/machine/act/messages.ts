import { formatDuration } from '../../config/duration.js';
import type { TickConfig } from '../../config/tick-config.js';
import type { WorkloadChange } from '../../domain/plan.js';
import { describePortError, type PortError } from '../../domain/port-error.js';
import type { RegistryBudget } from '../../domain/registry-budget.js';
import { describeFailures, type StagingReport, type StagingResult } from '../../domain/staging.js';
import { describeWorkload } from '../../domain/workloads.js';
import type { RolloutError } from '../../ports/cluster-port.js';
import {
  event,
  gate,
  listed,
  NOTHING_RECORDED,
  patchText,
  rearmCommand,
  where,
  workloadsNoun,
} from '../operator-words.js';
import type { TickEvent } from '../tick-event.js';

// The act phase's operator lines (docs/behaviour.md §3.5, §3.6): the pull budget, the flap
// back-off (`FLAP DETECTED`, `MANUAL ATTENTION NEEDED`), each set image and rollout, and
// ROLLOUT_STABLE_FOR's watch. Keep the quoted phrases verbatim: operators grep for them.

export const registryBudgetLow = (budget: RegistryBudget): TickEvent => {
  const why = budget.reasons
    .map((r) =>
      r._tag === 'RateLimited'
        ? 'the registry answered 429 (rate limited)'
        : `ratelimit-remaining ${r.remaining} < REGISTRY_BUDGET_FLOOR=${r.floor}`,
    )
    .join(' and ');
  return event(
    'warn',
    'REGISTRY_BUDGET_LOW',
    `WARN: registry pull budget is low (${why}): not starting a re-image this tick -- every re-image makes the kubelets pull (a DaemonSet once per node), and a rollout that dies of ImagePullBackOff only burns the flap guard. First observations are still recorded; changed digests wait for the next tick.`,
  );
};

export const attemptUnreadable = (c: TickConfig, e: PortError): TickEvent =>
  event(
    'warn',
    'ATTEMPT_UNREADABLE',
    `WARN: could not read ${c.topology.keys.refreshAttempt} annotation (${describePortError(e)}); cannot confirm the rollout attempt count -- skipping the re-image this tick rather than risk churning a flapping workload. Will retry next tick.`,
  );

export const flapDetected = (c: TickConfig, attempt: number, asFinding: boolean): TickEvent =>
  event(
    asFinding ? 'error' : 'warn',
    'FLAP_DETECTED',
    `${asFinding ? 'ERROR' : 'WARN'}: rollout for the current image digest(s) failed ${attempt} time(s) in a row (>= MAX_REFRESH_ATTEMPTS=${c.maxRefreshAttempts}) -- FLAP DETECTED. NOT re-imaging the ${workloadsNoun(c)} (a workload becomes Ready then crashes; retrying only churns ReplicaSets). MANUAL ATTENTION NEEDED: investigate ${listed(c.topology.workloads.map(describeWorkload))}, then clear the ${c.topology.keys.refreshAttempt} annotation on ${gate(c)} to re-arm refresh.`,
    [rearmCommand(c)],
  );

export const flapMarkFailed = (c: TickConfig, attempt: number, e: PortError): TickEvent =>
  event(
    'error',
    'FLAP_MARK_FAILED',
    `ERROR: flap detected after ${attempt} failed attempt(s) but ${c.topology.keys.flapDetected} could not be written on ${gate(c)} (${describePortError(e)}). Nothing was re-imaged.`,
  );

export const attemptWriteFailed = (c: TickConfig, attempt: number, e: PortError): TickEvent =>
  event(
    'error',
    'ATTEMPT_WRITE_FAILED',
    `ERROR: could not persist ${c.topology.keys.refreshAttempt}=${attempt} on ${gate(c)} (${describePortError(e)}); not re-imaging without a persisted attempt, which is what the flap guard counts.`,
  );

export const reimaging = (c: TickConfig, attempt: number): TickEvent =>
  event('info', 'REIMAGING', `re-imaging ${workloadsNoun(c)} (attempt ${attempt}/${c.maxRefreshAttempts})`);

export const setImage = (change: WorkloadChange): TickEvent =>
  event('info', 'SET_IMAGE', `set image ${where(change.workload)}: ${patchText(change)}`);

/** A set image the port did not send: the workload already runs the target (docs/behaviour.md §3.6). */
export const alreadyOnTarget = (change: WorkloadChange): TickEvent =>
  event(
    'info',
    'ALREADY_ON_TARGET',
    `${where(change.workload)} already runs ${[...new Set(change.images.map((i) => i.image))].join(' ')}; not re-imaged`,
  );

export const setImageFailed = (change: WorkloadChange, e: PortError): TickEvent =>
  event(
    'error',
    'SET_IMAGE_FAILED',
    `ERROR: set image on ${describeWorkload(change.workload)} failed (${describePortError(e)}); ${NOTHING_RECORDED}.`,
  );

export const rolloutComplete = (change: WorkloadChange): TickEvent =>
  event('info', 'ROLLOUT_COMPLETE', `${describeWorkload(change.workload)} rollout complete`);

/**
 * A rollout Kubernetes gave up on (ProgressDeadlineExceeded, an OnDelete
 * DaemonSet) ends long before ROLLOUT_TIMEOUT: say what happened, not that
 * the timeout passed.
 */
const rolloutEnd = (c: TickConfig, e: RolloutError): string =>
  e._tag === 'RolloutFailed'
    ? `failed, and waiting cannot complete it (${describePortError(e)})`
    : `did not complete within ROLLOUT_TIMEOUT=${formatDuration(c.rolloutTimeoutMs)} (${describePortError(e)})`;

export const rolloutFailed = (c: TickConfig, change: WorkloadChange, e: RolloutError): TickEvent =>
  event(
    'error',
    'ROLLOUT_FAILED',
    `ERROR: rollout of ${describeWorkload(change.workload)} ${rolloutEnd(c, e)}; ${NOTHING_RECORDED}.`,
  );

/** ROLLOUT_STABLE_FOR: the rollout completed; the window starts. */
export const watchingStability = (c: TickConfig, change: WorkloadChange): TickEvent =>
  event(
    'info',
    'STABILITY_WATCH',
    `${describeWorkload(change.workload)} rollout complete; it must stay complete for ROLLOUT_STABLE_FOR=${formatDuration(c.rolloutStableForMs)} before the re-image counts`,
  );

/** Fell apart inside the window: a failed rollout, under the code operators alert on (ROLLOUT_FAILED). */
export const fellApart = (c: TickConfig, change: WorkloadChange, e: RolloutError): TickEvent =>
  event(
    'error',
    'ROLLOUT_FAILED',
    `ERROR: rollout of ${describeWorkload(change.workload)} completed but did not stay complete for ROLLOUT_STABLE_FOR=${formatDuration(c.rolloutStableForMs)} (${describePortError(e)}); ${NOTHING_RECORDED}.`,
  );

export const reimageComplete = (): TickEvent => event('info', 'REIMAGE_COMPLETE', 're-image complete');

// PREPULL's lines (docs/behaviour.md §3.5a): staging starts, a workload is
// staged on its nodes, or it is not — one WARN naming each node and why.

/** Staging starts: the same words as the RefreshStaging Event recorded with it. */
export const staging = (announcement: string): TickEvent => event('info', 'STAGING', announcement);

export const staged = (report: StagingReport, nodes: readonly string[]): TickEvent =>
  event(
    'info',
    'STAGED',
    `staged ${report.images.join(', ')} on ${nodes.length === 0 ? 'no node (no pod of it runs now)' : nodes.join(', ')} for ${where(report.workload)}`,
  );

export const stagingFailed = (
  report: StagingReport,
  result: Extract<StagingResult, { _tag: 'NotStaged' }>,
): TickEvent =>
  event(
    'warn',
    'STAGING_FAILED',
    `WARN: could not stage ${report.images.join(', ')} for ${where(report.workload)} ${describeFailures(result)}; not switching it this tick, no attempt spent. Will retry next tick.`,
  );

/** What staging said of one workload. */
export const announceStaging = (report: StagingReport): TickEvent =>
  report.result._tag === 'Staged' ? staged(report, report.result.nodes) : stagingFailed(report, report.result);

/** The RefreshStaging Event could not be written: said as after the tick, and nothing else changes (I18b). */
export const stagingEventNotRecorded = (cause: string): TickEvent =>
  event(
    'warn',
    'EVENT_NOT_RECORDED',
    `WARN: could not record the Kubernetes Event RefreshStaging (${cause}); the tick's outcome is unchanged`,
  );
