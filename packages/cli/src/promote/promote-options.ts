import {
  isWellFormedDigest,
  MAX_HALT_MS,
  MAX_PROMOTION_MS,
  MAX_PROMOTION_RING,
  parseDurationMs,
} from '@image-refresh/core';
import * as E from 'fp-ts/lib/Either.js';
import { endpointOf, type PrometheusEndpoint } from './prometheus-client.js';

// The flags of `image-refresh promote` read and checked, every problem at
// once (exit 2, docs/fleet-promotion.md, "Exit codes"): nothing is asked of
// Prometheus on flags that cannot make a verdict.

/** Where Prometheus's credentials are read from: a file, never argv (docs/fleet-promotion.md, "The verdict"). */
export interface CredentialsFile {
  readonly flag: '--bearer-token-file' | '--basic-auth-file';
  readonly file: string;
}

export interface PromoteOptions {
  /** Its authorization is undefined here: the command reads `credentials` into it. */
  readonly prometheus: PrometheusEndpoint;
  readonly credentials: CredentialsFile | undefined;
  readonly image: string;
  readonly digest: string;
  readonly ring: number;
  readonly forMs: number;
  readonly minEdges: number;
  readonly json: boolean;
  readonly out: string | undefined;
  readonly from: string | undefined;
  readonly haltOnRollback: boolean;
  /** The promotion's expiry (RFC 3339, whole seconds): --expires, 7 days by default. */
  readonly promotionExpires: string;
  /** The halt's expiry: --expires, 24 hours by default. */
  readonly haltExpires: string;
  readonly timeoutMs: number;
}

/** The flags as main's parseArgs gives them. */
export interface PromoteFlags {
  readonly prometheus?: string | undefined;
  readonly bearerTokenFile?: string | undefined;
  readonly basicAuthFile?: string | undefined;
  readonly image?: string | undefined;
  readonly digest?: string | undefined;
  readonly ring?: string | undefined;
  readonly for?: string | undefined;
  readonly minEdges?: string | undefined;
  readonly json: boolean;
  readonly out?: string | undefined;
  readonly from?: string | undefined;
  readonly haltOnRollback: boolean;
  readonly expires?: string | undefined;
  readonly timeout?: string | undefined;
}

const DAY_MS = 24 * 60 * 60 * 1_000;
const RFC_3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;
/** An image name as the promotion document takes it (a DNS-1123 label). */
const IMAGE_NAME = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const WHOLE = /^[0-9]+$/;
const MAX_TIMEOUT_MS = 5 * 60 * 1_000;

/** A Go duration (90m, 2h) or whole days (7d): --for and --expires speak in days too. */
export const durationMs = (text: string): number | undefined => {
  const days = /^([0-9]+)d$/.exec(text);
  return days !== null ? Number(days[1]) * DAY_MS : parseDurationMs(text);
};

const rfc3339 = (ms: number): string => new Date(Math.floor(ms / 1_000) * 1_000).toISOString().replace('.000Z', 'Z');

const expiryOf = (text: string, nowMs: number, maxMs: number): E.Either<string, string> => {
  const duration = durationMs(text);
  const atMs = duration !== undefined ? nowMs + duration : RFC_3339.test(text) ? Date.parse(text) : Number.NaN;
  if (!Number.isFinite(atMs)) return E.left(`--expires ${text}: neither a duration (7d, 24h) nor an RFC 3339 time`);
  if (atMs <= nowMs + 1_000) return E.left(`--expires ${text}: that is not in the future`);
  if (atMs - nowMs > maxMs) return E.left(`--expires ${text}: at most 30 days`);
  return E.right(rfc3339(atMs));
};

const wholeIn = (flag: string, text: string, low: number, high: number, problems: string[]): number => {
  if (!WHOLE.test(text) || Number(text) < low || Number(text) > high) {
    problems.push(`--${flag} ${text}: a whole number from ${low} to ${high}`);
    return low;
  }
  return Number(text);
};

