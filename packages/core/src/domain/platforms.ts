import type { Either } from 'fp-ts/lib/Either.js';
import type { Topology } from '../config/profile/topology.js';
import { type Holds, unheldVerdicts, withHold } from './admission.js';
import type { RecordedDigests } from './bookkeeping.js';
import { type Digest, isWellFormedDigest } from './digest.js';
import type { ImageResolution } from './plan.js';
import { describePortError, type RegistryError } from './port-error.js';
import { imageOf } from './workloads.js';

// docs/behaviour.md §3.4a step 4 (PLATFORM_CHECK): a tag re-pushed for one
// architecture turns every edge of another into `exec format error`. Before a
// changed digest is admitted, the platforms it provides are compared with the
// recorded digest's: it must provide every one of them (a single-platform
// image: the same one). What cannot be read is not admitted (fail closed).

/** One platform of an image, as an OCI index or an image config names it. */
export interface Platform {
  readonly os: string;
  readonly architecture: string;
  readonly variant?: string;
}

/**
 * What the platform port found a digest to provide: the platforms of an
 * index's manifests, or of a single image's config; or why the manifest holds
 * no answer (an unknown media type, a manifest too large, a config missing).
 */
export type PlatformAnswer =
  | { readonly _tag: 'Platforms'; readonly platforms: readonly Platform[] }
  | { readonly _tag: 'Unreadable'; readonly why: string };

/** `linux/arm64`, `linux/arm/v7`: how an operator names a platform (and `docker buildx --platform` takes one). */
export const platformName = (p: Platform): string =>
  `${p.os}/${p.architecture}${p.variant === undefined || p.variant === '' ? '' : `/${p.variant}`}`;

const ARCH_ALIASES: Readonly<Record<string, string>> = { aarch64: 'arm64', x86_64: 'amd64', 'x86-64': 'amd64' };

/**
 * containerd's normalisation (platforms.Normalize), so that two spellings of
 * one platform compare equal: `arm64/v8` is `arm64`, `amd64/v1` is `amd64`,
 * `arm` without a variant is `arm/v7`; names are lower case.
 */
export const normalizePlatform = (p: Platform): Platform => {
  const os = p.os.toLowerCase();
  const lower = p.architecture.toLowerCase();
  const architecture = ARCH_ALIASES[lower] ?? lower;
  const variant = (p.variant ?? '').toLowerCase();
  // The default variants: arm64's v8 and amd64's v1 are no variant (an empty one is none, below); arm's is v7.
  if (architecture === 'arm64' && variant === 'v8') return { os, architecture };
  if (architecture === 'amd64' && variant === 'v1') return { os, architecture };
  if (architecture === 'arm' && variant === '') return { os, architecture, variant: 'v7' };
  return variant === '' ? { os, architecture } : { os, architecture, variant };
};

/** buildx lists its attestation manifests as `unknown/unknown`: not a platform anything runs on. */
const isRunnable = (p: Platform): boolean => p.os !== 'unknown' && p.architecture !== 'unknown';

/** The distinct runnable platforms of a list, normalised, in order of first appearance. */
export const runnablePlatforms = (platforms: readonly Platform[]): readonly Platform[] => {
  const seen = new Set<string>();
  return platforms
    .map(normalizePlatform)
    .filter(isRunnable)
    .filter((p) => {
      const name = platformName(p);
      if (seen.has(name)) return false;
      seen.add(name);
      return true;
    });
};

/** The platforms `recorded` provides that `candidate` does not: what an edge on one of them would lose. */
export const lackingPlatforms = (
  recorded: readonly Platform[],
  candidate: readonly Platform[],
): readonly Platform[] => {
  const offered = new Set(runnablePlatforms(candidate).map(platformName));
  return runnablePlatforms(recorded).filter((p) => !offered.has(platformName(p)));
};

/** One changed digest the check asks about, with the recorded digest it is compared with. */
export interface PlatformSubject {
  readonly image: string;
  /** The registry host (`docker.io` for Docker Hub). */
  readonly host: string;
  readonly repo: string;
  /** The recorded digest (as recorded: a hand edit may have left something that is not a digest). */
  readonly from: string;
  readonly to: Digest;
}

/**
 * The changed digests to check this tick, in the images' order: every drift
 * no earlier admission check held back. A first observation has no recorded
 * digest to compare with and rolls no pod (I8): it is not checked.
 */
export const platformSubjects = (
  topology: Topology,
  resolutions: readonly ImageResolution[],
  recorded: RecordedDigests,
  holds: Holds,
): readonly PlatformSubject[] =>
  unheldVerdicts(resolutions, recorded, holds).flatMap((verdict): PlatformSubject[] => {
    if (verdict._tag !== 'Drift') return [];
    const { host, repo } = imageOf(topology, verdict.image);
    return [{ image: verdict.image, host, repo, from: verdict.from, to: verdict.to }];
  });

/** One manifest the check reads: the platform port's question. */
export interface PlatformTarget {
  /** The registry host (`docker.io` for Docker Hub). */
  readonly host: string;
  readonly repo: string;
  readonly digest: string;
}

