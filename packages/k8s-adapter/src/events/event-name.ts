import { createHash } from 'node:crypto';

// Which Event a record lands on. events.k8s.io/v1 makes an Event's note (its
// message), type and reason immutable: a repeat can only count itself in
// `series` (count, lastObservedTime), as client-go's events recorder does. So
// the name decides which messages count as "the same thing again", and it is
// the Deployment, the reason and a short hash of the note's *shape* — the
// note with every standalone number written `#`:
//   - a skip streak ("skipping this refresh tick 3/8 … 0 of 1 updated
//     replicas are available"), a FROZEN line whose streak grows, a flap
//     lockout counting attempts: same shape, one Event, series.count going
//     up, and `kubectl get events` shows "(x5 over 1h)" beside the line that
//     started it (repeats update one Event instead of piling up);
//   - a different cause under the same reason (another error text, another
//     workload, a re-image to other digests — hex digits inside a word are
//     not standalone numbers): a different shape, so a new Event whose note
//     is that tick's own log line, never one silently counted under an older,
//     unrelated message.
// The apiserver drops an Event an hour (--event-ttl) after its last write, so
// a streak that ends and comes back much later starts a fresh Event.

/** The note with every standalone number (a counter, a replica count, a streak position) as `#`. */
export const noteShape = (note: string): string => note.replace(/\b\d+\b/g, '#');

const HASH_CHARS = 8;
/** metadata.name is a DNS subdomain: at most 253 characters. */
const MAX_NAME = 253;

/**
 * `stg-jobs-manager.image-refresh.refreshfrozen.1a2b3c4d`: stable per
 * Deployment, reason and note shape ({@link noteShape}).
 */
export const eventName = (deployment: string, reason: string, note: string): string => {
  const hash = createHash('sha256').update(noteShape(note)).digest('hex').slice(0, HASH_CHARS);
  const prefix = `${deployment}.image-refresh.${reason.toLowerCase().replace(/[^a-z0-9.-]/g, '-')}`
    .slice(0, MAX_NAME - HASH_CHARS - 1)
    .replace(/[-.]+$/, '');
  return `${prefix}.${hash}`;
};
