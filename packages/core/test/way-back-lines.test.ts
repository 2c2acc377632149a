import { describe, expect, it } from 'vitest';
import type { WorkloadChange } from '../src/domain/plan.js';
import type { RevertPlan } from '../src/domain/revert.js';
import { watchingStability } from '../src/machine/act/messages.js';
import { digestQuarantined } from '../src/machine/admit/messages.js';
import {
  quarantineStarted,
  quarantineWriteFailed,
  revertReady,
  rollbackFailed,
  rollbackImpossible,
  rolledBack,
  rollingBack,
} from '../src/machine/way-back/messages.js';
import { simConfig } from '../src/sim/index.js';
import { workloadRef } from './support/chart.js';
import { repeatedDigest } from './support/repeated-digest.js';

// The way back's operator lines (ON_ROLLOUT_FAILURE=revert, ROLLOUT_STABLE_FOR,
// docs/behaviour.md §3.6, I29/I30), each asserted whole: its level, its code
// and the exact text an operator greps for (`ROLLED BACK … from … to …`,
// `ROLLBACK FAILED`, `MANUAL ATTENTION NEEDED`).

const d = repeatedDigest;
const GOOD = d('a');
const BAD = d('b');
const RM_GOOD = d('c');
const RM_BAD = d('e');
const PM_GOOD = d('f');
const config = simConfig({ ROLLOUT_STABLE_FOR: '5m' });

const jmBack: WorkloadChange = {
  workload: workloadRef(config, 'jobs-manager'),
  images: [
    { container: 'api', image: `docker.io/tracebloc/jobs-manager@${GOOD}` },
    { container: 'pods-monitor-container', image: `docker.io/tracebloc/pods-monitor@${PM_GOOD}` },
  ],
};
const rmBack: WorkloadChange = {
  workload: workloadRef(config, 'resource-monitor'),
  images: [{ container: 'resource-monitor', image: `docker.io/tracebloc/resource-monitor@${RM_GOOD}` }],
};
const rpBack: WorkloadChange = {
  workload: workloadRef(config, 'requests-proxy'),
  images: [{ container: 'requests-proxy', image: `docker.io/tracebloc/jobs-manager@${GOOD}` }],
};

const MANUAL_JM = [
  'MANUAL ATTENTION NEEDED: the workload is left as it is now. Inspect it and set it back by hand, e.g.',
  '  kubectl -n tracebloc rollout undo deployment/stg-jobs-manager',
];