/**
 * What the port is asked, in order: for each subject the new digest, then
 * the recorded one — unless the record is not a digest (nothing to ask).
 */
export const platformTargetsOf = (subjects: readonly PlatformSubject[]): readonly PlatformTarget[] =>
  subjects.flatMap(({ host, repo, from, to }) => [
    { host, repo, digest: to },
    ...(isWellFormedDigest(from) ? [{ host, repo, digest: from }] : []),
  ]);

/** A port answer for one target; undefined when the port gave none (fail closed). */
export type PlatformPortAnswer = Either<RegistryError, PlatformAnswer> | undefined;

/**
 * What the check says of one changed digest, with its reason: it `Provides`
 * every platform of the recorded digest (admitted), it `Lacks` some (refused:
 * a finding), or it is `Unchecked` — one of the two manifests could not be
 * read — and is held, fail closed, a WARN retried next tick.
 */
export type PlatformJudgement =
  | { readonly _tag: 'Provides'; readonly platforms: readonly Platform[] }
  | { readonly _tag: 'Lacks'; readonly lacking: readonly Platform[]; readonly provides: readonly Platform[] }
  | {
      readonly _tag: 'Unchecked';
      readonly why: string;
      /** The registry failure behind it, where one was: decides the Event reason (a 429 is `RateLimited`). */
      readonly cause?: RegistryError['_tag'];
    };

const NO_ANSWER = 'the platform port gave no answer for it';

/** Why a manifest's answer holds no platforms, or its platforms. */
const platformsOf = (
  answer: PlatformPortAnswer,
  which: string,
): { readonly platforms: readonly Platform[] } | { readonly why: string; readonly cause?: RegistryError['_tag'] } => {
  if (answer === undefined) return { why: `${which}: ${NO_ANSWER}` };
  if (answer._tag === 'Left') return { why: `${which}: ${describePortError(answer.left)}`, cause: answer.left._tag };
  if (answer.right._tag === 'Unreadable') return { why: `${which}: ${answer.right.why}` };
  const platforms = runnablePlatforms(answer.right.platforms);
  return platforms.length === 0 ? { why: `${which}: its manifest names no platform` } : { platforms };
};

/** Judge one changed digest from the answers for its new and its recorded manifest (docs/behaviour.md §3.4a step 4). */
export const judgePlatforms = (
  subject: PlatformSubject,
  fresh: PlatformPortAnswer,
  recorded: PlatformPortAnswer,
): PlatformJudgement => {
  const candidate = platformsOf(fresh, `the new manifest ${subject.to}`);
  if ('why' in candidate) return { _tag: 'Unchecked', ...candidate };
  if (!isWellFormedDigest(subject.from)) {
    return {
      _tag: 'Unchecked',
      why: `the recorded digest ${JSON.stringify(subject.from)} is not a digest: there is nothing to compare with`,
    };
  }
  const before = platformsOf(recorded, `the recorded manifest ${subject.from}`);
  if ('why' in before) return { _tag: 'Unchecked', ...before };
  const lacking = lackingPlatforms(before.platforms, candidate.platforms);
  return lacking.length === 0
    ? { _tag: 'Provides', platforms: candidate.platforms }
    : { _tag: 'Lacks', lacking, provides: candidate.platforms };
};

/** One subject with its judgement: what the lines word and the holds read. */
export type PlatformReport = PlatformSubject & { readonly judgement: PlatformJudgement };

/** Each subject judged from the answers, which come in {@link platformTargetsOf}'s order. */
export const platformReportsOf = (
  subjects: readonly PlatformSubject[],
  answerOf: (index: number) => PlatformPortAnswer,
): readonly PlatformReport[] => {
  let next = 0;
  return subjects.map((subject) => {
    const fresh = answerOf(next);
    next += 1;
    let recorded: PlatformPortAnswer;
    if (isWellFormedDigest(subject.from)) {
      recorded = answerOf(next);
      next += 1;
    }
    return { ...subject, judgement: judgePlatforms(subject, fresh, recorded) };
  });
};

/** Why a judged digest is held back, or undefined when it is admitted. */
const platformHoldOf = (
  judgement: PlatformJudgement,
): { readonly why: string; readonly check: 'Lacks' | 'Unchecked' } | undefined => {
  if (judgement._tag === 'Provides') return undefined;
  return judgement._tag === 'Lacks'
    ? { why: `lacks ${judgement.lacking.map(platformName).join(', ')}`, check: 'Lacks' }
    : { why: judgement.why, check: 'Unchecked' };
};

/** The holds the reports add: a digest that lacks a platform, or could not be checked, is not admitted. */
export const withPlatformHolds = (holds: Holds, reports: readonly PlatformReport[]): Holds =>
  reports.reduce((acc, { image, to, judgement }) => {
    const hold = platformHoldOf(judgement);
    return hold === undefined ? acc : withHold(acc, { _tag: 'PlatformMismatch', image, digest: to, ...hold });
  }, holds);
