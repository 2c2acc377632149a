import { formatDuration } from '../../config/duration.js';
import { imagesWithBookkeeping } from '../../config/profile/topology-keys.js';
import type { TickConfig } from '../../config/tick-config.js';
import type { Annotations } from '../../domain/bookkeeping.js';
import type { ImageResolution } from '../../domain/plan.js';
import { describePortError, type PortError, type RegistryError } from '../../domain/port-error.js';
import type { RegistrySilence, SilentImage } from '../../domain/registry-silence.js';
import { describeWorkload, type ImageSpec, imageOf, type WorkloadRef } from '../../domain/workloads.js';
import { event, gate } from '../operator-words.js';
import type { TickEvent } from '../tick-event.js';

// The resolve phase's operator lines (docs/behaviour.md §3.3, §5): START_JITTER, each image
// asked of the registry, the recorded digests and RECONCILE_LIVE's reads.

export const startJitter = (c: TickConfig, delayMs: number): TickEvent => ({
  level: 'info',
  code: 'START_JITTER',
  message: `waiting ${formatDuration(delayMs)} before the registry (START_JITTER=${formatDuration(c.startJitterMs)}, derived from this edge's ${gate(c)} uid)`,
});

export const startJitterFailed = (e: PortError): TickEvent => ({
  level: 'warn',
  code: 'START_JITTER_FAILED',
  message: `WARN: could not wait START_JITTER (${describePortError(e)}); resolving now.`,
});

export const checkingImage = (image: ImageSpec): TickEvent =>
  event('info', 'CHECKING_IMAGE', `checking ${image.repo}:${image.tag} (annotation=${image.recordKey})`);

export const imagePinned = (image: ImageSpec): TickEvent =>
  event(
    'info',
    'IMAGE_PINNED',
    `${image.repo}: pinned by digest in values; skipping (auto-refresh disabled for this image)`,
  );

/** The script's words for a failed token request, `docker.io/<repo>` (the image's own host) as it names the repository. */
const failedRequest = (image: ImageSpec, e: RegistryError): string =>
  e.failedAt === 'token' ? `: could not fetch auth token for ${image.host}/${image.repo}` : '';

export const resolveFailed = (image: ImageSpec, e: RegistryError): TickEvent => ({
  ...event(
    'warn',
    'RESOLVE_FAILED',
    `WARN: could not resolve latest digest of ${image.repo}:${image.tag}${failedRequest(image, e)} (${describePortError(e)}); skipping this image this tick, the others go on`,
  ),
  cause: e._tag,
});

export const recordedDigestsUnreadable = (c: TickConfig, e: PortError): TickEvent =>
  event(
    'warn',
    'RECORDED_DIGESTS_UNREADABLE',
    `WARN: could not read the recorded digests on ${gate(c)} (${describePortError(e)}); treating that as "first observation" would skip a needed re-image, so nothing is recorded or re-imaged this tick. Will retry next tick.`,
  );

export const pinMarkersUnreadable = (c: TickConfig, e: PortError): TickEvent =>
  event(
    'warn',
    'PIN_MARKERS_UNREADABLE',
    `WARN: could not read the pin markers on ${gate(c)} (${describePortError(e)}); live images are not reconciled this tick (the registry pass goes on)`,
  );

export const liveUnreadable = (workload: WorkloadRef, e: PortError): TickEvent =>
  event(
    'warn',
    'LIVE_UNREADABLE',
    `WARN: could not read ${describeWorkload(workload)} (${describePortError(e)}); it is not reconciled this tick`,
  );

/**
 * Bookkeeping the gate keeps for images the profile does not declare: an
 * image or the prefix was renamed (docs/profiles.md), so those records,
 * quarantines, attempts and pending digests apply to nothing now. Said once
 * per tick, with the record read.
 */
export const orphanedBookkeeping = (c: TickConfig, annotations: Annotations): TickEvent[] => {
  const declared = new Set(c.topology.images.map((i) => i.name));
  const orphans = imagesWithBookkeeping(c.topology.profile.annotationPrefix, Object.keys(annotations)).filter(
    (image) => !declared.has(image),
  );
  return orphans.length === 0
    ? []
    : [
        event(
          'warn',
          'ORPHANED_BOOKKEEPING',
          `WARN: ${gate(c)} keeps bookkeeping under ${c.topology.profile.annotationPrefix}/ for ${orphans.length === 1 ? 'an image' : 'images'} the profile does not declare: ${orphans.join(', ')}. A renamed image starts afresh (a first observation); remove the old keys once they are no longer wanted.`,
        ),
      ];
};

