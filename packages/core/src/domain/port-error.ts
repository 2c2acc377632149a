// Errors are values, classified, and keep the server's own words so the log
// line names the real cause (#571: "NotFound, RBAC denial or API error" was
// not an answer an operator could act on).

/**
 * The classes of port failure: `NotFound` (404), `Unauthorized` (401: the
 * server did not take the credentials sent, or wanted some and got none),
 * `Forbidden` (403: it knew who asked and refused, RBAC), `Timeout` (a bound
 * passed, or HTTP 408/504), `Transport` (connection, DNS, 5xx, anything
 * unexpected), `Malformed` (an answer that is not what was asked for).
 */
export type PortErrorTag = 'NotFound' | 'Unauthorized' | 'Forbidden' | 'Timeout' | 'Transport' | 'Malformed';

/**
 * A failed port call, as a value (never thrown). The tick names it in its
 * log line and its finding, so the message should be the server's own words
 * (#571: an operator must see the real cause).
 */
export interface PortError {
  /** The class of failure; match on it exhaustively. */
  readonly _tag: PortErrorTag;
  /** What the server (or the transport) said, secrets already removed by the adapter. */
  readonly message: string;
  /** HTTP status when there was one. */
  readonly status?: number;
}

const make =
  (tag: PortErrorTag) =>
  (message: string, status?: number): PortError =>
    status === undefined ? { _tag: tag, message } : { _tag: tag, message, status };

/** A `NotFound` {@link PortError}: the object or manifest does not exist. */
export const notFound = make('NotFound');
/** An `Unauthorized` {@link PortError}: the server did not accept who asked (401), so a fix is a credential, not a permission. */
export const unauthorized = make('Unauthorized');
/** A `Forbidden` {@link PortError}: the server knew who asked and refused the call (403, RBAC). */
export const forbidden = make('Forbidden');
/** A `Timeout` {@link PortError}: the call's bound passed without an answer (or the server said 408/504). */
export const timeout = make('Timeout');
/** A `Transport` {@link PortError}: the connection, the server or anything unexpected failed. */
export const transport = make('Transport');
/** A `Malformed` {@link PortError}: the answer was not what was asked for. */
export const malformed = make('Malformed');

export const PORT_ERROR_TAGS: readonly PortErrorTag[] = [
  'NotFound',
  'Unauthorized',
  'Forbidden',
  'Timeout',
  'Transport',
  'Malformed',
];

const isPortErrorTag = (value: unknown): value is PortErrorTag =>
  // Stryker disable next-line ConditionalExpression: includes() of a non-string in a list of strings is false anyway; the check narrows the type
  typeof value === 'string' && (PORT_ERROR_TAGS as readonly string[]).includes(value);

/** True for a {@link PortError}-shaped value: a known `_tag` and a string `message`. */
export const isPortError = (value: unknown): value is PortError =>
  typeof value === 'object' &&
  value !== null &&
  isPortErrorTag((value as { _tag?: unknown })._tag) &&
  typeof (value as { message?: unknown }).message === 'string';

/**
 * `Forbidden (HTTP 403): deployments.apps "x" is forbidden: …` — for a
 * PortError, and in the same words for the registry's 429 and a rollout's
 * RolloutFailed / RolloutTimedOut, which carry a tag and a message too.
 */
export const describePortError = (e: {
  readonly _tag: string;
  readonly status?: number | undefined;
  readonly message: string;
}): string => `${e._tag}${e.status === undefined ? '' : ` (HTTP ${e.status})`}: ${e.message}`;

/**
 * Which request of a resolution failed, when it was not the manifest's own:
 * `token` — the anonymous pull token's. The script says so in its own words
 * ("could not fetch auth token for docker.io/<repo>"), and operators grep for them.
 */
export type RegistryRequest = 'token';

/**
 * Why one image could not be resolved: a {@link PortError}, or the registry's
 * 429. Either way only that image is skipped this tick, with a WARN (I15); a
 * 429 also holds every re-image back (I7b, the pull budget). `failedAt` says
 * which request failed when it was not the manifest HEAD.
 */
export type RegistryError = (
  | PortError
  /** HTTP 429 from the registry: the anonymous pull budget of this IP is spent. */
  | { readonly _tag: 'RateLimited'; readonly message: string }
) & { readonly failedAt?: RegistryRequest };

/**
 * Why a rollout wait failed: the workload could not be read ({@link PortError}),
 * will never finish, or did not finish within ROLLOUT_TIMEOUT. Any of them
 * fails the tick (exit 1) and leaves the attempt counter incremented and the
 * digests unrecorded (docs/behaviour.md §3.6, I7, I10).
 */
export type RolloutError =
  | PortError
  /** The rollout will never finish on its own (ProgressDeadlineExceeded, an OnDelete DaemonSet). */
  | { readonly _tag: 'RolloutFailed'; readonly message: string }
  /** ROLLOUT_TIMEOUT passed while still waiting; message says for what, with numbers. */
  | { readonly _tag: 'RolloutTimedOut'; readonly message: string };
