import * as TE from 'fp-ts/lib/TaskEither.js';
import { formatDuration } from './config/duration.js';
import type { TickConfig } from './config/tick-config.js';
import { describeChanges } from './domain/bookkeeping.js';
import { type ContainerImage, describeWorkload, type WorkloadRef } from './domain/workloads.js';
import type { ClusterPort } from './ports/cluster-port.js';
import type { StagingPort } from './ports/staging-port.js';
import type { TickPorts } from './run-tick.js';

// `--dry-run`: the real reads, the real decisions, and every write said as a
// sentence saying what it would have been. Client-side (`--dry-run=client`),
// each pretend write succeeds, so the machine walks the path the real tick
// would take when nothing fails. Server-side (`--dry-run`, the default, as
// `kubectl --dry-run=server`), each write goes to a port that sends it with
// dryRun=All: the API server checks RBAC, admission and the object as it
// would the real write and persists nothing, so a write the real tick would
// have refused is refused here, with the exit code the real tick would have.
// Waits, Events, staging and START_JITTER are said in both: nothing rolls. A
// bookkeeping write is printed from the very changes the machine decided, so
// the line names every key the real write would (the pin markers included).

/** `then` on the write's success, the answer passed on untouched; a refusal passes on as the real tick meets it. */
const once = <E, A>(write: TE.TaskEither<E, A>, then: (answer: A) => void): TE.TaskEither<E, A> =>
  TE.map((answer: A) => {
    then(answer);
    return answer;
  })(write);

/** At most `length` characters, an ellipsis saying where it was cut. */
const clipped = (text: string, length: number): string =>
  text.length <= length ? text : `${text.slice(0, length - 1)}…`;

/** Where a dry run's writes go: nowhere (`client`), or to the API server as dryRun=All (`server`). */
export type DryRunMode = 'client' | 'server';

/**
 * The same ports for `--dry-run`: reads still go to `ports` (so the tick
 * decides on the real world); each write, set-image, rollout wait and Event
 * is handed to `wouldDo` as a kubectl-like line (`annotate deployment/x -n ns
 * key=value`). With `client`, every write succeeds without a request and the
 * tick walks the path it would take if nothing failed. With `server`, `ports`
 * must be built to send writes as dryRun=All (the k8s-adapter's `dryRun`
 * option): each write is sent, said only once the API server accepted it, and
 * a refusal ends the tick as it would end the real one. Nothing rolls and no
 * Event is recorded in either.
 */
export const dryRunPorts = (
  ports: TickPorts,
  config: TickConfig,
  wouldDo: (action: string) => void,
  mode: DryRunMode = 'client',
): TickPorts => {
  const pretend = (action: string) => {
    wouldDo(action);
    return TE.right<never, void>(undefined);
  };
  const annotation = (changes: Parameters<ClusterPort['patchBookkeeping']>[0]) =>
    `annotate ${describeWorkload(config.topology.gate)} -n ${config.topology.gate.namespace} ${describeChanges(changes)}`;
  const setImage = (workload: WorkloadRef, images: readonly ContainerImage[]) =>
    `set image ${describeWorkload(workload)} -n ${workload.namespace} ${images.map((i) => `${i.container}=${i.image}`).join(' ')}`;
  const cluster: ClusterPort = {
    ...ports.cluster,
    patchBookkeeping: (changes) =>
      mode === 'server'
        ? once(ports.cluster.patchBookkeeping(changes), () =>
            wouldDo(`${annotation(changes)} (the API server accepted it as a dry run)`),
          )
        : pretend(annotation(changes)),
    setImages: (workload, images) => {
      if (mode === 'server') {
        return once(ports.cluster.setImages(workload, images), ({ changed }) => {
          if (changed) wouldDo(`${setImage(workload, images)} (the API server accepted it as a dry run)`);
        });
      }
      wouldDo(setImage(workload, images));
      // Said as the patch it would send: a client-side dry run does not read the workload to see
      // whether the real tick would find it already on target (docs/behaviour.md §3.6) and send nothing.
      return TE.right({ changed: true });
    },
    waitForRollout: (workload, timeoutMs) =>
      pretend(`wait for the rollout of ${describeWorkload(workload)} (up to ${formatDuration(timeoutMs)})`),
    // A dry run rolls nothing, so it cannot know whether a rollout would
    // fail (or fall apart inside ROLLOUT_STABLE_FOR): every pretend wait
    // succeeds. Under ON_ROLLOUT_FAILURE=revert the tick's REVERT_READY line
    // says where a failure would take each workload back to (docs/behaviour.md §3.6).
    watchStability: (workload, stableForMs) =>
      pretend(`watch ${describeWorkload(workload)} stay complete for ${formatDuration(stableForMs)}`),
  };
  // A signature check only reads: a dry run checks as the tick would; so do the
  // platform check and reading a fleet halt's or promotion's document (docs/behaviour.md §3.4b).
  // Staging starts pods: a dry run says where and pretends every node staged them (§3.5a).
  const signatures = {
    ...(ports.signatures === undefined ? {} : { signatures: ports.signatures }),
    ...(ports.fleetHalt === undefined ? {} : { fleetHalt: ports.fleetHalt }),
    ...(ports.fleetPromotion === undefined ? {} : { fleetPromotion: ports.fleetPromotion }),
    ...(ports.platforms === undefined ? {} : { platforms: ports.platforms }),
    ...(ports.staging === undefined ? {} : { staging: dryStaging(wouldDo) }),
  };
  const dry: TickPorts =
    ports.events === undefined
      ? { cluster, registry: ports.registry, ...signatures }
      : {
          cluster,
          registry: ports.registry,
          events: { record: (e) => pretend(`record the ${e.type} Event ${e.reason}: ${clipped(e.message, 120)}`) },
          ...signatures,
        };
  // The clock is read as it is (a digest's age is decided as the
  // real tick would); START_JITTER's wait is said, not waited.
  return ports.clock === undefined
    ? dry
    : { ...dry, clock: { now: ports.clock.now, sleep: (ms) => pretend(`wait ${formatDuration(ms)} (START_JITTER)`) } };
};

/** PREPULL=on under `--dry-run`: each workload said, none staged for real, every one taken as staged. */
const dryStaging = (wouldDo: (action: string) => void): StagingPort => ({
  stage: (request) => {
    for (const target of request.targets) {
      wouldDo(
        `stage ${target.images.join(', ')} on the nodes of ${describeWorkload(target.workload)} -n ${target.workload.namespace} (up to ${formatDuration(request.timeoutMs)})`,
      );
    }
    return TE.right(request.targets.map(() => ({ _tag: 'Staged' as const, nodes: [] })));
  },
});
