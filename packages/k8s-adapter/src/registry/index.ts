// Public surface of the registry adapter; src/index.ts re-exports it.

export {
  DOCKER_HUB_HOST,
  endpointOf,
  perHost,
  type RegistryEndpoint,
  type RegistryHosts,
  routedFleetHaltPort,
  routedPlatformPort,
  routedRegistryPort,
  routedSignaturePort,
} from './by-host.js';
export { createRegistryPort } from './create-registry-port.js';
export { MANIFEST_ACCEPT, MANIFEST_MEDIA_TYPES } from './media-types.js';
export { describeBudget, type RateLimitBudget } from './rate-limit.js';
export { DEFAULT_REGISTRY_TIMEOUT_MS, type RegistryPortOptions } from './registry-client.js';
