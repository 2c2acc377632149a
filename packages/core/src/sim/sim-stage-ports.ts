import * as E from 'fp-ts/lib/Either.js';
import { formatDuration } from '../config/duration.js';
import { type PlatformAnswer, platformName } from '../domain/platforms.js';
import { notFound, type PortError, type RegistryError, timeout } from '../domain/port-error.js';
import type { StagingFailure, StagingRequest, StagingResult, StagingTarget } from '../domain/staging.js';
import { describeWorkload, type WorkloadRef } from '../domain/workloads.js';
import type { PlatformPort } from '../ports/platform-port.js';
import type { StagingPort } from '../ports/staging-port.js';
import { SIM_REGISTRY_MS, SIM_REQUEST_MS } from './sim-ports.js';
import type { SimWorld } from './sim-world.js';

// The simulated platform and staging ports (docs/behaviour.md §3.4a step 4,
// §3.5a). Staging does what the adapter's pods do, on the world's nodes: a
// pod per node pulls the images (PREPULL_PARALLEL nodes at once), a node is
// staged once its pull is done, and every staging pod — one of this call's,
// or one an earlier, killed tick left — is deleted before the answer. Each
// node's outcome is logged (`stageImage`), so the property suite can tell
// which set image was staged on every node (I40).

const errorOf = (tag: RegistryError['_tag'], what: string): RegistryError =>
  tag === 'RateLimited'
    ? { _tag: 'RateLimited', message: 'toomanyrequests: You have reached your pull rate limit' }
    : { _tag: tag, message: `simulated ${tag} on ${what}` };

/** PLATFORM_CHECK: what the registry's manifest of a digest says it provides, or a registry failure. */
export const simPlatformPort = (world: SimWorld): PlatformPort => ({
  read: ({ repo, digest }) => {
    const fault = world.takePlatformFault(repo);
    world.clockMs += fault === 'Hang' ? world.config.registryTimeoutMs : SIM_REGISTRY_MS;
    const platforms = world.platformsOf(digest);
    const answer: E.Either<RegistryError, PlatformAnswer> =
      fault === 'Hang'
        ? E.left(
            timeout(
              `simulated manifest read hang for ${repo}; the ${world.config.registryTimeoutMs} ms bound ended it`,
            ),
          )
        : fault !== undefined
          ? E.left(errorOf(fault, `the manifest of ${repo}@${digest}`))
          : typeof platforms === 'string'
            ? E.right({ _tag: 'Unreadable', why: platforms })
            : E.right({ _tag: 'Platforms', platforms });
    // The platforms it answered travel in the log (what the property suite judges a refusal by, I42).
    const said =
      E.isRight(answer) && answer.right._tag === 'Platforms'
        ? ` ${answer.right.platforms.map(platformName).join(',')}`
        : '';
    world.log({
      op: 'readPlatforms',
      detail: `${repo}@${digest}${said}`,
      outcome: E.isLeft(answer) ? answer.left._tag : answer.right._tag,
    });
    return () => Promise.resolve(answer);
  },
});

/** A rollout wait that ran out while new pods waited for a pull: the adapter's words, the node and the image named. */
export const stillPulling = (world: SimWorld, workload: WorkloadRef, timeoutMs: number): string => {
  const images = Object.values(world.workload(workload.id).images);
  const node = world.nodes
    .nodesOf(workload.id)
    .find((n) => images.some((r) => !world.nodes.present(n, r, world.clockMs)));
  const image = images.find((r) => node !== undefined && !world.nodes.present(node, r, world.clockMs));
  return `${describeWorkload(workload)} did not finish rolling out within ${formatDuration(timeoutMs)}: new pods on ${node ?? '?'} are waiting for ${image ?? '?'} to be pulled (ContainerCreating)`;
};

/** How long a pull that fails takes to show ImagePullBackOff: the kubelet's first try and its first back-off. */
export const SIM_FAILED_PULL_MS = 10_000;

const podName = (target: StagingTarget, node: string): string => `${target.workload.name}-staging ${node}`;

