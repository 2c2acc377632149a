import type { TickOutcome } from '../../src/machine/tick-outcome.js';
import { runTick, type TickPorts } from '../../src/run-tick.js';
import type { HaltDocumentFault, RegistryFault, SignatureFault, SimCall, SimWorld } from '../../src/sim/index.js';
import { SIM_HALT_REPO, SIM_PROMOTION_TAG } from '../../src/sim/index.js';
import { SIM_EPOCH_MS } from '../../src/sim/sim-ports.js';
import { ANNOTATION, IMAGES } from '../support/chart.js';
import { setImagesOf } from './fleet-halt-truth.js';

// What the world says of the fleet promotion at one tick (docs/fleet-promotion.md,
// I49): which image@digest a verified, unexpired promotion opened to which
// ring. A tiny reference model, answered from what the test published (each
// promotion's entries as it wrote them, or garbage), what the trusted key
// signed, the faults armed on the promotion's tag, document and signature
// before the tick, and the instant the tick asked the tag — never from the
// machine's reading, its verdict or the document parser it uses.

/** One promotion entry as the test wrote it into a document. */
export interface PublishedEntry {
  readonly image: string;
  readonly digest: string;
  readonly ring: number;
  readonly expiresAtMs: number;
}

/** What the test published under one promotion artifact digest: entries, or a document that is not one. */
export type PublishedPromotion =
  | { readonly _tag: 'Entries'; readonly entries: readonly PublishedEntry[] }
  | {
      readonly _tag: 'Garbage';
    };

/**
 * What a human may write into the kept record by hand in these worlds:
 * nothing that parses as a promotion. (The gate's annotations are the edge's
 * own cache of what it verified; whoever can write them can re-image the
 * workloads directly, so a forged kept record is outside the model.)
 */
export const TAMPERED_KEPT_DOCUMENTS = ['{garbage', '{"version":1}'] as const;

/** The world just before a tick, as far as the promotion goes. */
export interface PromotionWorldBefore {
  readonly annotations: Readonly<Record<string, string>>;
  /** workload → container → image, before the tick. */
  readonly images: Readonly<Record<string, Readonly<Record<string, string>>>>;
  /** The artifact the promotion tag names, if any. */
  readonly promotionDigest: string | undefined;
  /** What the test published under it. */
  readonly published: PublishedPromotion | undefined;
  /** The trusted key signed that artifact. */
  readonly signed: boolean;
  readonly tagFault: RegistryFault | undefined;
  readonly documentFault: HaltDocumentFault | undefined;
  readonly signatureFault: SignatureFault | undefined;
  /** repo → the digest its followed tag names. */
  readonly registry: Readonly<Record<string, string | undefined>>;
}

export const promotionWorldOf = (
  world: SimWorld,
  published: ReadonlyMap<string, PublishedPromotion>,
): PromotionWorldBefore => {
  const promotionDigest = world.registry.get(`${SIM_HALT_REPO}:${SIM_PROMOTION_TAG}`);
  return {
    annotations: { ...world.annotations },
    images: Object.fromEntries(Object.values(world.workloads).map((w) => [w.id, { ...w.images }])),
    promotionDigest,
    published: promotionDigest === undefined ? undefined : published.get(promotionDigest),
    signed: promotionDigest !== undefined && world.signedDigests.has(`${SIM_HALT_REPO}@${promotionDigest}`),
    tagFault: world.armedRegistryFault(SIM_HALT_REPO),
    documentFault: world.armedHaltDocumentFault(),
    signatureFault: world.armedSignatureFault(SIM_HALT_REPO),
    registry: Object.fromEntries(
      IMAGES.map(({ repo }) => [repo, world.registry.get(`${repo}:${world.config.imageTag}`)]),
    ),
  };
};

/** The promotion as the world holds it for one tick. */
export type PromotionTruth =
  /** The tick never asked the promotion tag: nothing was verified, nothing is open. */
  | { readonly _tag: 'NotAsked' }
  /** The tag answers 404 (none published, or withdrawn). */
  | { readonly _tag: 'None' }
  /** The tag, its document or its signature cannot be verified this tick, or what it names is no promotion. */
  | { readonly _tag: 'Unverifiable'; readonly why: string }
  /** A signed promotion the tick could verify, its entries as published, judged at `atMs`. */
  | { readonly _tag: 'Verified'; readonly entries: readonly PublishedEntry[]; readonly atMs: number };

/** A tick, the world around it, and what the world says of its promotion. */
export interface PromotionTick {
  readonly before: PromotionWorldBefore;
  readonly afterAnnotations: Readonly<Record<string, string>>;
  readonly calls: readonly SimCall[];
  readonly outcome: TickOutcome;
  readonly truth: PromotionTruth;
}

/**
 * The promotion the world holds at this tick. Its expiry is judged at the
 * instant the tick asked the tag: the tick's own clock read comes later, so
 * anything expired by then is expired for the tick too.
 */
