import { type HttpFetch, nodeHttpFetch } from './http-transport.js';
import type { RateLimitBudget } from './rate-limit.js';

/** What `createRegistryPort` needs; only `baseUrl` is required. */
export interface RegistryPortOptions {
  /** Registry API base: the config's registryUrl (docs/behaviour.md §2: IMAGE_REFRESH_REGISTRY_URL). */
  readonly baseUrl: string;
  /**
   * The token realm to ask before any HEAD (the config's authUrl,
   * IMAGE_REFRESH_AUTH_URL; a `service` query parameter is the service).
   * Unset: Docker Hub's realm when `baseUrl` is Docker Hub's registry,
   * otherwise learned from the registry's first 401 (known-realm.ts).
   */
  readonly authUrl?: string | undefined;
  /** Bound of every single request; the config's registryTimeoutMs. Default 10 s. */
  readonly timeoutMs?: number;
  /** For tests and instrumentation (the global fetch fits); node:http/https otherwise. */
  readonly fetch?: HttpFetch;
  /** Called with the budget every manifest HEAD reports, so the CLI can log it. */
  readonly onRateLimit?: (budget: RateLimitBudget) => void;
  /** The tick's signal: aborting it aborts every request in flight. */
  readonly signal?: AbortSignal;
  /**
   * The tick's interruption (SIGTERM): aborting it ends every request in
   * flight too — a registry request is always a read, and reads end at an
   * interruption (ClusterPortOptions.abortReads). Two signals rather than one
   * composed by the caller: a composed platform signal can be collected
   * mid-request on Node 20 (bounds/bounded-call.ts).
   */
  readonly abortReads?: AbortSignal;
}

/** The reference's `curl --max-time 10`. */
export const DEFAULT_REGISTRY_TIMEOUT_MS = 10_000;

export interface RegistryClient {
  readonly baseUrl: URL;
  readonly timeoutMs: number;
  readonly fetch: HttpFetch;
  readonly onRateLimit: (budget: RateLimitBudget) => void;
  /** Every signal that ends this client's requests: the tick's end and its interruption. */
  readonly signals: readonly AbortSignal[];
}

/** True once any signal that ends this client's requests has aborted. */
export const isStopped = (client: RegistryClient): boolean => client.signals.some((s) => s.aborted);

const ignore = (): void => undefined;

export const registryClient = (options: RegistryPortOptions): RegistryClient => ({
  // A trailing slash makes `new URL('v2/…', base)` keep a path prefix (a proxy
  // mounted under /registry/ works as well as a bare host).
  baseUrl: new URL(options.baseUrl.endsWith('/') ? options.baseUrl : `${options.baseUrl}/`),
  timeoutMs: options.timeoutMs ?? DEFAULT_REGISTRY_TIMEOUT_MS,
  fetch: options.fetch ?? nodeHttpFetch,
  onRateLimit: options.onRateLimit ?? ignore,
  signals: [options.signal, options.abortReads].filter((s): s is AbortSignal => s !== undefined),
});
