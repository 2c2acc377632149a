// Public surface of PREPULL's staging (docs/behaviour.md §3.5a); src/index.ts re-exports it.

export { createStagingPort, type StagingPortOptions } from './create-staging-port.js';
export { MANAGED_BY, PULL_ONLY_COMMAND, STAGING_FOR, STAGING_IMAGES, stagingPod } from './staging-pod.js';
export { type StagingState, stagingStateOf } from './staging-state.js';
