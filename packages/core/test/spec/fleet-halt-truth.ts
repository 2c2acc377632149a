import * as O from 'fp-ts/lib/Option.js';
import { counterValue } from '../../src/domain/counter.js';
import { type FleetHalt, isHaltedDigest, parseFleetHalt, pinOf } from '../../src/domain/fleet-halt.js';
import type { ImageSpec } from '../../src/domain/workloads.js';
import type { TickOutcome } from '../../src/machine/tick-outcome.js';
import { runTick, type TickPorts } from '../../src/run-tick.js';
import type { HaltDocumentFault, RegistryFault, SignatureFault, SimCall, SimWorld } from '../../src/sim/index.js';
import { SIM_HALT_REPO, SIM_HALT_TAG } from '../../src/sim/index.js';
import { SIM_EPOCH_MS } from '../../src/sim/sim-ports.js';
import { ANNOTATION, IMAGES } from '../support/chart.js';

// What the world says of the fleet halt at one tick (docs/behaviour.md
// §3.4b, I36–I39): read from the registry, the bookkeeping and the armed
// faults before the tick and from the calls it made — never from the
// machine's account of itself. A tiny reference model: the halt tag's
// answer, the document behind it, whether the trusted key signed it, and the
// clock the tick read.

/** The world just before a tick, as far as the halt goes. */
export interface HaltWorldBefore {
  readonly annotations: Readonly<Record<string, string>>;
  /** What the halt tag names, if anything. */
  readonly haltDigest: string | undefined;
  readonly haltDocument: string | undefined;
  readonly haltSigned: boolean;
  readonly tagFault: RegistryFault | undefined;
  readonly documentFault: HaltDocumentFault | undefined;
  readonly signatureFault: SignatureFault | undefined;
  /** repo → the digest its tag names. */
  readonly registry: Readonly<Record<string, string | undefined>>;
  /** `repo@digest` the trusted key signed. */
  readonly signed: ReadonlySet<string>;
}

export const haltWorldOf = (world: SimWorld): HaltWorldBefore => {
  const haltDigest = world.registry.get(`${SIM_HALT_REPO}:${SIM_HALT_TAG}`);
  return {
    annotations: { ...world.annotations },
    haltDigest,
    haltDocument: haltDigest === undefined ? undefined : world.haltDocuments.get(haltDigest),
    haltSigned: haltDigest !== undefined && world.signedDigests.has(`${SIM_HALT_REPO}@${haltDigest}`),
    tagFault: world.armedRegistryFault(SIM_HALT_REPO),
    documentFault: world.armedHaltDocumentFault(),
    signatureFault: world.armedSignatureFault(SIM_HALT_REPO),
    registry: Object.fromEntries(
      IMAGES.map(({ repo }) => [repo, world.registry.get(`${repo}:${world.config.imageTag}`)]),
    ),
    signed: new Set(world.signedDigests),
  };
};

/** The halt as the world holds it for this tick. */
export type HaltTruth =
  /** The tick never asked the halt tag (it ended before the registry pass). */
  | { readonly _tag: 'NotAsked' }
  /** 404: no halt. */
  | { readonly _tag: 'None' }
  /** The tag, its document or its signature cannot be verified this tick. */
  | { readonly _tag: 'Unverifiable'; readonly why: string }
  /** Verified: `kept` when this edge had verified this very digest before (its document kept beside it). */
  | {
      readonly _tag: 'Verified';
      readonly halt: FleetHalt;
      readonly inForce: boolean;
      readonly kept: boolean;
    };

/** A tick, the world around it, and what the world says of its halt. */
export interface HaltTick {
  readonly before: HaltWorldBefore;
  readonly afterAnnotations: Readonly<Record<string, string>>;
  /** workload → container → image, after the tick. */
  readonly afterImages: Readonly<Record<string, Readonly<Record<string, string>>>>;
  readonly calls: readonly SimCall[];
  readonly outcome: TickOutcome;
  readonly truth: HaltTruth;
  readonly nowMs: number | undefined;
}

const parse = (text: string | undefined, nowMs: number) =>
  text === undefined ? undefined : O.toUndefined(O.fromEither(parseFleetHalt(text, nowMs)));

