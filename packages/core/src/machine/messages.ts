import { formatDuration } from '../config/duration.js';
import type { TickConfig } from '../config/tick-config.js';
import type { Hold } from '../domain/admission.js';
import { type BookkeepingChanges, describeChanges } from '../domain/bookkeeping.js';
import type { LiveFinding } from '../domain/live-drift.js';
import type { ImageResolution, ImageVerdict, WorkloadChange } from '../domain/plan.js';
import { describePortError, type PortError, type RegistryError } from '../domain/port-error.js';
import type { Settledness } from '../domain/settledness.js';
import {
  ANNOTATION,
  describeWorkload,
  type ImageSpec,
  imageSpec,
  type WorkloadId,
  workloadRef,
} from '../domain/workloads.js';
import type { RolloutError } from '../ports/cluster-port.js';
import { lowestRateLimitRemaining, wasRateLimited } from './tick-decisions.js';
import { type TickEvent, tickEvent } from './tick-event.js';

// Every operator-facing sentence of a tick, in one place. The quoted phrases
// are the reference script's (tracebloc/client image-refresh.sh) and are what
// operators grep for: keep them verbatim.

const event = tickEvent;

const jobsManager = (c: TickConfig): string => describeWorkload(workloadRef(c, 'jobs-manager'));
const requestsProxy = (c: TickConfig): string => describeWorkload(workloadRef(c, 'requests-proxy'));
const resourceMonitor = (c: TickConfig): string => describeWorkload(workloadRef(c, 'resource-monitor'));

export const tickStart = (c: TickConfig): TickEvent =>
  event(
    'info',
    'TICK_START',
    `release=${c.releaseName} namespace=${c.releaseNamespace} deployment=${c.deploymentName}`,
    [
      `client images: tracebloc/{jobs-manager,pods-monitor,resource-monitor} on ${c.imageRegistry} under tag=${c.imageTag}`,
      `also reconciling: ${requestsProxy(c)} (jobs-manager image), ${resourceMonitor(c)} in ${c.nodeAgentsNamespace}`,
    ],
  );

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

