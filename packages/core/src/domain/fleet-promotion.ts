import * as E from 'fp-ts/lib/Either.js';
import { MAX_PROMOTION_RING } from '../config/fleet-promotion-config.js';
import { type Digest, isWellFormedDigest } from './digest.js';
import { CONTROL_CHARACTERS, isObject, parseVersionOne, RFC_3339, unknownFields } from './strict-document.js';

// The fleet promotion (docs/fleet-promotion.md): one signed document,
// published to the registry under FLEET_PROMOTION_REF, that lists which
// digest of which image the canaries' evidence let through to which ring.
// `image-refresh promote` writes it from what Prometheus holds of the
// canaries; an edge of ring R ≥ 1 reads it, verified as the fleet halt is,
// and acts on a changed digest only when an unexpired entry names it for
// ring R or a higher one (a promotion to ring N opens rings 1..N). This
// module reads, queries and writes the document; it does no I/O and reads
// no clock: `now` is given.
//
// The document is strict, as the halt is: a field it does not know, a
// version it does not speak, a malformed digest, a missing or far-off
// expiry — each is a document that does not parse, and a promotion that
// does not parse holds every change back (fail closed).

/** The document's media type: the layer an `oras push` of the file carries, and the artifact type. */
export const FLEET_PROMOTION_MEDIA_TYPE = 'application/vnd.image-refresh.fleet-promotion.v1+json';

/** A promotion may stand at most 30 days: evidence ages, and a forgotten promotion must not open rings forever. */
export const MAX_PROMOTION_MS = 30 * 24 * 60 * 60 * 1_000;

/** At most this many bytes of document are read: the adapter stops reading past it. */
export const MAX_PROMOTION_BYTES = 16 * 1_024;

export { MAX_PROMOTION_RING };

const MAX_EVIDENCE = 512;
const MAX_IMAGE = 63;

/** One promotion: this digest of this image may be acted on by rings 1..`ring`, until `expires`. */
export interface Promotion {
  /** The image's name as the edges' profile and metrics name it (`web`). */
  readonly image: string;
  readonly digest: Digest;
  /** The highest ring it opens (≥ 1): a promotion to ring N opens rings 1..N. */
  readonly ring: number;
  /** As the document wrote it (RFC 3339). */
  readonly expires: string;
  readonly expiresAtMs: number;
  /** What the verdict was made on, in a line (`promote` writes it): shown by `status`, never judged. */
  readonly evidence: string;
}

/** A promotion document that parsed: every promotion in it, in its order. */
export interface FleetPromotion {
  readonly promotions: readonly Promotion[];
}

const TOP_LEVEL = new Set(['version', 'promotions']);
const PER_PROMOTION = new Set(['image', 'digest', 'ring', 'expires', 'evidence']);
/** An image name as a profile declares it (DNS-1123 label). */
const IMAGE_NAME = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

const promotionAt = (index: number, value: unknown, nowMs: number): E.Either<string, Promotion> => {
  const at = `promotions[${index}]`;
  if (!isObject(value)) return E.left(`${at} is not an object`);
  const unknown = unknownFields(value, PER_PROMOTION);
  if (unknown.length > 0) return E.left(`${at} has unknown field(s) ${unknown.join(', ')}`);
  const { image, digest, ring, expires, evidence } = value;
  if (typeof image !== 'string' || image.length > MAX_IMAGE || !IMAGE_NAME.test(image))
    return E.left(`${at}.image is not an image name (a DNS-1123 label, as the profile declares it)`);
  if (typeof digest !== 'string' || !isWellFormedDigest(digest))
    return E.left(`${at}.digest is not a well-formed digest`);
  if (typeof ring !== 'number' || !Number.isInteger(ring) || ring < 1 || ring > MAX_PROMOTION_RING)
    return E.left(`${at}.ring must be a whole number from 1 to ${MAX_PROMOTION_RING} (ring 0 needs no promotion)`);
  if (typeof expires !== 'string' || !RFC_3339.test(expires) || !Number.isFinite(Date.parse(expires)))
    return E.left(`${at}.expires is not an RFC 3339 time`);
  const expiresAtMs = Date.parse(expires);
  if (expiresAtMs - nowMs > MAX_PROMOTION_MS) return E.left(`${at}.expires ${expires} is more than 30 days ahead`);
  if (typeof evidence !== 'string' || evidence.length > MAX_EVIDENCE || CONTROL_CHARACTERS.test(evidence))
    return E.left(`${at}.evidence must be a line of at most ${MAX_EVIDENCE} characters without control characters`);
  return E.right({ image, digest, ring, expires, expiresAtMs, evidence });
};

