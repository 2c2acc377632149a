// Public surface of @image-refresh/k8s-adapter: core's ports on the
// Kubernetes API (@kubernetes/client-node) and the OCI distribution API.
export * from './cluster/index.js';
export * from './events/index.js';
export * from './registry/index.js';
