// Public surface of @image-refresh/k8s-adapter, on purpose: the factories that
// build core's ports on a real cluster and registry, how the cluster is found,
// one read for status-like tools, the HTTP types that name what
// RegistryPortOptions.fetch must be (the global fetch fits), and boundedCall,
// the one way a bound is made, for callers bounding requests of their own. Listed by name,
// never `export *`, so an export added to a module for the adapter's own tests
// (src/*/index.ts) does not become public by accident; removing or changing
// one is a breaking change, and packaging/api/k8s-adapter.api.md records them.

export { boundedCall, type CallBound, untilAborted } from './bounds/bounded-call.js';
export {
  type ClusterConfig,
  type ClusterConfigError,
  type ClusterPortOptions,
  type ContainerFieldOwner,
  createClusterPort,
  inspectWorkload,
  loadClusterConfig,
  SERVICE_ACCOUNT_TOKEN,
  type WorkloadSnapshot,
} from './cluster/index.js';
export { createEventsPort, type EventsPortOptions } from './events/index.js';
export { createFleetHaltReader, createFleetPromotionReader } from './fleet-halt/read-fleet-halt.js';
export {
  createPlatformReader,
  DEFAULT_PLATFORM_LIMITS,
  type PlatformLimits,
  type PlatformReaderOptions,
} from './platforms/read-platforms.js';
export {
  type BasicCredential,
  parseDockerConfig,
  type RegistryCredentials,
} from './registry/credentials.js';
export type { HeaderReader, HttpAnswer, HttpFetch, HttpInit } from './registry/http-transport.js';
export {
  createRegistryPort,
  DOCKER_HUB_HOST,
  describeBudget,
  endpointOf,
  perHost,
  type RateLimitBudget,
  type RegistryEndpoint,
  type RegistryHosts,
  type RegistryPortOptions,
  routedFleetHaltPort,
  routedPlatformPort,
  routedRegistryPort,
  routedSignaturePort,
} from './registry/index.js';
export {
  createSignatureVerifier,
  DEFAULT_SIGNATURE_LIMITS,
  type KeyFileError,
  type KeyKind,
  type KeylessTrust,
  parsePublicKeys,
  type RequestCount,
  type SignatureCheck,
  type SignatureFormat,
  type SignatureLimits,
  type SignatureTarget,
  type SignatureVerdict,
  type SignatureVerifier,
  type SignatureVerifierOptions,
  type TrustedKey,
} from './signatures/index.js';
export { createStagingPort, type StagingPortOptions } from './staging/index.js';