export const frozen = (c: TickConfig, streak: number, settledness: Settledness): TickEvent => {
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

export const settlednessText = (s: Settledness): string => (s._tag === 'Settled' ? s.message : s.reason);

export const skipping = (c: TickConfig, streak: number, settledness: Settledness): TickEvent =>
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

export const checkingImage = (c: TickConfig, image: ImageSpec): TickEvent =>
  event('info', 'CHECKING_IMAGE', `checking ${image.repo}:${c.imageTag} (annotation=${image.recordKey})`);

export const imagePinned = (image: ImageSpec): TickEvent =>
  event(
    'info',
    'IMAGE_PINNED',
    `${image.repo}: pinned by digest in values; skipping (auto-refresh disabled for this image)`,
  );

/** The script's words for a failed token request, `docker.io/<repo>` as it names the repository. */
const failedRequest = (c: TickConfig, image: ImageSpec, e: RegistryError): string =>
  e.failedAt === 'token' ? `: could not fetch auth token for ${c.imageRegistry}/${image.repo}` : '';

export const resolveFailed = (c: TickConfig, image: ImageSpec, e: RegistryError): TickEvent => ({
  ...event(
    'warn',
    'RESOLVE_FAILED',
    `WARN: could not resolve latest digest of ${image.repo}:${c.imageTag}${failedRequest(c, image, e)} (${describePortError(e)}); skipping this image this tick, the others go on`,
  ),
  cause: e._tag,
});

export const recordedDigestsUnreadable = (c: TickConfig, e: PortError): TickEvent =>
  event(
    'warn',
    'RECORDED_DIGESTS_UNREADABLE',
    `WARN: could not read the recorded digests on ${jobsManager(c)} (${describePortError(e)}); treating that as "first observation" would skip a needed re-image, so nothing is recorded or re-imaged this tick. Will retry next tick.`,
  );

/** Why an admission check held a changed digest back, for its verdict line (docs/behaviour.md §3.4a). */
const HELD_BECAUSE: Record<Hold['_tag'], string> = {
  Quarantined: 'by the quarantine',
  Soaking: 'by the soak (not yet old enough on this edge)',
  SignatureNotVerified: 'by the signature check',
};

export const verdict = (image: ImageSpec, v: ImageVerdict, hold?: Hold): TickEvent => {
  switch (v._tag) {
    case 'FirstObservation':
      // Only the quarantine holds a first observation (I30): its own line says which key.
      return event(
        'info',
        'FIRST_OBSERVATION',
        `${image.repo}: latest=${v.digest} recorded=<unset> -- first observation; ${hold === undefined ? 'recording without re-imaging' : `held back ${HELD_BECAUSE[hold._tag]}, not recorded`}`,
      );
    case 'Unchanged':
      return event(
        'info',
        'DIGEST_UNCHANGED',
        `${image.repo}: latest=${v.digest} -- digest unchanged since last refresh; no-op`,
      );
    case 'Drift':
      // A held drift is not "needed" this tick: the line says which check held it (the check's own line says more).
      return event(
        'info',
        'DIGEST_CHANGED',
        `${image.repo}: digest changed (${v.from} -> ${v.to}); ${hold === undefined ? 're-image needed' : `held back ${HELD_BECAUSE[hold._tag]}`}`,
      );
  }
};

export const registryBudgetLow = (c: TickConfig, resolutions: readonly ImageResolution[]): TickEvent => {
  const lowest = lowestRateLimitRemaining(resolutions);
  const why = [
    ...(wasRateLimited(resolutions) ? ['the registry answered 429 (rate limited)'] : []),
    ...(lowest !== undefined && lowest < c.registryBudgetFloor
      ? [`ratelimit-remaining ${lowest} < REGISTRY_BUDGET_FLOOR=${c.registryBudgetFloor}`]
      : []),
  ].join(' and ');
  return event(
    'warn',
    'REGISTRY_BUDGET_LOW',
    `WARN: registry pull budget is low (${why}): not starting a re-image this tick -- every re-image makes the kubelets pull (a DaemonSet once per node), and a rollout that dies of ImagePullBackOff only burns the flap guard. First observations are still recorded; changed digests wait for the next tick.`,
  );
};

export const requestsProxyPinned = (): TickEvent =>
  event(
    'info',
    'REQUESTS_PROXY_PINNED',
    'requests-proxy is pinned by images.requestsProxy.digest; not following this digest',
  );

export const attemptUnreadable = (e: PortError): TickEvent =>
  event(
    'warn',
    'ATTEMPT_UNREADABLE',
    `WARN: could not read ${ANNOTATION.refreshAttempt} annotation (${describePortError(e)}); cannot confirm the rollout attempt count -- skipping the re-image this tick rather than risk churning a flapping workload. Will retry next tick.`,
  );

export const flapDetected = (c: TickConfig, attempt: number, asFinding: boolean): TickEvent =>
  event(
    asFinding ? 'error' : 'warn',
    'FLAP_DETECTED',
    `${asFinding ? 'ERROR' : 'WARN'}: rollout for the current image digest(s) failed ${attempt} time(s) in a row (>= MAX_REFRESH_ATTEMPTS=${c.maxRefreshAttempts}) -- FLAP DETECTED. NOT re-imaging the control-plane workloads (a workload becomes Ready then crashes; retrying only churns ReplicaSets). MANUAL ATTENTION NEEDED: investigate ${jobsManager(c)}, ${requestsProxy(c)} and ${resourceMonitor(c)}, then clear the ${ANNOTATION.refreshAttempt} annotation on ${jobsManager(c)} to re-arm refresh.`,
    [
      `kubectl annotate deployment -n ${c.releaseNamespace} ${c.deploymentName} ${ANNOTATION.refreshAttempt}- ${ANNOTATION.flapDetected}-   (or: image-refresh rearm)`,
    ],
  );

export const flapMarkFailed = (c: TickConfig, attempt: number, e: PortError): TickEvent =>
  event(
    'error',
    'FLAP_MARK_FAILED',
    `ERROR: flap detected after ${attempt} failed attempt(s) but ${ANNOTATION.flapDetected} could not be written on ${jobsManager(c)} (${describePortError(e)}). Nothing was re-imaged.`,
  );

export const attemptWriteFailed = (c: TickConfig, attempt: number, e: PortError): TickEvent =>
  event(
    'error',
    'ATTEMPT_WRITE_FAILED',
    `ERROR: could not persist ${ANNOTATION.refreshAttempt}=${attempt} on ${jobsManager(c)} (${describePortError(e)}); not re-imaging without a persisted attempt (#563).`,
  );

export const reimaging = (c: TickConfig, attempt: number): TickEvent =>
  event('info', 'REIMAGING', `re-imaging control-plane workloads (attempt ${attempt}/${c.maxRefreshAttempts})`);

export const setImage = (change: WorkloadChange): TickEvent =>
  event(
    'info',
    'SET_IMAGE',
    // The script's own form: a DaemonSet says its namespace (the node agents'),
    // a Deployment lives in the release namespace and does not.
    `set image ${describeWorkload(change.workload)}${change.workload.kind === 'DaemonSet' ? ` in ${change.workload.namespace}` : ''}: ${change.images.map((i) => `${i.container}=${i.image}`).join(' ')}`,
  );

/** A set image the port did not send: the workload already runs the target (docs/behaviour.md §3.6). */
export const alreadyOnTarget = (change: WorkloadChange): TickEvent =>
  event(
    'info',
    'ALREADY_ON_TARGET',
    `${describeWorkload(change.workload)}${change.workload.kind === 'DaemonSet' ? ` in ${change.workload.namespace}` : ''} already runs ${[...new Set(change.images.map((i) => i.image))].join(' ')}; not re-imaged`,
  );

export const setImageFailed = (change: WorkloadChange, e: PortError): TickEvent =>
  event(
    'error',
    'SET_IMAGE_FAILED',
    `ERROR: set image on ${describeWorkload(change.workload)} failed (${describePortError(e)}); the attempt counter stays incremented and the new digests are not recorded.`,
  );

export const rolloutComplete = (change: WorkloadChange): TickEvent =>
  event('info', 'ROLLOUT_COMPLETE', `${describeWorkload(change.workload)} rollout complete`);

/**
 * A rollout Kubernetes gave up on (ProgressDeadlineExceeded, an OnDelete
 * DaemonSet) ends long before ROLLOUT_TIMEOUT: say what happened, not that
 * the timeout passed (issue 13).
 */
const rolloutEnd = (c: TickConfig, e: RolloutError): string =>
  e._tag === 'RolloutFailed'
    ? `failed, and waiting cannot complete it (${describePortError(e)})`
    : `did not complete within ROLLOUT_TIMEOUT=${formatDuration(c.rolloutTimeoutMs)} (${describePortError(e)})`;

export const rolloutFailed = (c: TickConfig, change: WorkloadChange, e: RolloutError): TickEvent =>
  event(
    'error',
    'ROLLOUT_FAILED',
    `ERROR: rollout of ${describeWorkload(change.workload)} ${rolloutEnd(c, e)}; the attempt counter stays incremented and the new digests are not recorded.`,
  );

export const reimageComplete = (): TickEvent => event('info', 'REIMAGE_COMPLETE', 're-image complete');

export const successResetFailed = (c: TickConfig, e: PortError): TickEvent =>
  event(
    'error',
    'SUCCESS_RESET_FAILED',
    `ERROR: every rollout completed but ${ANNOTATION.refreshAttempt}/${ANNOTATION.flapDetected} could not be cleared on ${jobsManager(c)} (${describePortError(e)}). The tick still goes on to record the new digests; a stale attempt count makes the next drift reach the flap lockout sooner.`,
    [
      `kubectl annotate deployment -n ${c.releaseNamespace} ${c.deploymentName} ${ANNOTATION.refreshAttempt}- ${ANNOTATION.flapDetected}-   (or: image-refresh rearm)`,
    ],
  );

// A decoupled pass that found refresh-attempt above 0 puts it back instead of
// clearing it (issue 7, "flap counter keeps its meaning", I25); its failure
// keeps the SUCCESS_RESET_FAILED code operators already alert on.
export const attemptKept = (c: TickConfig, attempt: number): TickEvent =>
  event(
    'info',
    'ATTEMPT_KEPT',
    `decoupled re-image complete; ${ANNOTATION.refreshAttempt} stays at ${attempt}/${c.maxRefreshAttempts}: the failed attempts before it are not this pass's to clear -- only a successful re-image on a settled ${jobsManager(c)} (or a human) resets them`,
  );

export const attemptKeepFailed = (c: TickConfig, attempt: number, e: PortError): TickEvent =>
  event(
    'error',
    'SUCCESS_RESET_FAILED',
    `ERROR: the decoupled re-image completed but ${ANNOTATION.refreshAttempt} could not be put back to ${attempt} on ${jobsManager(c)} (${describePortError(e)}). It still reads ${attempt + 1}, so the flap lockout comes one failure sooner. The pass still goes on to record what it may.`,
    [
      `kubectl annotate deployment -n ${c.releaseNamespace} ${c.deploymentName} ${ANNOTATION.refreshAttempt}=${attempt} --overwrite`,
    ],
  );

/** kubectl's spelling: `key=value`, and `key-` for a pending record the write removes (issue 17). */
export const recordingDigests = (changes: BookkeepingChanges): TickEvent =>
  event('info', 'RECORDING_DIGESTS', `updating deployment annotations: ${describeChanges(changes)}`);

export const recordFailed = (c: TickConfig, e: PortError): TickEvent =>
  event(
    'error',
    'RECORD_FAILED',
    `ERROR: could not record the new digests on ${jobsManager(c)} (${describePortError(e)}); the next tick will see the same change again.`,
  );

const ownerText = (owner: string | undefined): string => (owner === undefined ? '' : ` (set by ${owner})`);

export const liveDrift = (c: TickConfig, f: LiveFinding): TickEvent => {
  const where = `${describeWorkload(workloadRef(c, f.workload))} container ${f.container}`;
  const pinned = `${imageSpec(f.image).repo}@${f.recorded}`;
  const repair =
    f.recordedQuarantined === true
      ? `not re-pinning it: the recorded digest is the one quarantined (${imageSpec(f.image).quarantineKey}), a build whose rollout failed here`
      : c.reconcileLive === 'repair'
        ? 're-pinning it through the guarded re-image path (attempt counter, flap ceiling)'
        : 'RECONCILE_LIVE=1 would re-pin it';
  switch (f.kind) {
    case 'reverted':
      return event(
        'warn',
        'LIVE_DRIFT',
        `WARN: ${where} runs ${f.live}${ownerText(f.owner)}, not ${pinned} that image-refresh pinned: a Helm re-render (or a hand edit) undid the pin; ${repair}`,
      );
    case 'otherDigest':
      return event(
        'warn',
        'LIVE_DRIFT',
        f.workload === 'requests-proxy'
          ? `WARN: ${where} runs ${f.live}${ownerText(f.owner)}, another build than jobs-manager's recorded ${pinned} (requests-proxy / jobs-manager skew); ${repair}`
          : `WARN: ${where} runs ${f.live}${ownerText(f.owner)}, not the recorded ${pinned}; ${repair}`,
      );
    case 'foreign':
      return event(
        'warn',
        'LIVE_DRIFT',
        `WARN: ${where} runs ${f.live}${ownerText(f.owner)}, not an image of ${imageSpec(f.image).repo}: changed on purpose, so image-refresh leaves it alone`,
      );
  }
};

export const pinMarkersUnreadable = (c: TickConfig, e: PortError): TickEvent =>
  event(
    'warn',
    'PIN_MARKERS_UNREADABLE',
    `WARN: could not read the pin markers on ${jobsManager(c)} (${describePortError(e)}); live images are not reconciled this tick (the registry pass goes on)`,
  );

export const liveUnreadable = (c: TickConfig, id: WorkloadId, e: PortError): TickEvent =>
  event(
    'warn',
    'LIVE_UNREADABLE',
    `WARN: could not read ${describeWorkload(workloadRef(c, id))} (${describePortError(e)}); it is not reconciled this tick`,
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

export const tickComplete = (): TickEvent => event('info', 'TICK_COMPLETE', 'tick complete');