/** What the registry pass says of each image: which it checked, which are pinned, which failed (I13, I15). */
export const resolutionLines = (c: TickConfig, resolutions: readonly ImageResolution[]): TickEvent[] =>
  resolutions.flatMap((r): TickEvent[] => {
    const image = imageOf(c.topology, r.image);
    const checking = checkingImage(image);
    if (r._tag === 'NotAsked') return [];
    if (r._tag === 'Pinned') return [checking, imagePinned(image)];
    if (r._tag === 'Unresolved') return [checking, resolveFailed(image, r.error)];
    return [checking];
  });

/**
 * MIRROR_MODE=follow-upstream (§3.3): each image whose changed digest the
 * mirror has not served waits (a WARN naming the mirror); one the mirror
 * served as another digest is a finding, never a pin.
 */
export const mirrorLines = (c: TickConfig, resolutions: readonly ImageResolution[]): TickEvent[] =>
  resolutions.flatMap((r): TickEvent[] => {
    if (r._tag !== 'Unresolved' || r.unservedBy === undefined) return [];
    const { repo } = imageOf(c.topology, r.image);
    const { mirror, digest, answered } = r.unservedBy;
    return answered === undefined
      ? [
          event(
            'warn',
            'MIRROR_NOT_SERVING',
            `WARN: mirror ${mirror} has not served ${repo}@${digest} yet (${describePortError(r.error)}); ${repo} waits: not re-imaged, not recorded, no attempt spent`,
            [`asking ${mirror}/${repo}@${digest} makes a pull-through cache fetch it; the next tick asks again`],
          ),
        ]
      : [
          event(
            'error',
            'MIRROR_MISMATCH',
            `ERROR: MIRROR MISMATCH: mirror ${mirror} answered ${answered} for ${repo}@${digest}, the digest the upstream tag names; it is never pinned`,
            [`check what ${mirror} serves for ${repo}: a mirror must serve the upstream's digests unchanged`],
          ),
        ];
  });

/** `shop/web, shop/log`: the images the registry did not answer, by repository. */
const silentRepositories = (c: TickConfig, silent: readonly SilentImage[], streak: number): string =>
  silent
    .map((s) => {
      const { repo } = imageOf(c.topology, s.image);
      return s.unservedBy === undefined
        ? repo
        : `${repo} (mirror ${s.unservedBy.mirror} has not served ${s.unservedBy.digest} for ${streak} ticks)`;
    })
    .join(', ');

/** The registry's silence this tick, counted on the gate (I46): a WARN below the ceiling, REGISTRY UNREACHABLE at it. */
export const registrySilence = (c: TickConfig, silence: RegistrySilence): TickEvent[] => {
  if (silence._tag !== 'Silent') return [];
  const last = silence.silent.at(-1);
  const cause = last === undefined ? '' : describePortError(last.error);
  const key = c.topology.keys.resolveFailureStreak;
  return silence.unreachable
    ? [
        event(
          'error',
          'REGISTRY_UNREACHABLE',
          `ERROR: REGISTRY UNREACHABLE for ${silence.streak} ticks: ${silentRepositories(c, silence.silent, silence.streak)} — ${cause}`,
          [
            `no digest of ${silence.silent.length === 1 ? 'this image' : 'these images'} has been read for ${silence.streak} ticks in a row (>= MAX_RESOLVE_FAILURE_TICKS=${silence.max}), so ${silence.silent.length === 1 ? 'it' : 'they'} cannot be refreshed: check the registry, the network path to it and its credentials`,
            `${key} is removed by the first tick in which every image answers; MAX_RESOLVE_FAILURE_TICKS=off says nothing, as the script did`,
          ],
        ),
      ]
    : [
        event(
          'warn',
          'REGISTRY_SILENT',
          `WARN: the registry did not answer for ${silentRepositories(c, silence.silent, silence.streak)} -- tick ${silence.streak}/${silence.max} in a row (${key}); at ${silence.max}: REGISTRY UNREACHABLE, exit 1`,
        ),
      ];
};

export const registryAnswering = (c: TickConfig, after: number): TickEvent =>
  event(
    'info',
    'REGISTRY_ANSWERING',
    `the registry answered every image again after ${after} tick(s) without -- clearing ${c.topology.keys.resolveFailureStreak}`,
  );

export const resolveFailureStreakWriteFailed = (c: TickConfig, streak: number, e: PortError): TickEvent =>
  event(
    'error',
    'RESOLVE_FAILURE_STREAK_WRITE_FAILED',
    `ERROR: could not persist ${c.topology.keys.resolveFailureStreak}=${streak} on ${gate(c)} (${describePortError(e)}); failing the tick rather than let the registry's silence go uncounted.`,
  );

export const resolveFailureStreakClearFailed = (c: TickConfig, e: PortError): TickEvent =>
  event(
    'warn',
    'RESOLVE_FAILURE_STREAK_CLEAR_FAILED',
    `WARNING: could not remove ${c.topology.keys.resolveFailureStreak} from ${gate(c)} (${describePortError(e)}); a stale streak only makes the next silence reach its ceiling sooner.`,
  );
