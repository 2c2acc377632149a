import type { WorkloadRef } from '@image-refresh/core';
import { restAs } from '../../../../k8s-adapter/test/parity/support/world-controls.js';
import {
  type ChartCluster,
  chartContainersOf,
  JOBS_MANAGER,
  NS,
} from '../../../../k8s-adapter/test/support/fake-api-chart.js';

// What someone other than image-refresh does to the release between ticks,
// written on the fake API server the way the apiserver records it: a patch
// under that client's field manager, so metadata.managedFields names who set
// each image — which is how RECONCILE_LIVE tells a `helm upgrade` from a
// hand edit. After a spec change the workload is left at rest (settled), as
// it would be by the time the next tick looks 15 minutes later.

const patchImages = (
  cluster: ChartCluster,
  ref: WorkloadRef,
  containers: readonly { name: string; image: string }[],
  manager: string,
): void => {
  const patched = cluster.server.store.patch(
    ref.kind,
    ref.namespace,
    ref.name,
    'strategic',
    { spec: { template: { spec: { containers: containers.map((c) => ({ ...c })) } } } },
    manager,
  );
  if (patched === undefined) throw new Error(`the fake API server holds no ${ref.kind} ${ref.name}`);
  restAs(cluster, ref, 'settles');
};

/** `helm upgrade`: the chart renders `docker.io/<repo>:<tag>` into every container again, as field manager `helm`. */
export const helmRerender = (cluster: ChartCluster, ref: WorkloadRef, tag: string): void => {
  const containers = chartContainersOf(ref.name);
  patchImages(
    cluster,
    ref,
    containers.map(({ container, repo }) => ({ name: container, image: `docker.io/${repo}:${tag}` })),
    'helm',
  );
};

/** `kubectl set image <workload> <container>=<image>` by a human (kubectl's field manager). */
export const kubectlSetImage = (cluster: ChartCluster, ref: WorkloadRef, container: string, image: string): void =>
  patchImages(cluster, ref, [{ name: container, image }], 'kubectl-set');

/** `kubectl annotate deployment/<jobs-manager> key=value` (null: `key-`) by a human. */
export const kubectlAnnotate = (cluster: ChartCluster, key: string, value: string | null): void => {
  cluster.server.store.patch(
    'Deployment',
    NS,
    JOBS_MANAGER,
    'merge',
    { metadata: { annotations: { [key]: value } } },
    'kubectl-annotate',
  );
};