export const promotionTruthOf = (before: PromotionWorldBefore, calls: readonly SimCall[]): PromotionTruth => {
  const asked = calls.find((c) => c.op === 'resolveDigest' && c.detail === SIM_HALT_REPO);
  if (asked === undefined) return { _tag: 'NotAsked' };
  if (before.tagFault === 'NotFound') return { _tag: 'None' };
  if (before.tagFault !== undefined) return { _tag: 'Unverifiable', why: `the tag: ${before.tagFault}` };
  if (before.promotionDigest === undefined) return { _tag: 'None' };
  if (before.published === undefined || before.published._tag === 'Garbage')
    return { _tag: 'Unverifiable', why: 'not a promotion document' };
  if (!before.signed) return { _tag: 'Unverifiable', why: 'unsigned' };
  // The edge reads and checks the artifact unless it kept this very one, untouched, from an earlier tick.
  const keptDocument = before.annotations[ANNOTATION.fleetPromotionDocument];
  const kept =
    before.annotations[ANNOTATION.fleetPromotionDigest] === before.promotionDigest &&
    keptDocument !== undefined &&
    !(TAMPERED_KEPT_DOCUMENTS as readonly string[]).includes(keptDocument);
  if (!kept && before.documentFault !== undefined)
    return { _tag: 'Unverifiable', why: `the document: ${before.documentFault}` };
  if (!kept && before.signatureFault !== undefined)
    return { _tag: 'Unverifiable', why: `the signature: ${before.signatureFault}` };
  return { _tag: 'Verified', entries: before.published.entries, atMs: SIM_EPOCH_MS + asked.at };
};

/** Does the world's promotion open `image@digest` to `ring` at this tick? */
export const isOpenedFor = (truth: PromotionTruth, image: string, digest: string, ring: number): boolean =>
  truth._tag === 'Verified' &&
  truth.entries.some((e) => e.image === image && e.digest === digest && e.ring >= ring && truth.atMs < e.expiresAtMs);

/** How an image@digest is spelled in the sets {@link openedAt} answers. */
export const openedKey = (image: string, digest: string): string => `${image}@${digest}`;

/**
 * Every image@digest the world's promotion opens to `ring` at this tick, its
 * expiry judged at the instant this tick verified it. A world keeps the union
 * over its ticks: what a promotion once opened may be the record a live
 * re-pin or a rollback goes back to after that promotion was replaced or
 * expired (docs/fleet-promotion.md, "The gate on the edges"; I49).
 */
export const openedAt = (truth: PromotionTruth, ring: number): readonly string[] =>
  truth._tag === 'Verified'
    ? truth.entries.filter((e) => e.ring >= ring && truth.atMs < e.expiresAtMs).map((e) => openedKey(e.image, e.digest))
    : [];

/** Run one tick and record it with the world's verdict on its promotion. */
export const recordPromotionTick = async (
  world: SimWorld,
  ports: TickPorts,
  published: ReadonlyMap<string, PublishedPromotion>,
): Promise<PromotionTick> => {
  const before = promotionWorldOf(world, published);
  const first = world.calls.length;
  const outcome = await runTick(world.config, ports);
  const calls = world.calls.slice(first);
  return { before, afterAnnotations: { ...world.annotations }, calls, outcome, truth: promotionTruthOf(before, calls) };
};

/** The repository and digest of an image reference, where it names a digest (`repo:tag` names none). */
export const digestRefOf = (ref: string): { readonly repo: string; readonly digest: string } | undefined => {
  const at = ref.indexOf('@');
  return at < 0 ? undefined : { repo: ref.slice(0, at).replace(/^docker\.io\//, ''), digest: ref.slice(at + 1) };
};

/** The digests of `repo` the containers run before the tick (a container on `repo:tag` names none). */
export const runningDigestsOf = (t: PromotionTick, repo: string): readonly string[] =>
  Object.values(t.before.images).flatMap((containers) =>
    Object.values(containers).flatMap((ref) => {
      const pinned = digestRefOf(ref);
      return pinned?.repo === repo ? [pinned.digest] : [];
    }),
  );

/**
 * Every set image of the tick that moves a container to a digest other than
 * the one it ran when the tick began: a change, and also a live re-pin or a
 * rollback to the image's recorded digest (`toRecord`) — a record is no
 * exemption (docs/fleet-promotion.md, "The gate on the edges"; I49).
 */
export const movesOf = (t: PromotionTick) =>
  setImagesOf(t.calls).flatMap((set) =>
    set.images.flatMap((i) => {
      const image = IMAGES.find((x) => x.repo === i.repo);
      if (image === undefined) return [];
      const ran = t.before.images[set.workload]?.[i.container];
      const ranPinned = ran === undefined ? undefined : digestRefOf(ran);
      return ran === i.image || (ranPinned?.repo === i.repo && ranPinned.digest === i.digest)
        ? []
        : [
            {
              workload: set.workload,
              container: i.container,
              image: image.name,
              digest: i.digest,
              ref: i.image,
              ran,
              toRecord: i.digest === t.before.annotations[image.recordKey],
            },
          ];
    }),
  );
