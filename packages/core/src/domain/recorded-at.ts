import type { Topology } from '../config/profile/topology.js';
import type { Annotations, BookkeepingChanges } from './bookkeeping.js';
import { rfc3339 } from './pending-digest.js';

// The canaries' evidence (docs/fleet-promotion.md): with PUSHGATEWAY_URL set,
// each digest recorded carries the time it was recorded,
// `<prefix>/last-refreshed-<image>-at`, in the same write — so every later
// push can say since when this edge runs it, and `promote` can ask whether
// it ran long enough. Without a push nobody reads it: the script's keys only.

/**
 * The record write's time keys: one per image the write records a digest
 * for, at `nowMs` (RFC 3339, whole seconds). Without a time (no push, or the
 * clock unread) a time kept from an earlier digest is removed, so it is never
 * read as the new digest's.
 */
export const recordedAtWrite = (
  topology: Topology,
  record: BookkeepingChanges,
  bookkeeping: Annotations,
  nowMs: number | undefined,
): BookkeepingChanges =>
  Object.fromEntries(
    topology.images
      .filter((image) => typeof record[image.recordKey] === 'string')
      .flatMap((image): [string, string | null][] => {
        if (nowMs !== undefined) return [[image.recordedAtKey, rfc3339(nowMs)]];
        return bookkeeping[image.recordedAtKey] === undefined ? [] : [[image.recordedAtKey, null]];
      }),
  );
