import { CHART_MIRROR_HINTS } from '../../config/profile/chart-profile.js';
import type { TickConfig } from '../../config/tick-config.js';
import { describePortError, type PortError } from '../../domain/port-error.js';
import type { Settledness } from '../../domain/settledness.js';
import { describeWorkload, isManagedWorkload, type WorkloadRef } from '../../domain/workloads.js';
import { annotateGate, event, gate, listed } from '../operator-words.js';
import type { TickEvent } from '../tick-event.js';

// The observe phase's operator lines (docs/behaviour.md §3.1, §3.2): the mirror, the settled
// guard, the skip streak (`IMAGE REFRESH IS FROZEN`, `skipping this refresh tick N/MAX`) and the
// decoupled pass. The quoted phrases are the reference script's (the chart's image-refresh.sh)
// and are what operators grep for: keep them verbatim.

export const mirrorInert = (c: TickConfig): TickEvent =>
  event(
    'info',
    'MIRROR_INERT',
    `NOTE: images are served from private mirror '${c.imageRegistry}' (IMAGE_REGISTRY), but digests are resolved from docker.io. Pinning a docker.io digest onto a mirrored reference could pin an image the mirror does not hold, so auto-refresh is INERT on this edge.`,
    CHART_MIRROR_HINTS,
  );

const deploymentUnreadableHints = (c: TickConfig, e: PortError): readonly string[] | undefined => {
  // The API server answers 403 in a namespace the ServiceAccount has no Role in, whether it exists or not.
  if (e._tag === 'Forbidden')
    return [
      `either ${c.topology.gate.namespace} is not the namespace ${gate(c)} runs in (a typo: RELEASE_NAMESPACE, or the profile's namespace), or the ServiceAccount may not get ${c.topology.gate.kind === 'Deployment' ? 'deployments' : 'daemonsets'}.apps there`,
    ];
  // A 401 is about who asks, not what they may do: no Role fixes it.
  if (e._tag === 'Unauthorized')
    return [
      'the API server did not take the credentials this job sent: an expired or revoked ServiceAccount token, or a kubeconfig of another cluster',
    ];
  return undefined;
};

export const deploymentUnreadable = (c: TickConfig, e: PortError): TickEvent =>
  event(
    'error',
    'DEPLOYMENT_UNREADABLE',
    `ERROR: cannot read ${gate(c)} (${describePortError(e)}) -- not a benign skip; failing the tick so it is visible`,
    deploymentUnreadableHints(c, e),
  );

export const skipStreakUncountable = (c: TickConfig, e: PortError): TickEvent =>
  event(
    'error',
    'SKIP_STREAK_UNCOUNTABLE',
    `ERROR: ${gate(c)} is not settled AND the ${c.topology.keys.skipStreak} annotation could not be read (${describePortError(e)}), so the skip streak cannot be counted. Failing the tick rather than skipping silently: an uncounted skip is how this freezes forever.`,
  );

export const skipStreakWriteFailed = (c: TickConfig, streak: number, e: PortError): TickEvent =>
  event(
    'error',
    'SKIP_STREAK_WRITE_FAILED',
    `ERROR: ${gate(c)} is not settled and ${c.topology.keys.skipStreak}=${streak} could not be written (${describePortError(e)}), so the skip streak cannot be counted. Failing the tick rather than skipping silently.`,
  );

/** Workloads reconciled after the settled guard, hence frozen with it (#1964): every other one with something to follow. */
const frozenWithGate = (c: TickConfig): string[] =>
  c.topology.workloads
    .filter((w) => w.id !== c.topology.gate.id && isManagedWorkload(c.topology, w.id))
    .map(describeWorkload);

/** What to check when the gate never settles: the profile's hint, or kubectl's own questions. */
const frozenHint = (c: TickConfig): readonly string[] => {
  const { gate: g, profile } = c.topology;
  if (profile.frozenHint !== undefined) return profile.frozenHint.split('\n');
  return [
    `Find out why ${describeWorkload(g)} does not settle:`,
    `  kubectl -n ${g.namespace} rollout status ${describeWorkload(g)}`,
    `  kubectl -n ${g.namespace} describe ${describeWorkload(g)}`,
    'Refresh resumes by itself once it settles.',
  ];
};

