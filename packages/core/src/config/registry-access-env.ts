// What the command reads to talk to a private registry: files, so core
// (which does no I/O) only names them; the CLI reads and checks them before
// any call (docs/configuration.md, "The registry").

/** The variables of registry access, by what they are for. */
export const REGISTRY_ACCESS_ENV = {
  /** A `.dockerconfigjson` (the Secret the workloads' imagePullSecrets name), mounted read-only. */
  registryAuthFile: 'REGISTRY_AUTH_FILE',
  /** A PEM bundle trusted for registry requests, beside the system's. */
  registryCaFile: 'REGISTRY_CA_FILE',
} as const;
