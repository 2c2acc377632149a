import * as O from 'fp-ts/lib/Option.js';
import type { Topology } from '../config/profile/topology.js';
import { type AnsweredDigest, answeredDigests, type Holds, withHold } from './admission.js';
import { type RecordedDigests, recordOf } from './bookkeeping.js';
import { type Digest, isWellFormedDigest } from './digest.js';
import { type FleetHalt, haltKeyOf, isHaltedDigest, pinOf } from './fleet-halt.js';
import { type HaltReading, haltInForce, isHaltUnverified } from './fleet-halt-reading.js';
import type { ImageResolution } from './plan.js';
import { imageOf } from './workloads.js';

// docs/behaviour.md §3.4b, the first admission check: what a verified,
// unexpired halt does to this tick's answers. A changed or first-observed
// digest it names is held (no set image moves a container to it, no record
// names it: I36); an image whose recorded digest — what its containers run
// (I7) — it names is sent back to the halt's pin for that repository, if it
// gives one: a re-image like any other, the pin in place of the tag's answer
// for every check after this one (its signature is checked under the
// configured trust, its attempt counted, it is recorded after its rollout,
// rolled back under `revert`: I38). A halt that could not be verified holds
// every answer (I37). Pure: the machine asks once.

/** One image sent back to the halt's pin: from the halted digest it runs (its record) to the pin. */
export interface HaltPin {
  readonly image: string;
  readonly from: Digest;
  readonly to: Digest;
}

export type HaltPins = Readonly<Partial<Record<string, HaltPin>>>;

export const NO_HALT_PINS: HaltPins = {};

/** What the halt decided of this tick's answers, with the reason each line words. */
export interface HaltAdmission {
  /** The holds so far, plus one `Halted` per answer the halt names. */
  readonly holds: Holds;
  /** The images sent back to the pin. */
  readonly pins: HaltPins;
  /** The answers held: a halted digest the tag answers (changed, or first observed). */
  readonly halted: readonly AnsweredDigest[];
  /** Images that run a halted digest (their record) and stay on it: the halt names no pin for them. */
  readonly stranded: readonly { readonly image: string; readonly digest: Digest }[];
  /** The halt's reason, for the lines. */
  readonly reason: string;
}

/** The recorded digest of an image, if it is one (I19): a malformed record names nothing the halt could halt. */
const recordedDigest = (recorded: RecordedDigests, image: string): Digest | undefined =>
  O.toUndefined(O.filter(isWellFormedDigest)(recordOf(recorded, image)));

/**
 * The halt's verdict on each resolved image no earlier check held (docs/behaviour.md §3.4b):
 * sent back to its pin where it runs a halted digest and the halt names one;
 * otherwise held where the tag answers a halted digest; left alone otherwise.
 */
export const admitByFleetHalt = (
  topology: Topology,
  resolutions: readonly ImageResolution[],
  recorded: RecordedDigests,
  holds: Holds,
  halt: FleetHalt,
): HaltAdmission => {
  const halted = answeredDigests(resolutions, recorded, holds).filter((a) =>
    isHaltedDigest(halt, haltKeyOf(imageOf(topology, a.image)), a.to),
  );
  const pins: Partial<Record<string, HaltPin>> = {};
  const stranded: { image: string; digest: Digest }[] = [];
  for (const resolution of resolutions) {
    if (resolution._tag !== 'Resolved' || holds[resolution.image] !== undefined) continue;
    const { image } = resolution;
    const runs = recordedDigest(recorded, image);
    const repo = haltKeyOf(imageOf(topology, image));
    if (runs === undefined || !isHaltedDigest(halt, repo, runs)) continue;
    const pin = pinOf(halt, repo);
    if (pin !== undefined) pins[image] = { image, from: runs, to: pin };
    // Without a pin it stays where it is, unless the tag answers a build the halt lets through
    // (the build it runs is halted: an unchanged answer is too).
    else if (isHaltedDigest(halt, repo, resolution.digest)) stranded.push({ image, digest: runs });
  }
  const held = halted.filter((a) => pins[a.image] === undefined);
  return {
    holds: held.reduce(
      (acc, a) => withHold(acc, { _tag: 'Halted', image: a.image, digest: a.to, reason: halt.reason }),
      holds,
    ),
    pins,
    halted: held,
    stranded,
    reason: halt.reason,
  };
};

/** The halt's verdict when one is in force at `nowMs` (admitByFleetHalt); the holds untouched otherwise. */
export const admitUnderHalt = (
  topology: Topology,
  resolutions: readonly ImageResolution[],
  recorded: RecordedDigests,
  holds: Holds,
  reading: HaltReading,
  nowMs: number | undefined,
): HaltAdmission => {
  const halt = haltInForce(reading, nowMs);
  return halt === undefined
    ? { holds, pins: NO_HALT_PINS, halted: [], stranded: [], reason: '' }
    : admitByFleetHalt(topology, resolutions, recorded, holds, halt);
};

/**
 * A halt that could not be verified (I37): every changed or first-observed
 * answer is held — nothing moves, nothing is recorded this tick.
 */
export const holdEveryAnswer = (
  resolutions: readonly ImageResolution[],
  recorded: RecordedDigests,
  holds: Holds,
): Holds =>
  answeredDigests(resolutions, recorded, holds).reduce(
    (acc, a) => withHold(acc, { _tag: 'HaltUnverified', image: a.image, digest: a.to }),
    holds,
  );

/** The answers every later check and the plan judge: an image sent back carries its pin in place of the tag's digest. */
export const answersAfterHalt = (resolutions: readonly ImageResolution[], pins: HaltPins): readonly ImageResolution[] =>
  resolutions.map((resolution) => {
    const pin = pins[resolution.image];
    return resolution._tag === 'Resolved' && pin !== undefined ? { ...resolution, digest: pin.to } : resolution;
  });

/**
 * The changed digests the soak judges (docs/behaviour.md §3.4a step 2): a
 * pin is the halt's own decision, taken for the whole fleet at once, and is
 * not made to wait a ring's delay.
 */
export const withoutHaltPins = <C extends { readonly image: string }>(
  changes: readonly C[],
  pins: HaltPins,
): readonly C[] => changes.filter((change) => pins[change.image] === undefined);

/** What the plan needs of the halt: the halt in force (live re-pins and rollbacks never go to a digest it names), or none at all (unverified). */
export interface HaltScope {
  readonly inForce: FleetHalt | undefined;
  /** The halt could not be verified: no re-image of any kind this tick (I37). */
  readonly stopsEveryReimage: boolean;
}

/** What the plan needs of this tick's reading of the halt. */
export const haltScopeOf = (reading: HaltReading, nowMs: number | undefined): HaltScope => ({
  inForce: haltInForce(reading, nowMs),
  stopsEveryReimage: isHaltUnverified(reading),
});

/** `digest` is a digest of `image` the halt in force names: no set image may move a container to it (I36). */
export const isHaltedFor = (topology: Topology, halt: FleetHalt | undefined, image: string, digest: string): boolean =>
  halt !== undefined && isHaltedDigest(halt, haltKeyOf(imageOf(topology, image)), digest);
