import type { Topology } from '../config/profile/topology.js';
import type { Annotations, BookkeepingChanges } from './bookkeeping.js';
import { formatPendingDigest, parsePendingDigest } from './pending-digest.js';

// The canaries' evidence (docs/fleet-promotion.md): with PUSHGATEWAY_URL set,
// a digest a tick rolled out is recorded with the time it was recorded,
// `<prefix>/last-refreshed-<image>-at` = `<digest> <RFC 3339>` (the pending
// record's spelling), in the same write — so every later push can say since
// when this edge runs it, and `promote` can ask whether it ran long enough.
// The digest rides in the value: a time is only ever read as its own
// digest's, whatever else rewrites the record. Without a push nobody reads
// it: the script's keys only.

/** The time a digest was recorded, as the annotation says it. */
export interface RecordedAt {
  readonly digest: string;
  readonly recordedAtMs: number;
}

/** The annotation's value: `<digest> <RFC 3339>`, whole seconds. */
export const formatRecordedAt = (r: RecordedAt): string =>
  formatPendingDigest({ digest: r.digest, firstSeenMs: r.recordedAtMs });

/** The annotation's value read back; undefined for anything but a well-formed digest and an RFC 3339 time. */
export const parseRecordedAt = (value: string): RecordedAt | undefined => {
  const parsed = parsePendingDigest(value);
  return parsed === undefined ? undefined : { digest: parsed.digest, recordedAtMs: parsed.firstSeenMs };
};

/**
 * The record write's time keys, at `nowMs`: one per image the write records
 * a rolled-out digest for. A first observation rolled nothing out (I8): this
 * edge does not run it on its say-so, so it gets no time — and neither does
 * a record written without a clock. A time kept from an earlier digest is
 * removed in those cases, so it is never left beside another digest.
 */
export const recordedAtWrite = (
  topology: Topology,
  record: BookkeepingChanges,
  bookkeeping: Annotations,
  nowMs: number | undefined,
  firstObserved: ReadonlySet<string>,
): BookkeepingChanges =>
  Object.fromEntries(
    topology.images.flatMap((image): [string, string | null][] => {
      const digest = record[image.recordKey];
      if (typeof digest !== 'string') return [];
      if (nowMs !== undefined && !firstObserved.has(image.name))
        return [[image.recordedAtKey, formatRecordedAt({ digest, recordedAtMs: nowMs })]];
      return bookkeeping[image.recordedAtKey] === undefined ? [] : [[image.recordedAtKey, null]];
    }),
  );