/** The halt the world holds at this tick, judged at the clock the tick read. */
export const haltTruthOf = (
  before: HaltWorldBefore,
  calls: readonly SimCall[],
): { truth: HaltTruth; nowMs?: number | undefined } => {
  const asked = calls.findIndex((c) => c.op === 'resolveDigest' && c.detail === SIM_HALT_REPO);
  if (asked < 0) return { truth: { _tag: 'NotAsked' } };
  const clock = calls.slice(asked).find((c) => c.op === 'readClock');
  const nowMs = clock === undefined ? undefined : SIM_EPOCH_MS + clock.at;
  const unverifiable = (why: string) => ({ truth: { _tag: 'Unverifiable', why } as HaltTruth, nowMs });
  if (before.tagFault === 'Garbage') return unverifiable('the tag answered garbage');
  if (before.tagFault !== undefined && before.tagFault !== 'NotFound')
    return unverifiable(`the tag: ${before.tagFault}`);
  if (before.tagFault === 'NotFound' || before.haltDigest === undefined) return { truth: { _tag: 'None' }, nowMs };
  if (nowMs === undefined) return unverifiable('no clock');
  const keptHalt =
    before.annotations[ANNOTATION.fleetHaltDigest] === before.haltDigest
      ? parse(before.annotations[ANNOTATION.fleetHaltDocument], nowMs)
      : undefined;
  if (keptHalt !== undefined) {
    return { truth: { _tag: 'Verified', halt: keptHalt, inForce: nowMs < keptHalt.expiresAtMs, kept: true }, nowMs };
  }
  if (before.documentFault !== undefined) return unverifiable(`the document: ${before.documentFault}`);
  const halt = parse(before.haltDocument, nowMs);
  if (halt === undefined) return unverifiable('the document does not parse');
  if (before.signatureFault !== undefined) return unverifiable(`the signature: ${before.signatureFault}`);
  if (!before.haltSigned) return unverifiable('unsigned');
  return { truth: { _tag: 'Verified', halt, inForce: nowMs < halt.expiresAtMs, kept: false }, nowMs };
};

/** Run one tick and record it with the world's verdict on its halt. */
export const recordHaltTick = async (world: SimWorld, ports: TickPorts): Promise<HaltTick> => {
  const before = haltWorldOf(world);
  const first = world.calls.length;
  const outcome = await runTick(world.config, ports);
  const calls = world.calls.slice(first);
  const { truth, nowMs } = haltTruthOf(before, calls);
  const afterImages = Object.fromEntries(Object.values(world.workloads).map((w) => [w.id, { ...w.images }]));
  return { before, afterAnnotations: { ...world.annotations }, afterImages, calls, outcome, truth, nowMs };
};

/** `setImages` calls as workload and `container → image`. */
export const setImagesOf = (calls: readonly SimCall[]) =>
  calls.flatMap((c, index) => {
    if (c.op !== 'setImages') return [];
    const [workload = '', ...pairs] = c.detail.split(' ');
    return [
      {
        index,
        workload,
        outcome: c.outcome,
        images: pairs.map((p) => {
          const [container = '', image = ''] = p.split('=');
          const at = image.indexOf('@');
          const repo = image.slice(0, at).replace(/^docker\.io\//, '');
          return { container, image, repo, digest: image.slice(at + 1) };
        }),
      },
    ];
  });

/** The halt in force at this tick, by the world's account. */
export const inForce = (t: HaltTick): FleetHalt | undefined =>
  t.truth._tag === 'Verified' && t.truth.inForce ? t.truth.halt : undefined;

/** The image whose repository this is. */
export const imageOfRepo = (repo: string): ImageSpec | undefined => IMAGES.find((i) => i.repo === repo);

/** The images whose recorded digest the halt names, with a pin to go to. */
export const pinnedBack = (t: HaltTick, halt: FleetHalt) =>
  IMAGES.flatMap((image) => {
    const recorded = t.before.annotations[image.recordKey];
    const pin = pinOf(halt, image.repo);
    return recorded !== undefined && pin !== undefined && isHaltedDigest(halt, image.repo, recorded)
      ? [{ image, recorded, pin }]
      : [];
  });

export const attemptBefore = (t: HaltTick): number =>
  counterValue(O.fromNullable(t.before.annotations[ANNOTATION.refreshAttempt]));

/** Every rollout of the tick completed: a wait after each set image, none failed. */
export const everyRolloutCompleted = (calls: readonly SimCall[]): boolean =>
  !calls.some((c) => (c.op === 'waitForRollout' || c.op === 'watchStability') && c.outcome !== 'ok') &&
  setImagesOf(calls).every(
    (s) =>
      (s.outcome === 'ok' || s.outcome === 'unchanged') &&
      calls.slice(s.index + 1).some((w) => w.op === 'waitForRollout' && w.detail === s.workload && w.outcome === 'ok'),
  );
