import { formatDuration } from '../config/duration.js';
import type { Topology } from '../config/profile/topology.js';
import type { PrepullConfig } from '../config/staging-config.js';
import { type Holds, withHold } from './admission.js';
import type { Digest } from './digest.js';
import type { RefreshPlan } from './plan.js';
import { planTick, type TickPlanInputs } from './tick-plan.js';
import { describeWorkload, type WorkloadRef } from './workloads.js';

// docs/behaviour.md §3.5a (PREPULL): on a slow or lossy link a re-image
// switched first waits out ROLLOUT_TIMEOUT while the nodes pull, the old pods
// already gone, and the flap guard counts bandwidth as a failed build. So the
// new images are pulled onto the nodes that run each workload first, and only
// a workload staged on every one of its nodes is switched (I40). Staging comes
// after the flap back-off's lockout and budget checks and before the attempt
// is persisted: a staging failure holds its images back like an admission
// check would, and spends no attempt (I41).

/** One workload to stage: where it runs, and the image references its set image will carry. */
export interface StagingTarget {
  readonly workload: WorkloadRef;
  /** `docker.io/<repo>@<digest>`, each once, in the order of the set image's containers. */
  readonly images: readonly string[];
}

/** What the staging port is asked to do in one call (one per tick). */
export interface StagingRequest {
  readonly targets: readonly StagingTarget[];
  /** PREPULL_TIMEOUT: the whole call's wait, every target's nodes included. */
  readonly timeoutMs: number;
  /** PREPULL_PARALLEL: nodes pulling at once. */
  readonly parallel: number;
}

/** One node that did not report the images staged, and why (the pod's own words: `ImagePullBackOff: …`). */
export interface StagingFailure {
  /** Absent: the failure came before any node was known (the workload could not be read, the call failed). */
  readonly node?: string;
  readonly reason: string;
}

/**
 * What staging did for one target: `Staged` on every node named (those that
 * run the workload's pods now; a DaemonSet's, every node it schedules on), or
 * `NotStaged` with the nodes that did not make it and why.
 */
export type StagingResult =
  | { readonly _tag: 'Staged'; readonly nodes: readonly string[] }
  | {
      readonly _tag: 'NotStaged';
      readonly failures: readonly StagingFailure[];
      /** The nodes that did report the images staged. */
      readonly staged: readonly string[];
    };

/** One target with its result, as the lines and the holds read them. */
export type StagingReport = StagingTarget & { readonly result: StagingResult };

/** The plan's workload changes as staging targets, in the re-image order (docs/behaviour.md §3.6). */
export const stagingTargetsOf = (plan: RefreshPlan): readonly StagingTarget[] =>
  plan.changes.map((change) => ({
    workload: change.workload,
    images: [...new Set(change.images.map((i) => i.image))],
  }));

/** The one staging call of a tick: the plan's targets under PREPULL_TIMEOUT and PREPULL_PARALLEL. */
export const stagingRequestOf = (plan: RefreshPlan, prepull: PrepullConfig): StagingRequest => ({
  targets: stagingTargetsOf(plan),
  timeoutMs: prepull.timeoutMs,
  parallel: prepull.parallel,
});

/** Each target with the port's answer for it; a missing answer is not staged (fail closed). */
export const stagingReportsOf = (
  targets: readonly StagingTarget[],
  answerOf: (index: number) => StagingResult | undefined,
): readonly StagingReport[] =>
  targets.map((target, index) => ({
    ...target,
    result: answerOf(index) ?? {
      _tag: 'NotStaged',
      failures: [{ reason: 'the staging port gave no answer for this workload' }],
      staged: [],
    },
  }));

/** Every target not staged, with `reason`: the call as a whole failed (fail closed: nothing is switched). */
export const allNotStaged = (targets: readonly StagingTarget[], reason: string): readonly StagingReport[] =>
  targets.map((target) => ({
    ...target,
    result: { _tag: 'NotStaged', failures: [{ reason }], staged: [] },
  }));

const isNotStaged = (report: StagingReport): boolean => report.result._tag === 'NotStaged';

