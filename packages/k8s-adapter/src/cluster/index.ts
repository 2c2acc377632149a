// Public surface of the cluster side of @image-refresh/k8s-adapter.

export type { ClusterPortOptions } from './cluster-port-options.js';
export { DEFAULT_POLL_INTERVAL_MS, DEFAULT_PROGRESS_INTERVAL_MS } from './cluster-port-options.js';
export { createClusterPort } from './create-cluster-port.js';
export { inspectWorkload } from './inspect-workload.js';
export {
  type ClusterConfig,
  type ClusterConfigError,
  loadClusterConfig,
  SERVICE_ACCOUNT_TOKEN,
} from './load-cluster-config.js';
export type { ContainerFieldOwner } from './managed-fields.js';
export { redactSecrets } from './redact-secrets.js';
export { FIELD_MANAGER } from './workload-api.js';
export type { WorkloadSnapshot } from './workload-snapshot.js';
