import type { ConfigError, PortError, Settledness, TickConfig, TickPorts, WorkloadRef } from '@image-refresh/core';
import type { Either } from 'fp-ts/lib/Either.js';
import type { RegistryAccess } from './wiring/registry-access.js';
import type { SignatureTrust } from './wiring/signature-trust.js';

// What the commands need from the outside world, in one interface: the real
// one is built on the k8s-adapter (wiring/connect.ts); tests pass their own.

export interface WorkloadInspection {
  readonly settledness: Settledness;
  /** container name → image reference in the pod template */
  readonly images: Readonly<Record<string, string>>;
  readonly annotations: Readonly<Record<string, string>>;
}

export interface ConnectionHooks {
  /** A rollout wait is still going: what it waits for, with numbers. */
  readonly onProgress: (line: string) => void;
  /** The registry reported its remaining pull budget. */
  readonly onRateLimit: (line: string) => void;
  /** The tick's signal: every request and wait of these ports ends when it aborts. */
  readonly signal?: AbortSignal;
  /** SIGTERM / SIGINT: ends every read and wait; a write already sent is awaited within its bound. */
  readonly interrupt?: AbortSignal;
  /** `tick --dry-run` (server-side): every write is sent as dryRun=All, checked by the API server and persisted nowhere. */
  readonly dryRun?: boolean;
  /** VERIFY_SIGNATURES ≠ off: the keys and keyless trust read from their files; the ports then check signatures. */
  readonly signatureTrust?: SignatureTrust;
}

export interface Connection {
  /** How the cluster is reached, for the log ("in-cluster service account", "kubeconfig …"). */
  readonly source: string;
  /** False when there is no cluster to talk to at all (no credentials); its calls all fail. */
  readonly reachable?: boolean;
  /**
   * Why no cluster configuration could be loaded (KUBECONFIG names a missing
   * file, a kubeconfig that does not parse, no credentials at all): a
   * configuration error, said with the environment's other problems, exit 2
   * before any request — never a Transport failure of every call.
   */
  readonly configProblem?: ConfigError;
  readonly ports: (hooks: ConnectionHooks) => TickPorts;
  readonly inspect: (workload: WorkloadRef) => Promise<Either<PortError, WorkloadInspection>>;
}

/** The outside world for `config`; registry requests authenticate and trust as `registryAccess` says (REGISTRY_AUTH_FILE, REGISTRY_CA_FILE). */
export type Connect = (config: TickConfig, registryAccess?: RegistryAccess) => Connection;