export const frozen = (c: TickConfig, streak: number, settledness: Settledness | undefined): TickEvent => {
  const others = frozenWithGate(c);
  const [first = '', ...rest] = frozenHint(c);
  const alsoFrozen =
    others.length === 0
      ? 'No other workload is reconciled by this tick (the rest are pinned).'
      : `and not only for ${c.topology.gate.id}: ${others.join(' and ')} ${others.length === 1 ? 'is' : 'are'} reconciled after this guard, so ${others.length === 1 ? 'it has' : 'they have'} received NO image updates either.`;
  return event(
    'error',
    'FROZEN',
    `ERROR: ${gate(c)} has been unsettled for ${streak} consecutive ticks (>= MAX_SKIP_TICKS=${c.maxSkipTicks}). IMAGE REFRESH IS FROZEN, ${alsoFrozen} Last status: ${settlednessText(settledness)}`,
    [`MANUAL ATTENTION NEEDED. ${first}`, ...rest],
  );
};

/** What the settled guard saw; `not observed` before its read answered. */
export const settlednessText = (s: Settledness | undefined): string =>
  s === undefined ? 'not observed' : s._tag === 'Settled' ? s.message : s.reason;

export const skipping = (c: TickConfig, streak: number, settledness: Settledness | undefined): TickEvent =>
  event(
    'info',
    'NOT_SETTLED_SKIP',
    `${gate(c)} not settled (rollout in progress or pod not Ready) -- skipping this refresh tick ${streak}/${c.maxSkipTicks}; will retry when settled. Status: ${settlednessText(settledness)}`,
  );

export const settledAgain = (c: TickConfig, streak: string): TickEvent =>
  event(
    'info',
    'SETTLED_AGAIN',
    `${gate(c)} is settled again after ${streak} skipped tick(s) -- clearing ${c.topology.keys.skipStreak}`,
  );

export const skipStreakUnreadableOnSettle = (c: TickConfig, e: PortError): TickEvent =>
  event(
    'warn',
    'SKIP_STREAK_UNREADABLE',
    `WARNING: ${gate(c)} is settled but ${c.topology.keys.skipStreak} could not be read (${describePortError(e)}); cannot tell whether a skip streak needs clearing. Continuing with this tick -- a stale streak only makes the next streak trip its ceiling sooner.`,
  );

export const skipStreakClearFailed = (c: TickConfig, e: PortError): TickEvent =>
  event(
    'warn',
    'SKIP_STREAK_CLEAR_FAILED',
    `WARNING: could not clear ${c.topology.keys.skipStreak} on ${gate(c)}: ${describePortError(e)}. Continuing with this tick anyway -- the annotation is bookkeeping and a stale value only makes the next skip streak trip its ceiling sooner. Clear it by hand if that is unwanted: ${annotateGate(c)} ${c.topology.keys.skipStreak}-`,
  );

/** The images the gate alone runs: a decoupled pass never moves them (re-imaging one would roll the gate). */
const gateOnlyImages = (c: TickConfig): string[] => {
  const { gate: g, workloads } = c.topology;
  const elsewhere = new Set(workloads.filter((w) => w.id !== g.id).flatMap((w) => w.containers.map((m) => m.image)));
  return [...new Set(g.containers.map((m) => m.image))].filter((image) => !elsewhere.has(image));
};

export const decoupledRefresh = (c: TickConfig): TickEvent => {
  const decoupled = c.topology.workloads.filter((w) => w.decoupled).map((w) => w.id);
  const waiting = gateOnlyImages(c);
  const gateId = c.topology.gate.id;
  const one = decoupled.length === 1;
  return event(
    'info',
    'DECOUPLED_REFRESH',
    `DECOUPLED_REFRESH: refreshing ${listed(decoupled)} past the unsettled ${gateId} where ${one ? 'it is settled itself' : 'they are settled themselves'}${waiting.length === 0 ? '' : `; ${listed(waiting)} ${waiting.length === 1 ? 'waits (re-imaging it' : 'wait (re-imaging them'} would roll ${gateId})`}`,
  );
};

export const decoupledNotSettled = (workload: WorkloadRef, s: Settledness): TickEvent =>
  event(
    'info',
    'DECOUPLED_NOT_SETTLED',
    `${describeWorkload(workload)} is not settled either (${settlednessText(s)}); not refreshed this tick`,
  );

export const decoupledUnreadable = (c: TickConfig, workload: WorkloadRef, e: PortError): TickEvent =>
  event(
    'warn',
    'LIVE_UNREADABLE',
    `WARN: could not read ${describeWorkload(workload)} (${describePortError(e)}); not refreshed past the unsettled ${c.topology.gate.id} this tick`,
  );
