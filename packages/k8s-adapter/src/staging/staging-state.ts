// Where a staging pod is (docs/behaviour.md §3.5a), from its status alone: a
// node counts as staged once every container has left the pulling state —
// running, terminated, or waiting for a reason that is not a pull
// (ErrImagePull, ImagePullBackOff, ContainerCreating). A pull that failed —
// ImagePullBackOff: the kubelet tried, failed and now backs off — fails that
// node at once rather than at PREPULL_TIMEOUT: one build that cannot be pulled
// must not spend the whole tick's deadline, every tick, before the other
// workloads' turn (the layers already fetched stay; the next tick tries
// again). ErrImagePull, the failure as it happens, is waited on: the kubelet
// retries it. So is a reason that says the image will never be there (an
// invalid name, a pull refused by policy) failed at once; a pod the kubelet
// refused (phase Failed before any container left the pull) fails with the
// kubelet's words.

export type StagingState =
  | { readonly _tag: 'Pulling'; readonly reason: string }
  | { readonly _tag: 'Staged' }
  | { readonly _tag: 'Failed'; readonly reason: string };

const STILL_PULLING = new Set(['ErrImagePull', 'ContainerCreating', 'PodInitializing']);
const PULL_FAILED = new Set(['ImagePullBackOff', 'InvalidImageName', 'ErrImageNeverPull', 'ImageInspectError']);

const record = (value: unknown): Record<string, unknown> | undefined =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
const text = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined);
const words = (reason: string | undefined, message: string | undefined): string =>
  [reason, message].filter((w) => w !== undefined).join(': ');

/** One container's place: left the pull, still pulling (why), or never to be there (why). */
const containerState = (status: Record<string, unknown> | undefined, pod: string): StagingState => {
  if (status === undefined) return { _tag: 'Pulling', reason: pod };
  const state = record(status.state);
  if (record(state?.running) !== undefined || record(state?.terminated) !== undefined) return { _tag: 'Staged' };
  const waiting = record(state?.waiting);
  const reason = text(waiting?.reason);
  const said = words(reason, text(waiting?.message));
  if (reason !== undefined && PULL_FAILED.has(reason)) return { _tag: 'Failed', reason: said };
  if (waiting === undefined || reason === undefined || STILL_PULLING.has(reason)) {
    return { _tag: 'Pulling', reason: said === '' ? 'ContainerCreating' : said };
  }
  // CreateContainerConfigError, RunContainerError, CrashLoopBackOff…: the image is there.
  return { _tag: 'Staged' };
};

/** The staging pod's state, read from the API object as it came (unchecked JSON). */
export const stagingStateOf = (pod: unknown): StagingState => {
  const object = record(pod);
  const status = record(object?.status);
  const phase = text(status?.phase) ?? 'Pending';
  const podWords = words(text(status?.reason) ?? phase, text(status?.message));
  if (record(object?.metadata)?.deletionTimestamp !== undefined) {
    return { _tag: 'Failed', reason: 'the staging pod is being deleted (by someone else)' };
  }
  const containers = record(object?.spec)?.containers;
  const names = (Array.isArray(containers) ? containers : [])
    .map((c) => text(record(c)?.name))
    .filter((n): n is string => n !== undefined);
  const statuses = (Array.isArray(status?.containerStatuses) ? (status.containerStatuses as unknown[]) : []).map(
    record,
  );
  const states = names.map((name) =>
    containerState(
      statuses.find((s) => s?.name === name),
      podWords,
    ),
  );
  const failed = states.find((s) => s._tag === 'Failed');
  if (failed !== undefined) return failed;
  const pulling = states.find((s) => s._tag === 'Pulling');
  if (states.length > 0 && pulling === undefined) return { _tag: 'Staged' };
  // The kubelet refused the pod before any container left the pull (OutOfcpu, NodeAffinity, …).
  if (phase === 'Failed') return { _tag: 'Failed', reason: `the kubelet failed the pod: ${podWords}` };
  return pulling ?? { _tag: 'Pulling', reason: podWords };
};
