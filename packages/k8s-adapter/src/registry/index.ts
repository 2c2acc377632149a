// Public surface of the registry adapter; src/index.ts re-exports it.

export { createRegistryPort } from './create-registry-port.js';
export { MANIFEST_ACCEPT, MANIFEST_MEDIA_TYPES } from './media-types.js';
export { describeBudget, type RateLimitBudget } from './rate-limit.js';
export { DEFAULT_REGISTRY_TIMEOUT_MS, type RegistryPortOptions } from './registry-client.js';
