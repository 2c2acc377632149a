import { formatDuration } from '../../config/duration.js';
import type { TickConfig } from '../../config/tick-config.js';
import type { DigestsByImage } from '../../domain/bookkeeping.js';
import type { WorkloadChange } from '../../domain/plan.js';
import { describePortError, type PortError } from '../../domain/port-error.js';
import type { ReimageFailure } from '../../domain/reimage-run.js';
import type { NoRevertTarget, RevertPlan } from '../../domain/revert.js';
import { describeWorkload, imageOf, type WorkloadRef, workloadOf } from '../../domain/workloads.js';
import type { RolloutError } from '../../ports/cluster-port.js';
import { event, gate, NOTHING_RECORDED, patchText, where } from '../operator-words.js';
import type { TickEvent } from '../tick-event.js';

// The way back's operator lines (ON_ROLLOUT_FAILURE; docs/behaviour.md §3.6).
// `ROLLED BACK <workload> from <bad> to <good>: <why>` and `ROLLBACK FAILED` are the phrases
// operators grep for: keep them verbatim.

/** Under revert, every re-image tick says where it would go back to — what `--dry-run` shows of the revert. */
export const revertReady = (plan: RevertPlan): TickEvent =>
  event(
    'info',
    'REVERT_READY',
    `ON_ROLLOUT_FAILURE=revert: should a rollout of this tick fail, each workload it moved goes back to its recorded digest: ${plan.changes.map((change) => `${where(change.workload)} ${patchText(change)}`).join('; ')}`,
  );

const noTargetText = (c: TickConfig, t: NoRevertTarget): string => {
  const container = `${describeWorkload(workloadOf(c.topology, t.workload))} container ${t.container}`;
  if (t.image === undefined)
    return `${container} is not one image-refresh manages; a rollback would have to guess, so none is made`;
  const image = imageOf(c.topology, t.image);
  return t.quarantined === true
    ? `${container} would go back to ${image.repo}@${t.recorded}, the digest quarantined in ${image.quarantineKey} (${image.recordKey} names it); going back would re-apply a build that failed here, so no rollback is made`
    : t.halted === true
      ? `${container} would go back to ${image.repo}@${t.recorded}, a digest the fleet halt in force names (${image.recordKey} names it); no set image may move a container to it, so no rollback is made`
      : `${container} has no recorded digest of ${image.repo} to go back to (${image.recordKey} ${t.recorded === undefined ? 'is absent' : `holds ${JSON.stringify(t.recorded)}`}); a rollback would have to guess, so none is made`;
};

export const rollingBack = (change: WorkloadChange): TickEvent =>
  event('info', 'ROLLING_BACK', `rolling back ${where(change.workload)}: ${patchText(change)}`);

/** One line per workload set back: the contract's `ROLLED BACK <workload> from <bad> to <good>: <why>`. */
export const rolledBack = (plan: RevertPlan, why: string): TickEvent[] =>
  plan.changes.flatMap((change) => {
    const moved = plan.containers.filter((x) => x.workload === change.workload.id && x.from !== x.to);
    if (moved.length === 0) return [];
    const from = [...new Set(moved.map((x) => x.from))].join(' ');
    const to = [...new Set(moved.map((x) => x.to))].join(' ');
    return [
      event('error', 'ROLLED_BACK', `ROLLED BACK ${describeWorkload(change.workload)} from ${from} to ${to}: ${why}`),
    ];
  });

const manual = (ref: WorkloadRef): string[] => [
  'MANUAL ATTENTION NEEDED: the workload is left as it is now. Inspect it and set it back by hand, e.g.',
  `  kubectl -n ${ref.namespace} rollout undo ${describeWorkload(ref)}`,
];

export const rollbackImpossible = (c: TickConfig, target: NoRevertTarget, why: string): TickEvent =>
  event(
    'error',
    'ROLLBACK_FAILED',
    `ERROR: ROLLBACK FAILED: a rollout of this tick failed (${why}) but ${noTargetText(c, target)}. Nothing else is touched; ${NOTHING_RECORDED}.`,
    manual(workloadOf(c.topology, target.workload)),
  );

export const rollbackFailed = (change: WorkloadChange, e: RolloutError, why: string): TickEvent =>
  event(
    'error',
    'ROLLBACK_FAILED',
    `ERROR: ROLLBACK FAILED: rolling ${where(change.workload)} back to ${patchText(change)} after ${why} failed in its turn (${describePortError(e)}). Nothing else is touched: no quarantine is written, the attempt counter stays incremented (the flap lockout applies as ever) and the new digests are not recorded.`,
    manual(change.workload),
  );

/** Normal Event RefreshQuarantined: said once, on the tick the quarantine starts. */
export const quarantineStarted = (c: TickConfig, bad: DigestsByImage): TickEvent =>
  event(
    'info',
    'QUARANTINE_STARTED',
    `quarantined ${Object.entries(bad)
      .map(([image, digest]) => `${imageOf(c.topology, image).repo}@${digest}`)
      .join(
        ', ',
      )}: not re-applied while the registry answers it; a new build under the tag is ordinary drift (image-refresh rearm lifts it)`,
  );

export const quarantineWriteFailed = (c: TickConfig, e: PortError): TickEvent =>
  event(
    'error',
    'QUARANTINE_WRITE_FAILED',
    `ERROR: the rollback completed but the failed digest could not be quarantined on ${gate(c)} (${describePortError(e)}); the next tick will try that build again, and the attempt counter counts it towards the flap lockout.`,
  );

/** Why the rollout failed, in the words the ROLLED BACK line ends with. */
const rolloutWhy = (c: TickConfig, e: RolloutError, inWindow: boolean): string =>
  inWindow
    ? `it did not stay complete for ROLLOUT_STABLE_FOR=${formatDuration(c.rolloutStableForMs)} (${describePortError(e)})`
    : e._tag === 'RolloutTimedOut'
      ? `its rollout did not complete within ROLLOUT_TIMEOUT=${formatDuration(c.rolloutTimeoutMs)} (${describePortError(e)})`
      : `its rollout failed (${describePortError(e)})`;

/** A refused patch, in the words the ROLLED BACK line ends with: the workloads moved before it go back. */
const patchRefusedWhy = (change: WorkloadChange, e: PortError): string =>
  `set image on ${describeWorkload(change.workload)} was refused (${describePortError(e)}), so the tick's other moves are undone`;

/** Why this tick's re-image failed, in the words the ROLLED BACK and ROLLBACK FAILED lines end with. */
export const failureWhy = (c: TickConfig, failure: ReimageFailure): string => {
  switch (failure._tag) {
    case 'PatchRefused':
      return patchRefusedWhy(failure.change, failure.error);
    case 'RolloutFailed':
      return rolloutWhy(c, failure.error, failure.inWindow);
    case 'None':
      return 'no failure is known';
  }
};