describe('the way back says each step in one exact line', () => {
  it('STABILITY_WATCH names the workload and the window, at info', () => {
    expect(watchingStability(config, jmBack)).toEqual({
      level: 'info',
      code: 'STABILITY_WATCH',
      message:
        'deployment/stg-jobs-manager rollout complete; it must stay complete for ROLLOUT_STABLE_FOR=5m before the re-image counts',
    });
  });

  it('REVERT_READY lists each workload with its patch; a DaemonSet says its namespace, a Deployment does not', () => {
    const plan: RevertPlan = { changes: [jmBack, rmBack], containers: [], bad: {} };
    expect(revertReady(plan)).toEqual({
      level: 'info',
      code: 'REVERT_READY',
      message: `ON_ROLLOUT_FAILURE=revert: should a rollout of this tick fail, each workload it moved goes back to its recorded digest: deployment/stg-jobs-manager api=docker.io/tracebloc/jobs-manager@${GOOD} pods-monitor-container=docker.io/tracebloc/pods-monitor@${PM_GOOD}; daemonset/stg-resource-monitor in tracebloc-node-agents resource-monitor=docker.io/tracebloc/resource-monitor@${RM_GOOD}`,
    });
  });

  it('ROLLING_BACK names where and the containers set back, space separated', () => {
    expect(rollingBack(jmBack)).toEqual({
      level: 'info',
      code: 'ROLLING_BACK',
      message: `rolling back deployment/stg-jobs-manager: api=docker.io/tracebloc/jobs-manager@${GOOD} pods-monitor-container=docker.io/tracebloc/pods-monitor@${PM_GOOD}`,
    });
    expect(rollingBack(rmBack).message).toBe(
      `rolling back daemonset/stg-resource-monitor in tracebloc-node-agents: resource-monitor=docker.io/tracebloc/resource-monitor@${RM_GOOD}`,
    );
  });

  it('ROLLED BACK: one error line per workload that moved, naming only its own containers, each digest once', () => {
    const plan: RevertPlan = {
      changes: [jmBack, rpBack, rmBack],
      containers: [
        { workload: 'jobs-manager', container: 'api', image: 'jobs-manager', from: BAD, to: GOOD },
        {
          workload: 'jobs-manager',
          container: 'pods-monitor-container',
          image: 'pods-monitor',
          from: RM_BAD,
          to: PM_GOOD,
        },
        // requests-proxy was patched but is already on the recorded digest: nothing moved, no line.
        { workload: 'requests-proxy', container: 'requests-proxy', image: 'jobs-manager', from: GOOD, to: GOOD },
        {
          workload: 'resource-monitor',
          container: 'resource-monitor',
          image: 'resource-monitor',
          from: RM_BAD,
          to: RM_GOOD,
        },
      ],
      bad: { 'jobs-manager': BAD },
    };
    expect(rolledBack(plan, 'its rollout failed (RolloutFailed: ProgressDeadlineExceeded)')).toEqual([
      {
        level: 'error',
        code: 'ROLLED_BACK',
        message: `ROLLED BACK deployment/stg-jobs-manager from ${BAD} ${RM_BAD} to ${GOOD} ${PM_GOOD}: its rollout failed (RolloutFailed: ProgressDeadlineExceeded)`,
      },
      {
        level: 'error',
        code: 'ROLLED_BACK',
        message: `ROLLED BACK daemonset/stg-resource-monitor from ${RM_BAD} to ${RM_GOOD}: its rollout failed (RolloutFailed: ProgressDeadlineExceeded)`,
      },
    ]);
  });

  it('ROLLBACK FAILED with no recorded digest says why no rollback is made, and what to do by hand', () => {
    const absent = rollbackImpossible(
      config,
      { workload: 'jobs-manager', container: 'api', image: 'jobs-manager', recorded: undefined },
      'its rollout failed (RolloutFailed: x)',
    );
    expect(absent).toEqual({
      level: 'error',
      code: 'ROLLBACK_FAILED',
      message:
        'ERROR: ROLLBACK FAILED: a rollout of this tick failed (its rollout failed (RolloutFailed: x)) but deployment/stg-jobs-manager container api has no recorded digest of tracebloc/jobs-manager to go back to (tracebloc.io/last-refreshed-jobs-manager-digest is absent); a rollback would have to guess, so none is made. Nothing else is touched; the attempt counter stays incremented and the new digests are not recorded.',
      hints: MANUAL_JM,
    });
    const garbled = rollbackImpossible(
      config,
      { workload: 'resource-monitor', container: 'resource-monitor', image: 'resource-monitor', recorded: 'latest' },
      'why',
    );
    expect(garbled.message).toBe(
      'ERROR: ROLLBACK FAILED: a rollout of this tick failed (why) but daemonset/stg-resource-monitor container resource-monitor has no recorded digest of tracebloc/resource-monitor to go back to (tracebloc.io/last-refreshed-resource-monitor-digest holds "latest"); a rollback would have to guess, so none is made. Nothing else is touched; the attempt counter stays incremented and the new digests are not recorded.',
    );
    expect(garbled.hints).toEqual([
      MANUAL_JM[0],
      '  kubectl -n tracebloc-node-agents rollout undo daemonset/stg-resource-monitor',
    ]);
  });

  it('ROLLBACK FAILED onto a quarantined record names the quarantine, at error', () => {
    expect(
      rollbackImpossible(
        config,
        { workload: 'jobs-manager', container: 'api', image: 'jobs-manager', recorded: BAD, quarantined: true },
        'why',
      ),
    ).toEqual({
      level: 'error',
      code: 'ROLLBACK_FAILED',
      message: `ERROR: ROLLBACK FAILED: a rollout of this tick failed (why) but deployment/stg-jobs-manager container api would go back to tracebloc/jobs-manager@${BAD}, the digest quarantined in tracebloc.io/quarantined-jobs-manager-digest (tracebloc.io/last-refreshed-jobs-manager-digest names it); going back would re-apply a build that failed here, so no rollback is made. Nothing else is touched; the attempt counter stays incremented and the new digests are not recorded.`,
      hints: MANUAL_JM,
    });
  });

  it('ROLLBACK FAILED when the way back itself fails names the patch, the cause and the manual command', () => {
    expect(
      rollbackFailed(rmBack, { _tag: 'RolloutTimedOut', message: 'waited 10m' }, 'it did not stay complete'),
    ).toEqual({
      level: 'error',
      code: 'ROLLBACK_FAILED',
      message: `ERROR: ROLLBACK FAILED: rolling daemonset/stg-resource-monitor in tracebloc-node-agents back to resource-monitor=docker.io/tracebloc/resource-monitor@${RM_GOOD} after it did not stay complete failed in its turn (RolloutTimedOut: waited 10m). Nothing else is touched: no quarantine is written, the attempt counter stays incremented (the flap lockout applies as ever) and the new digests are not recorded.`,
      hints: [MANUAL_JM[0], '  kubectl -n tracebloc-node-agents rollout undo daemonset/stg-resource-monitor'],
    });
  });

  it('QUARANTINE_STARTED lists every bad digest by repo, comma separated, at info', () => {
    expect(quarantineStarted(simConfig(), { 'jobs-manager': BAD, 'resource-monitor': RM_BAD })).toEqual({
      level: 'info',
      code: 'QUARANTINE_STARTED',
      message: `quarantined tracebloc/jobs-manager@${BAD}, tracebloc/resource-monitor@${RM_BAD}: not re-applied while the registry answers it; a new build under the tag is ordinary drift (image-refresh rearm lifts it)`,
    });
  });

  it('QUARANTINE_WRITE_FAILED says the rollback completed, names the Deployment and the cause, at error', () => {
    expect(quarantineWriteFailed(config, { _tag: 'Forbidden', status: 403, message: 'patch denied' })).toEqual({
      level: 'error',
      code: 'QUARANTINE_WRITE_FAILED',
      message:
        'ERROR: the rollback completed but the failed digest could not be quarantined on deployment/stg-jobs-manager (Forbidden (HTTP 403): patch denied); the next tick will try that build again, and the attempt counter counts it towards the flap lockout.',
    });
  });

  it('DIGEST_QUARANTINED, said each tick the registry still answers the bad digest, is info (exit 0)', () => {
    expect(digestQuarantined(config, 'jobs-manager', BAD)).toEqual({
      level: 'info',
      code: 'DIGEST_QUARANTINED',
      message: `tracebloc/jobs-manager: latest=${BAD} is quarantined (tracebloc.io/quarantined-jobs-manager-digest: its rollout failed here and was rolled back); not re-applying it -- waiting for another build under tag stg (image-refresh rearm lifts it)`,
    });
  });
});
