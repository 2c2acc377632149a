import type { TickConfig } from '../../config/tick-config.js';
import { describePortError, type PortError } from '../../domain/port-error.js';
import type { Settledness } from '../../domain/settledness.js';
import { ANNOTATION, describeWorkload, type WorkloadId, workloadRef } from '../../domain/workloads.js';
import { event, jobsManager, requestsProxy, resourceMonitor } from '../operator-words.js';
import type { TickEvent } from '../tick-event.js';

// The observe phase's operator lines (docs/behaviour.md §3.1, §3.2): the mirror, the settled
// guard, the skip streak (`IMAGE REFRESH IS FROZEN`, `skipping this refresh tick N/MAX`) and the
// decoupled pass. The quoted phrases are the reference script's (tracebloc/client image-refresh.sh)
// and are what operators grep for: keep them verbatim.

export const mirrorInert = (c: TickConfig): TickEvent =>
  event(
    'info',
    'MIRROR_INERT',
    `NOTE: images are served from private mirror '${c.imageRegistry}' (global.imageRegistry), but this script resolves digests from docker.io. Pinning a docker.io digest onto a mirrored reference could pin an image the mirror does not hold, so auto-refresh is INERT on this edge.`,
    [
      'Update the control-plane images by syncing your mirror and restarting the workloads, or pin images.<image>.digest explicitly.',
      '(That restart DOES re-pull: because this reconcile is inert here, the chart renders imagePullPolicy=Always on the unpinned control-plane images rather than IfNotPresent -- see the tracebloc.controlPlanePullPolicy helper. Offline-restart safety is traded away on this edge precisely so it is not left with no update path at all.)',
    ],
  );

export const deploymentUnreadable = (c: TickConfig, e: PortError): TickEvent =>
  event(
    'error',
    'DEPLOYMENT_UNREADABLE',
    `ERROR: cannot read ${jobsManager(c)} (${describePortError(e)}) -- not a benign skip; failing the tick so it is visible`,
  );

export const skipStreakUncountable = (c: TickConfig, e: PortError): TickEvent =>
  event(
    'error',
    'SKIP_STREAK_UNCOUNTABLE',
    `ERROR: ${jobsManager(c)} is not settled AND the ${ANNOTATION.skipStreak} annotation could not be read (${describePortError(e)}), so the skip streak cannot be counted. Failing the tick rather than skipping silently: an uncounted skip is how this freezes forever.`,
  );

export const skipStreakWriteFailed = (c: TickConfig, streak: number, e: PortError): TickEvent =>
  event(
    'error',
    'SKIP_STREAK_WRITE_FAILED',
    `ERROR: ${jobsManager(c)} is not settled and ${ANNOTATION.skipStreak}=${streak} could not be written (${describePortError(e)}), so the skip streak cannot be counted. Failing the tick rather than skipping silently.`,
  );

/** Workloads reconciled after the settled guard, hence frozen with it (#1964). */
const frozenWithJobsManager = (c: TickConfig): string[] => [
  ...(c.pins.requestsProxy || c.pins.jobsManager ? [] : [requestsProxy(c)]),
  ...(c.pins.resourceMonitor ? [] : [resourceMonitor(c)]),
];

export const frozen = (c: TickConfig, streak: number, settledness: Settledness | undefined): TickEvent => {
  const others = frozenWithJobsManager(c);
  const alsoFrozen =
    others.length === 0
      ? 'No other workload is reconciled by this tick (the rest are pinned).'
      : `and not only for jobs-manager: ${others.join(' and ')} ${others.length === 1 ? 'is' : 'are'} reconciled after this guard, so ${others.length === 1 ? 'it has' : 'they have'} received NO image updates either.`;
  return event(
    'error',
    'FROZEN',
    `ERROR: ${jobsManager(c)} has been unsettled for ${streak} consecutive ticks (>= MAX_SKIP_TICKS=${c.maxSkipTicks}). IMAGE REFRESH IS FROZEN, ${alsoFrozen} Last status: ${settlednessText(settledness)}`,
    [
      'MANUAL ATTENTION NEEDED. Most likely the jobs-manager pod is Running but never Ready, which the readiness probe reports and nothing kills:',
      `  kubectl -n ${c.releaseNamespace} get pods -l app.kubernetes.io/component=jobs-manager`,
      `  kubectl -n ${c.releaseNamespace} logs deployment/${c.deploymentName} -c api | grep -i 'ingestion HTTP server'`,
      "A 'Failed to start ingestion HTTP server' line means 8080 never opened: check ingestion-authz.yaml parses, that the DB user may create the ingestion_runs table, and that 8080 is free. Refresh resumes by itself once the pod goes Ready.",
    ],
  );
};

/** What the settled guard saw; `not observed` before its read answered. */
export const settlednessText = (s: Settledness | undefined): string =>
  s === undefined ? 'not observed' : s._tag === 'Settled' ? s.message : s.reason;

export const skipping = (c: TickConfig, streak: number, settledness: Settledness | undefined): TickEvent =>
  event(
    'info',
    'NOT_SETTLED_SKIP',
    `${jobsManager(c)} not settled (rollout in progress or pod not Ready) -- skipping this refresh tick ${streak}/${c.maxSkipTicks}; will retry when settled. Status: ${settlednessText(settledness)}`,
  );

export const settledAgain = (c: TickConfig, streak: string): TickEvent =>
  event(
    'info',
    'SETTLED_AGAIN',
    `${jobsManager(c)} is settled again after ${streak} skipped tick(s) -- clearing ${ANNOTATION.skipStreak}`,
  );

export const skipStreakUnreadableOnSettle = (c: TickConfig, e: PortError): TickEvent =>
  event(
    'warn',
    'SKIP_STREAK_UNREADABLE',
    `WARNING: ${jobsManager(c)} is settled but ${ANNOTATION.skipStreak} could not be read (${describePortError(e)}); cannot tell whether a skip streak needs clearing. Continuing with this tick -- a stale streak only makes the next streak trip its ceiling sooner.`,
  );

export const skipStreakClearFailed = (c: TickConfig, e: PortError): TickEvent =>
  event(
    'warn',
    'SKIP_STREAK_CLEAR_FAILED',
    `WARNING: could not clear ${ANNOTATION.skipStreak} on ${jobsManager(c)}: ${describePortError(e)}. Continuing with this tick anyway -- the annotation is bookkeeping and a stale value only makes the next skip streak trip its ceiling sooner. Clear it by hand if that is unwanted: kubectl annotate deployment -n ${c.releaseNamespace} ${c.deploymentName} ${ANNOTATION.skipStreak}-`,
  );

export const decoupledRefresh = (): TickEvent =>
  event(
    'info',
    'DECOUPLED_REFRESH',
    'DECOUPLED_REFRESH: refreshing requests-proxy and resource-monitor past the unsettled jobs-manager where they are settled themselves; pods-monitor waits (re-imaging it would roll jobs-manager)',
  );

export const decoupledNotSettled = (c: TickConfig, id: WorkloadId, s: Settledness): TickEvent =>
  event(
    'info',
    'DECOUPLED_NOT_SETTLED',
    `${describeWorkload(workloadRef(c, id))} is not settled either (${settlednessText(s)}); not refreshed this tick`,
  );

export const decoupledUnreadable = (c: TickConfig, id: WorkloadId, e: PortError): TickEvent =>
  event(
    'warn',
    'LIVE_UNREADABLE',
    `WARN: could not read ${describeWorkload(workloadRef(c, id))} (${describePortError(e)}); not refreshed past the unsettled jobs-manager this tick`,
  );
