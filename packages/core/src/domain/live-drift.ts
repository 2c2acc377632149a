import * as O from 'fp-ts/lib/Option.js';
import { parseImageReference, sameRepository } from '../config/profile/image-reference.js';
import type { TickConfig } from '../config/tick-config.js';
import { isQuarantinedDigest, type RecordedDigests, recordOf } from './bookkeeping.js';
import { type Digest, isWellFormedDigest } from './digest.js';
import { type FleetHalt, haltKeyOf, isHaltedDigest } from './fleet-halt.js';
import { pulledFrom } from './mirror.js';
import { imageOf, type LiveWorkload, type ManagedContainer } from './workloads.js';

// RECONCILE_LIVE (docs/behaviour.md §6, I23): the reference trusts its own
// annotation alone, so two things go unseen until the next upstream release
// (its header calls them known limitations): a `helm upgrade` re-rendering
// `repo:tag` over a pin, and a workload running another build of an image than
// the gate's. Here each managed container's live image is compared with the
// recorded digest.
//
// A container still on `repo:tag` is drift only if image-refresh pinned that
// image before (its pin marker says so): on a fresh install the tag is the
// first-tick contract (#569), not a revert, and must be left alone. A
// container on another digest of the same repository is drift either way. A
// container on another repository altogether was changed on purpose by
// someone; it is reported and never touched.

export type { ManagedContainer };

export type LiveFinding = ManagedContainer & {
  /** What runs now. */
  readonly live: string;
  /** The recorded digest it should run. */
  readonly recorded: Digest;
  /** Who last set the image, when managedFields says. */
  readonly owner: string | undefined;
  /**
   * - reverted: back on a tag after image-refresh pinned it (a Helm re-render);
   * - otherDigest: on another digest of the same repository (a hand edit, or
   *   one workload skewed from another running the same image);
   * - foreign: another repository, left alone.
   */
  readonly kind: 'reverted' | 'otherDigest' | 'foreign';
  /**
   * The recorded digest is the one quarantined for the image (a hand-edited
   * record): re-pinning would put the bad build back (I30), so it is reported
   * and never repaired.
   */
  readonly recordedQuarantined?: true;
  /**
   * The recorded digest is one the fleet halt in force names
   * (docs/behaviour.md §3.4b): re-pinning would move a container to it
   * (I36), so it is reported and never repaired.
   */
  readonly recordedHalted?: true;
};

/** The recorded digest of an image, if it is one (I19): a malformed record is no record. */
const recordedDigest = (recorded: RecordedDigests, image: string): Digest | undefined =>
  O.toUndefined(O.filter(isWellFormedDigest)(recordOf(recorded, image)));

/** The containers whose live image is not what image-refresh recorded, and why. */
export const liveFindings = (
  config: TickConfig,
  recorded: RecordedDigests,
  pins: RecordedDigests,
  live: Readonly<Record<string, LiveWorkload>>,
  quarantined: Partial<RecordedDigests> = {},
  halt?: FleetHalt,
): LiveFinding[] =>
  config.topology.managed.flatMap((managed): LiveFinding[] => {
    const expected = recordedDigest(recorded, managed.image);
    const running = live[managed.workload]?.images[managed.container];
    if (expected === undefined || running === undefined) return [];
    // Stryker disable next-line OptionalChaining: reached only when `running` was found in the workload's container
    const owner = live[managed.workload]?.imageOwners[managed.container];
    const parsed = parseImageReference(running);
    const followed = imageOf(config.topology, managed.image);
    const finding = (kind: LiveFinding['kind']): LiveFinding[] => [
      {
        ...managed,
        live: running,
        recorded: expected,
        owner,
        kind,
        ...(isQuarantinedDigest(quarantined, managed.image, expected) ? { recordedQuarantined: true } : {}),
        ...(halt !== undefined && isHaltedDigest(halt, haltKeyOf(followed), expected) ? { recordedHalted: true } : {}),
      },
    ];
    // Through the mirror the tick follows upstream through, the pods run <mirror>/<path> (§3.3).
    if (!sameRepository(parsed, { host: pulledFrom(config, followed), path: followed.repo })) return finding('foreign');
    if (parsed.digest !== undefined) return parsed.digest === expected ? [] : finding('otherDigest');
    return O.isSome(recordOf(pins, managed.image)) ? finding('reverted') : [];
  });

/** A finding image-refresh may repair: never another repository, never onto a quarantined (I30) or halted (I36) digest. */
export const isRepairable = (finding: LiveFinding): boolean =>
  finding.kind !== 'foreign' && finding.recordedQuarantined !== true && finding.recordedHalted !== true;
