import type { Either } from 'fp-ts/lib/Either.js';
import type { TickConfig } from '../config/tick-config.js';
import { isWellFormedDigest } from './digest.js';
import type { ImageResolution } from './plan.js';
import { malformed, type PortError, type RegistryError } from './port-error.js';
import { activePromotionOf } from './promotion-switch.js';
import type { DigestRequest, Resolution } from './registry-answer.js';
import { type ImageSpec, managedOf } from './workloads.js';

// docs/behaviour.md §3.3: which images a tick asks the registry about, and
// what each answer means for that image alone (I13, I15, I19).

/**
 * An image the tick follows on this edge: not pinned itself, and run by a
 * container whose workload is not pinned either (I13).
 */
const isFollowed = (config: TickConfig, image: ImageSpec): boolean =>
  !image.pinned && managedOf(config.topology, image.name).length > 0;

/**
 * The images a tick asks the registry about. A pinned image is not even
 * resolved (I13): it costs no registry request. In a decoupled pass
 * (DECOUPLED_REFRESH, unsettled gate) only the images a settled decoupled
 * workload runs — never one the gate alone runs (I24).
 */
export const imagesToResolve = (config: TickConfig, decoupledSettled?: readonly string[]): ImageSpec[] =>
  config.topology.images.filter(
    (image) =>
      isFollowed(config, image) &&
      (decoupledSettled === undefined ||
        managedOf(config.topology, image.name).some((m) => decoupledSettled.includes(m.workload))),
  );

export const unpinnedRequests = (config: TickConfig, decoupledSettled?: readonly string[]): DigestRequest[] =>
  imagesToResolve(config, decoupledSettled).map(({ host, repo, tag }) => ({ host, repo, tag }));

/**
 * The tick's one resolve batch: the unpinned images, then — with
 * FLEET_HALT_REF set — the halt's tag, last, so that it rides on the same
 * token where the realm is the same (docs/behaviour.md §3.4b). Unset, the
 * batch is the images alone (I35).
 */
export const resolveRequests = (config: TickConfig, decoupledSettled?: readonly string[]): DigestRequest[] => [
  ...unpinnedRequests(config, decoupledSettled),
  ...(config.fleetHalt === undefined
    ? []
    : [{ host: config.fleetHalt.host, repo: config.fleetHalt.repo, tag: config.fleetHalt.tag }]),
  // FLEET_PROMOTION_REF on an edge of ring ≥ 1 (docs/fleet-promotion.md): its tag after the halt's, in the same batch.
  ...promotionRequests(config),
];

const promotionRequests = (config: TickConfig): DigestRequest[] => {
  const promotion = activePromotionOf(config);
  return promotion === undefined ? [] : [{ host: promotion.host, repo: promotion.repo, tag: promotion.tag }];
};

/** The promotion tag's answer: the last of the batch (undefined when no promotion is read, or the port gave none). */
export const promotionAnswerOf = (
  config: TickConfig,
  answers: readonly Either<RegistryError, Resolution>[],
  decoupledSettled?: readonly string[],
): Either<RegistryError, Resolution> | undefined =>
  activePromotionOf(config) === undefined
    ? undefined
    : answers[imagesToResolve(config, decoupledSettled).length + (config.fleetHalt === undefined ? 0 : 1)];

/** The batch failed as a whole: the promotion tag is unread too, which holds every change back (fail closed). */
export const failedPromotionAnswer = (
  config: TickConfig,
  error: PortError,
): Either<RegistryError, Resolution> | undefined =>
  activePromotionOf(config) === undefined ? undefined : { _tag: 'Left', left: error };

/** The halt tag's answer: the one after the images' (undefined when FLEET_HALT_REF is unset, or the port gave none). */
export const haltAnswerOf = (
  config: TickConfig,
  answers: readonly Either<RegistryError, Resolution>[],
  decoupledSettled?: readonly string[],
): Either<RegistryError, Resolution> | undefined =>
  config.fleetHalt === undefined ? undefined : answers[imagesToResolve(config, decoupledSettled).length];

/**
 * Pair the registry's answers with the images asked for. A digest that is not
 * a well-formed OCI digest is a resolution failure (I19): it never reaches a
 * pod spec or an annotation. A missing answer is a failure too, never a skip.
 */
export const acceptResolutions = (
  config: TickConfig,
  answers: readonly Either<RegistryError, Resolution>[],
  decoupledSettled?: readonly string[],
): ImageResolution[] => {
  let next = 0;
  const asked = imagesToResolve(config, decoupledSettled);
  return config.topology.images.map((image): ImageResolution => {
    if (!isFollowed(config, image)) return { _tag: 'Pinned', image: image.name };
    if (!asked.includes(image)) return { _tag: 'NotAsked', image: image.name };
    const answer = answers[next++];
    if (answer === undefined) {
      return {
        _tag: 'Unresolved',
        image: image.name,
        error: malformed('the registry port gave no answer for this image'),
      };
    }
    if (answer._tag === 'Left') return { _tag: 'Unresolved', image: image.name, error: answer.left };
    const { digest, rateLimitRemaining } = answer.right;
    if (!isWellFormedDigest(digest)) {
      return {
        _tag: 'Unresolved',
        image: image.name,
        error: malformed(`the registry answered ${JSON.stringify(digest.slice(0, 100))}, which is not an OCI digest`),
      };
    }
    return { _tag: 'Resolved', image: image.name, digest, rateLimitRemaining };
  });
};

/**
 * The registry port failed as a whole (a defect of the port: it promises one
 * answer per repo): every image asked about is unresolved, each with that error.
 */
export const failedResolutions = (
  config: TickConfig,
  error: PortError,
  decoupledSettled?: readonly string[],
): ImageResolution[] =>
  acceptResolutions(
    config,
    unpinnedRequests(config, decoupledSettled).map(
      (): Either<RegistryError, Resolution> => ({ _tag: 'Left', left: error }),
    ),
    decoupledSettled,
  );

/** §3.3 — nothing resolved (all pinned or all failed): nothing to compare or record. */
export const isNothingResolved = (resolutions: readonly ImageResolution[]): boolean =>
  !resolutions.some((r) => r._tag === 'Resolved');

/** The batch failed as a whole (a defect of the port): the halt tag is unread too, which fails closed (I37). */
export const failedHaltAnswer = (
  config: TickConfig,
  error: PortError,
): Either<RegistryError, Resolution> | undefined =>
  config.fleetHalt === undefined ? undefined : { _tag: 'Left', left: error };

/** §3.3 — nothing resolved and no fleet halt to judge (FLEET_HALT_REF unset, §3.4b): nothing more to do. */
export const hasNothingToJudge = (config: TickConfig, resolutions: readonly ImageResolution[]): boolean =>
  isNothingResolved(resolutions) && config.fleetHalt === undefined;