/**
 * The promotion document read and checked, or why it is not one. `nowMs` is
 * the reader's clock: an expiry more than 30 days after it is refused. An
 * expiry already past parses: that entry opens nothing ({@link promotedRing}).
 */
export const parseFleetPromotion = (text: string, nowMs: number): E.Either<string, FleetPromotion> => {
  const parsed = parseVersionOne(text, TOP_LEVEL);
  if (E.isLeft(parsed)) return parsed;
  const document = parsed.right;
  if (!Array.isArray(document.promotions)) return E.left('promotions is not a list');
  const promotions: Promotion[] = [];
  for (const [index, value] of document.promotions.entries()) {
    const promotion = promotionAt(index, value, nowMs);
    if (E.isLeft(promotion)) return promotion;
    const twin = promotions.findIndex((p) => p.image === promotion.right.image && p.digest === promotion.right.digest);
    if (twin >= 0)
      return E.left(
        `promotions[${index}] names ${promotion.right.image}@${digestText(promotion.right.digest)} again (promotions[${twin}])`,
      );
    promotions.push(promotion.right);
  }
  return E.right({ promotions });
};

const digestText = (digest: string): string => digest.slice(0, 19);

/**
 * The highest ring an unexpired promotion at `nowMs` opens for `image@digest`;
 * 0 when none does (nothing beyond the canaries may act on it).
 */
export const promotedRing = (promotion: FleetPromotion, image: string, digest: string, nowMs: number): number =>
  promotion.promotions.reduce(
    (highest, p) =>
      p.image === image && p.digest === digest && nowMs < p.expiresAtMs ? Math.max(highest, p.ring) : highest,
    0,
  );

/**
 * May an edge of `ring` act on `image@digest` at `nowMs`? Ring 0 always may
 * (it makes the evidence): the ring opened is never below 0.
 */
export const isPromotedFor = (
  promotion: FleetPromotion,
  image: string,
  digest: string,
  ring: number,
  nowMs: number,
): boolean => promotedRing(promotion, image, digest, nowMs) >= ring;

/** One entry as `image-refresh promote` writes it, before it is checked: parse the rendered text to check it. */
export interface PromotionDraft {
  readonly image: string;
  readonly digest: string;
  readonly ring: number;
  readonly expires: string;
  readonly evidence: string;
}

/**
 * The promotions a new verdict leaves: `previous`'s (the published document)
 * less the expired ones at `nowMs` and less any earlier entry for the same
 * image and digest, then `entry` — so promoting image B keeps image A's entry,
 * and promoting a digest again replaces its ring and expiry.
 */
export const withPromotion = (
  previous: readonly PromotionDraft[],
  entry: PromotionDraft,
  nowMs: number,
): readonly PromotionDraft[] => [
  ...previous.filter((p) => Date.parse(p.expires) > nowMs && !(p.image === entry.image && p.digest === entry.digest)),
  entry,
];

/** The document, as `image-refresh promote --out` writes it: stable key order, one trailing newline. */
export const renderFleetPromotion = (promotions: readonly PromotionDraft[]): string =>
  `${JSON.stringify(
    {
      version: 1,
      promotions: promotions.map((p) => ({
        image: p.image,
        digest: p.digest,
        ring: p.ring,
        expires: p.expires,
        evidence: p.evidence,
      })),
    },
    null,
    2,
  )}\n`;