/**
 * `on node edge-1 (ImagePullBackOff: …)`, `on nodes edge-1 (…), edge-3 (…)`:
 * every node that did not make it; `(…)` alone when the failure named none.
 */
export const describeFailures = (result: Extract<StagingResult, { _tag: 'NotStaged' }>): string => {
  const named = result.failures.filter((f) => f.node !== undefined);
  const unnamed = result.failures.filter((f) => f.node === undefined).map((f) => `(${f.reason})`);
  const nodes = named.map((f) => `${f.node} (${f.reason})`).join(', ');
  return [...(named.length === 0 ? [] : [`on node${named.length > 1 ? 's' : ''} ${nodes}`]), ...unnamed].join(' ');
};

/**
 * The drifted images a target that was not staged carries: held, so that no
 * workload is switched to them this tick and they are not recorded (I7, I16:
 * every container of an image follows one digest together).
 */
const unstagedDrift = (
  topology: Topology,
  plan: RefreshPlan,
  reports: readonly StagingReport[],
): readonly [string, Digest, string][] =>
  topology.images.flatMap(({ name, repo }): [string, Digest, string][] => {
    const digest = plan.drift[name];
    if (digest === undefined) return [];
    const failed = reports.find((r) => isNotStaged(r) && r.images.some((image) => image.endsWith(`${repo}@${digest}`)));
    if (failed === undefined || failed.result._tag !== 'NotStaged') return [];
    return [[name, digest, `not staged for ${describeWorkload(failed.workload)} ${describeFailures(failed.result)}`]];
  });

/** The holds staging adds: each drifted image a workload that was not staged carries. */
export const withStagingHolds = (
  topology: Topology,
  holds: Holds,
  plan: RefreshPlan,
  reports: readonly StagingReport[],
): Holds =>
  unstagedDrift(topology, plan, reports).reduce(
    (acc, [image, digest, why]) => withHold(acc, { _tag: 'NotStaged', image, digest, why }),
    holds,
  );

/** The images whose containers a workload's change moves: what a pin marker of theirs speaks of. */
const imagesMovedIn = (plan: RefreshPlan, workload: string, inputs: TickPlanInputs): ReadonlySet<string> => {
  const moved = new Set(
    plan.changes.filter((c) => c.workload.id === workload).flatMap((c) => c.images.map((i) => i.container)),
  );
  return new Set(
    inputs.config.topology.managed.filter((m) => m.workload === workload && moved.has(m.container)).map((m) => m.image),
  );
};

/**
 * The plan once staging has answered (docs/behaviour.md §3.5a): made again
 * with the unstaged drift held, and without any change left of a workload
 * that was not staged (a RECONCILE_LIVE re-pin it carried), nor the pin
 * markers of what that change would have moved. A workload staged on every
 * node keeps its change; nothing else is added.
 */
export const replanAfterStaging = (
  inputs: TickPlanInputs,
  plan: RefreshPlan,
  reports: readonly StagingReport[],
): { readonly holds: Holds; readonly plan: RefreshPlan } => {
  const holds = withStagingHolds(inputs.config.topology, inputs.holds, plan, reports);
  const failed = new Set(reports.filter(isNotStaged).map((r) => r.workload.id));
  // Made again whatever staging said: with nothing held and nothing failed it is the same plan.
  const again = planTick({ ...inputs, holds });
  const unpinned = new Set([...failed].flatMap((id) => [...imagesMovedIn(again, id, inputs)]));
  return {
    holds,
    plan: {
      ...again,
      changes: again.changes.filter((c) => !failed.has(c.workload.id)),
      pins: Object.fromEntries(Object.entries(again.pins).filter(([image]) => !unpinned.has(image))),
    },
  };
};

/** The RefreshStaging Event's note, said as staging starts (docs/behaviour.md §3.5a). */
export const stagingAnnouncement = (request: StagingRequest): string =>
  `staging ${[...new Set(request.targets.flatMap((t) => t.images))].join(', ')} on the nodes of ${request.targets
    .map((t) => describeWorkload(t.workload))
    .join(
      ', ',
    )} before switching them (PREPULL_TIMEOUT=${formatDuration(request.timeoutMs)}, PREPULL_PARALLEL=${request.parallel})`;
