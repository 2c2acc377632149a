// What the command reads to talk to a private registry: files, so core
// (which does no I/O) only names them, and the hosts reached over plain http;
// the CLI reads and checks them before any call (docs/configuration.md,
// "The registry").

/** The variables of registry access, by what they are for. */
export const REGISTRY_ACCESS_ENV = {
  /** A `.dockerconfigjson` (the Secret the workloads' imagePullSecrets name), mounted read-only. */
  registryAuthFile: 'REGISTRY_AUTH_FILE',
  /** A PEM bundle trusted for registry requests, beside the system's. */
  registryCaFile: 'REGISTRY_CA_FILE',
  /** Registry hosts (`host[:port]`, comma-separated) reached over plain http, as containerd's insecure registries. */
  registryPlainHttp: 'REGISTRY_PLAIN_HTTP',
} as const;