/** Stage one target's images on each of its nodes, PREPULL_PARALLEL at a time, until `deadline`. */
const stageTarget = (
  world: SimWorld,
  target: StagingTarget,
  deadline: number,
  request: StagingRequest,
): StagingResult => {
  const { nodes } = world;
  const id = target.workload.id;
  const images = target.images.join(' ');
  const timeout = `PREPULL_TIMEOUT=${formatDuration(request.timeoutMs)}`;
  // As the adapter: a workload whose turn comes after the deadline is not even looked at.
  if (world.clockMs >= deadline) {
    for (const node of nodes.nodesOf(id))
      world.log({ op: 'stageImage', detail: `${id} ${node} ${images}`, outcome: 'NotStaged' });
    return { _tag: 'NotStaged', failures: [{ reason: `${timeout} passed before its turn` }], staged: [] };
  }
  // Pods an earlier tick left: one of this very staging is reused (its pull goes on), any other is removed.
  for (const [name, pod] of [...nodes.stagingPods]) {
    if (pod.workload !== id || (pod.images === images && nodes.nodesOf(id).includes(pod.node))) continue;
    nodes.stagingPods.delete(name);
    world.clockMs += SIM_REQUEST_MS;
    world.log({ op: 'deleteStagingPod', detail: `${id} ${pod.node} ${pod.images}`, outcome: 'ok' });
  }
  const staged: string[] = [];
  const failures: StagingFailure[] = [];
  const all = nodes.nodesOf(id);
  for (let from = 0; from < all.length; from += request.parallel) {
    const batch = all.slice(from, from + request.parallel);
    const startedAt = world.clockMs;
    // As the adapter: no pod is started once the deadline has passed.
    if (startedAt >= deadline) {
      for (const node of batch) {
        failures.push({ node, reason: `${timeout} passed before its turn` });
        world.log({ op: 'stageImage', detail: `${id} ${node} ${images}`, outcome: 'NotStaged' });
      }
      continue;
    }
    const ready = batch.map((node) => {
      nodes.stagingPods.set(podName(target, node), { workload: id, node, images });
      world.clockMs += SIM_REQUEST_MS;
      return { node, at: nodes.readyEverywhere([node], target.images, startedAt) };
    });
    // A pull that fails is seen failing (ImagePullBackOff) after the kubelet's first try, not at the deadline.
    const ends = ready.map((r) => (Number.isFinite(r.at) ? r.at : startedAt + SIM_FAILED_PULL_MS));
    world.clockMs = Math.max(world.clockMs, Math.min(deadline, Math.max(...ends)));
    for (const { node, at } of ready) {
      const ok = at <= deadline;
      if (ok) staged.push(node);
      else
        failures.push({
          node,
          reason: Number.isFinite(at)
            ? `still pulling when ${timeout} passed (ContainerCreating)`
            : `ImagePullBackOff: Back-off pulling image "${target.images.join('", "')}"`,
        });
      world.log({ op: 'stageImage', detail: `${id} ${node} ${images}`, outcome: ok ? 'Staged' : 'NotStaged' });
    }
  }
  return failures.length === 0 ? { _tag: 'Staged', nodes: staged } : { _tag: 'NotStaged', failures, staged };
};

/** PREPULL: every target staged on its nodes within PREPULL_TIMEOUT; every staging pod deleted before the answer. */
export const simStagingPort = (world: SimWorld): StagingPort => ({
  stage: (request) => () => {
    const fault = world.takeClusterFault('stageImages');
    const deadline = world.clockMs + request.timeoutMs;
    let answer: E.Either<PortError, readonly StagingResult[]>;
    if (fault === 'Hang') {
      world.clockMs = deadline;
      answer = E.left(timeout(`simulated staging hung; PREPULL_TIMEOUT=${formatDuration(request.timeoutMs)} ended it`));
    } else if (fault !== undefined) {
      world.clockMs += SIM_REQUEST_MS;
      answer = E.left({ _tag: fault, message: `simulated ${fault} on the staging pods` });
    } else {
      answer = E.right(
        request.targets.map((target) =>
          world.workload(target.workload.id).exists
            ? stageTarget(world, target, deadline, request)
            : {
                _tag: 'NotStaged',
                failures: [{ reason: notFound(`${describeWorkload(target.workload)} not found`).message }],
                staged: [],
              },
        ),
      );
    }
    // Whatever happened, no staging pod outlives the call (docs/behaviour.md §3.5a).
    for (const [name, pod] of [...world.nodes.stagingPods]) {
      world.nodes.stagingPods.delete(name);
      world.clockMs += SIM_REQUEST_MS;
      world.log({ op: 'deleteStagingPod', detail: `${pod.workload} ${pod.node} ${pod.images}`, outcome: 'ok' });
    }
    // The call as a whole, last: what it was asked, and whether it answered (its bound is the whole wait's).
    world.log({
      op: 'stageImages',
      detail: request.targets.map((t) => t.workload.id).join(' '),
      outcome: E.isRight(answer) ? 'ok' : answer.left._tag,
    });
    return Promise.resolve(answer);
  },
});
