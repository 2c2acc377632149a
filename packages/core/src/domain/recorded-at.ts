import type { Topology } from '../config/profile/topology.js';
import type { BookkeepingChanges } from './bookkeeping.js';
import { rfc3339 } from './pending-digest.js';

// The canaries' evidence (docs/fleet-promotion.md): with PUSHGATEWAY_URL set,
// each digest recorded carries the time it was recorded,
// `<prefix>/last-refreshed-<image>-at`, in the same write — so every later
// push can say since when this edge runs it, and `promote` can ask whether
// it ran long enough. Without a push nobody reads it: the script's keys only.

/** The record write's time keys: one per image the write records a digest for, at `nowMs` (RFC 3339, whole seconds). */
export const recordedAtWrite = (
  topology: Topology,
  record: BookkeepingChanges,
  nowMs: number | undefined,
): BookkeepingChanges =>
  nowMs === undefined
    ? {}
    : Object.fromEntries(
        topology.images
          .filter((image) => typeof record[image.recordKey] === 'string')
          .map((image) => [image.recordedAtKey, rfc3339(nowMs)]),
      );
