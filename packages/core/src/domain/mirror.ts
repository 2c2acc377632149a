import type { Either } from 'fp-ts/lib/Either.js';
import * as O from 'fp-ts/lib/Option.js';
import type { ImageSpec } from '../config/profile/topology.js';
import type { TickConfig } from '../config/tick-config.js';
import { type RecordedDigests, recordOf } from './bookkeeping.js';
import type { Digest } from './digest.js';
import type { ImageResolution, MirrorMiss } from './plan.js';
import { describePortError, type RegistryError } from './port-error.js';
import type { DigestRequest, Resolution } from './registry-answer.js';
import { imageOf } from './workloads.js';

// Follow upstream, pull through the mirror (MIRROR_MODE=follow-upstream,
// docs/behaviour.md §3.3): each tag is resolved at its upstream registry;
// a digest that changed is then asked of the mirror by digest
// (`<mirror>/<path>@<digest>`, which makes a pull-through cache fetch it), and
// only a digest the mirror answered as it is may be pinned there. One the
// mirror has not served leaves its image unresolved this tick — no record, no
// re-image, a count on the registry silence streak (I46) — and a mirror that
// answers another digest for it is a finding.

/** Where the pods pull an image from: the mirror when the tick follows upstream through it, else its own registry. */
export const pulledFrom = (config: TickConfig, image: ImageSpec): string =>
  config.mirror?.followUpstream === true ? config.mirror.host : image.host;

/** The image a fresh install renders: through the mirror when there is one (the chart's IMAGE_REGISTRY), else its own. */
export const renderedHost = (config: TickConfig, image: ImageSpec): string => config.mirror?.host ?? image.host;

/** One digest the mirror is asked for, by the image it was resolved for. */
export interface MirrorQuestion {
  readonly image: string;
  readonly request: DigestRequest;
}

/**
 * What the mirror is asked this tick: each resolved digest that differs from
 * the record the gate held when the settled guard read it — a digest the tick
 * may pin. A first observation is recorded, not pinned: it is not asked, and a
 * steady tick asks the mirror nothing.
 */
export const mirrorQuestions = (
  config: TickConfig,
  resolutions: readonly ImageResolution[],
  recorded: RecordedDigests,
): readonly MirrorQuestion[] => {
  const mirror = config.mirror;
  if (mirror?.followUpstream !== true) return [];
  return resolutions.flatMap((r): MirrorQuestion[] => {
    if (r._tag !== 'Resolved') return [];
    const record = recordOf(recorded, r.image);
    if (O.isNone(record) || record.value === '' || record.value === r.digest) return [];
    const { repo } = imageOf(config.topology, r.image);
    return [{ image: r.image, request: { host: mirror.host, repo, tag: r.digest } }];
  });
};

/** How the mirror's answer for `digest` falls short, if it does: no answer, or another digest. */
const missOf = (
  mirror: string,
  digest: Digest,
  answer: Either<RegistryError, Resolution> | undefined,
): MirrorMiss | undefined => {
  if (answer === undefined || answer._tag === 'Left') return { mirror, digest };
  // Shown in lines and Events: at most a digest's length of whatever the mirror answered.
  return answer.right.digest === digest ? undefined : { mirror, digest, answered: answer.right.digest.slice(0, 100) };
};

const missError = (miss: MirrorMiss, answer: Either<RegistryError, Resolution> | undefined): RegistryError =>
  miss.answered !== undefined
    ? { _tag: 'Malformed', message: `mirror ${miss.mirror} answered ${miss.answered} for ${miss.digest}` }
    : {
        _tag: 'NotFound',
        message: `mirror ${miss.mirror} has not served ${miss.digest} (${answer?._tag === 'Left' ? describePortError(answer.left) : 'the registry port gave no answer'})`,
      };

/**
 * The resolutions once the mirror answered `questions` (one answer each, in
 * order; a missing one is a miss: fail closed): an image whose digest the
 * mirror did not serve as it is becomes unresolved, with the miss.
 */
export const servedThroughMirror = (
  resolutions: readonly ImageResolution[],
  questions: readonly MirrorQuestion[],
  answers: readonly (Either<RegistryError, Resolution> | undefined)[],
): ImageResolution[] =>
  resolutions.map((r) => {
    const index = questions.findIndex((q) => q.image === r.image);
    const question = questions[index];
    if (question === undefined || r._tag !== 'Resolved') return r;
    const answer = answers[index];
    const miss = missOf(question.request.host, r.digest, answer);
    return miss === undefined
      ? r
      : { _tag: 'Unresolved', image: r.image, error: missError(miss, answer), unservedBy: miss };
  });

/** The images whose mirror answered another digest than the upstream named: a finding (§3.3). */
export const mirrorMismatchesOf = (resolutions: readonly ImageResolution[]): readonly MirrorMiss[] =>
  resolutions.flatMap((r) => (r._tag === 'Unresolved' && r.unservedBy?.answered !== undefined ? [r.unservedBy] : []));
