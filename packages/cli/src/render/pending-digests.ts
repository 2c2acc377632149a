import {
  formatDuration,
  parsePendingDigest,
  requiredDigestAgeMs,
  shortDigest,
  type TickConfig,
} from '@image-refresh/core';

// `status` and `status --json` (docs/behaviour.md §3.4a step 2): each digest
// soaking on this edge — its pending record `<prefix>/pending-<image>-digest` —
// and when it becomes due under this edge's MIN_DIGEST_AGE + ROLLOUT_RING ×
// RING_DELAY.

/** One pending record as status reports it; the fields are null where the annotation is not `<digest> <RFC 3339>`. */
export interface PendingFacts {
  readonly image: string;
  readonly digest: string | null;
  readonly firstSeen: string | null;
  readonly due: string | null;
  readonly annotation: string;
}

const iso = (ms: number): string => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

export const pendingDigests = (config: TickConfig, annotations: Readonly<Record<string, string>>): PendingFacts[] =>
  config.topology.images.flatMap((image): PendingFacts[] => {
    const raw = annotations[image.pendingKey];
    if (raw === undefined) return [];
    const parsed = parsePendingDigest(raw);
    return [
      parsed === undefined
        ? { image: image.name, digest: null, firstSeen: null, due: null, annotation: raw }
        : {
            image: image.name,
            digest: parsed.digest,
            firstSeen: iso(parsed.firstSeenMs),
            due: iso(parsed.firstSeenMs + requiredDigestAgeMs(config)),
            annotation: raw,
          },
    ];
  });

const words = (ms: number): string => (ms === 0 ? '0s' : formatDuration(ms));

/** The status line of one pending record. */
export const pendingLine = (config: TickConfig, p: PendingFacts): string =>
  p.digest === null
    ? `${p.image} holds ${JSON.stringify(p.annotation)}: not "<digest> <RFC 3339 time>", the next tick counts it as first seen then`
    : `${p.image} ${shortDigest(p.digest)} first seen ${p.firstSeen}; due ${p.due} (MIN_DIGEST_AGE=${words(config.minDigestAgeMs)}, ring ${config.rolloutRing} × RING_DELAY=${words(config.ringDelayMs)})`;