/** The options, or every problem of the flags. */
export const promoteOptionsOf = (flags: PromoteFlags, nowMs: number): E.Either<readonly string[], PromoteOptions> => {
  const problems: string[] = [];
  const required = (flag: string, value: string | undefined): string => {
    if (value === undefined || value === '') problems.push(`--${flag} is required`);
    return value ?? '';
  };
  const prometheusText = required('prometheus', flags.prometheus);
  const prometheus = prometheusText === '' ? undefined : endpointOf(prometheusText);
  if (prometheus !== undefined && E.isLeft(prometheus)) problems.push(prometheus.left);
  const credentialFiles: CredentialsFile[] = [
    ...(flags.bearerTokenFile === undefined
      ? []
      : [{ flag: '--bearer-token-file' as const, file: flags.bearerTokenFile }]),
    ...(flags.basicAuthFile === undefined ? [] : [{ flag: '--basic-auth-file' as const, file: flags.basicAuthFile }]),
  ];
  for (const { flag, file } of credentialFiles) if (file === '') problems.push(`${flag} names no file`);
  if (credentialFiles.length > 1) problems.push('--bearer-token-file and --basic-auth-file: give one');
  const image = required('image', flags.image);
  if (image !== '' && (image.length > 63 || !IMAGE_NAME.test(image)))
    problems.push(
      `--image ${image}: not an image name as the profile declares it (a DNS-1123 label: web, jobs-manager)`,
    );
  const digest = required('digest', flags.digest);
  if (digest !== '' && !isWellFormedDigest(digest)) problems.push(`--digest ${digest}: not sha256:<64 hex>`);
  const ringText = required('ring', flags.ring);
  // Ring 0 are the canaries: they need no promotion, they make the evidence.
  const ring = ringText === '' ? 1 : wholeIn('ring', ringText, 1, MAX_PROMOTION_RING, problems);
  const forText = required('for', flags.for);
  const forMs = forText === '' ? undefined : durationMs(forText);
  if (forText !== '' && (forMs === undefined || forMs < 1_000 || forMs > MAX_PROMOTION_MS))
    problems.push(`--for ${forText}: a duration from 1s to 30d (2h, 90m, 1d)`);
  const minEdges = flags.minEdges === undefined ? 1 : wholeIn('min-edges', flags.minEdges, 1, 100_000, problems);
  const timeoutMs = flags.timeout === undefined ? 10_000 : durationMs(flags.timeout);
  if (timeoutMs === undefined || timeoutMs < 1 || timeoutMs > MAX_TIMEOUT_MS)
    problems.push(`--timeout ${flags.timeout ?? ''}: a duration up to 5m (10s, 1500ms)`);
  const promotionExpires = expiryOf(flags.expires ?? '7d', nowMs, MAX_PROMOTION_MS);
  const haltExpires = expiryOf(flags.expires ?? '24h', nowMs, MAX_HALT_MS);
  if (E.isLeft(promotionExpires)) problems.push(promotionExpires.left);
  else if (E.isLeft(haltExpires)) problems.push(haltExpires.left);
  if (flags.haltOnRollback && flags.out === undefined)
    problems.push('--halt-on-rollback writes the halt to --out FILE: give --out');
  if (flags.out === '') problems.push('--out names no file');
  if (flags.from === '') problems.push('--from names no file');
  if (
    problems.length > 0 ||
    prometheus === undefined ||
    E.isLeft(prometheus) ||
    E.isLeft(promotionExpires) ||
    E.isLeft(haltExpires) ||
    forMs === undefined ||
    timeoutMs === undefined
  )
    return E.left(problems);
  return E.right({
    prometheus: prometheus.right,
    credentials: credentialFiles[0],
    image,
    digest,
    ring,
    forMs,
    minEdges,
    json: flags.json,
    out: flags.out,
    from: flags.from,
    haltOnRollback: flags.haltOnRollback,
    promotionExpires: promotionExpires.right,
    haltExpires: haltExpires.right,
    timeoutMs,
  });
};
