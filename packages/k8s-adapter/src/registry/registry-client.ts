import * as O from 'fp-ts/lib/Option.js';
import type { BasicCredential, RegistryCredentials } from './credentials.js';
import { type HttpFetch, nodeHttpFetch, nodeHttpFetchTrusting } from './http-transport.js';
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
  /**
   * REGISTRY_AUTH_FILE, read: the entry for `baseUrl`'s host is sent, over
   * https only, to the registry when it asks for Basic and to the token realm
   * its challenge names. Unset: anonymous tokens only (the script's).
   */
  readonly credentials?: RegistryCredentials;
  /** REGISTRY_CA_FILE, read: PEM certificates trusted beside the system's for every https request. */
  readonly ca?: string;
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
  /** The credential for this registry's host, if REGISTRY_AUTH_FILE has one. */
  readonly credential: O.Option<BasicCredential>;
  /** Whether credentials were sent for this host, and why not: what a 401's message says. */
  readonly credentialNote: string;
  /** Secrets no message may carry (the auth file's, in every form). */
  readonly secrets: readonly string[];
  /** Set once this registry answered a HEAD with a Basic challenge: later HEADs send Basic at once. */
  readonly basic: { wantsBasic: boolean };
}

/** Whether `url` may carry a credential: https only, never plain http. */
export const mayCarryCredential = (url: URL): boolean => url.protocol === 'https:';

const credentialNoteOf = (baseUrl: URL, credentials: RegistryCredentials | undefined): string => {
  const host = baseUrl.host;
  if (credentials === undefined) return `no credentials were sent for ${host} (REGISTRY_AUTH_FILE is not set)`;
  if (O.isNone(credentials.forHost(host)))
    return `no credentials were sent for ${host}: REGISTRY_AUTH_FILE ${credentials.source} has no entry for it`;
  if (!mayCarryCredential(baseUrl))
    return `the credentials for ${host} from ${credentials.source} were not sent: ${baseUrl.origin} is plain http`;
  return `with the credentials for ${host} from REGISTRY_AUTH_FILE ${credentials.source}`;
};

/** True once any signal that ends this client's requests has aborted. */
export const isStopped = (client: RegistryClient): boolean => client.signals.some((s) => s.aborted);

const ignore = (): void => undefined;

export const registryClient = (options: RegistryPortOptions): RegistryClient => {
  // A trailing slash makes `new URL('v2/…', base)` keep a path prefix (a proxy
  // mounted under /registry/ works as well as a bare host).
  const baseUrl = new URL(options.baseUrl.endsWith('/') ? options.baseUrl : `${options.baseUrl}/`);
  const credential = options.credentials === undefined ? O.none : options.credentials.forHost(baseUrl.host);
  return {
    baseUrl,
    timeoutMs: options.timeoutMs ?? DEFAULT_REGISTRY_TIMEOUT_MS,
    fetch: options.fetch ?? (options.ca === undefined ? nodeHttpFetch : nodeHttpFetchTrusting(options.ca)),
    onRateLimit: options.onRateLimit ?? ignore,
    signals: [options.signal, options.abortReads].filter((s): s is AbortSignal => s !== undefined),
    credential: mayCarryCredential(baseUrl) ? credential : O.none,
    credentialNote: credentialNoteOf(baseUrl, options.credentials),
    secrets: options.credentials?.secrets ?? [],
    basic: { wantsBasic: false },
  };
};
