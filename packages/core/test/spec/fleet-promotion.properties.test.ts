import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { renderFleetPromotion } from '../../src/domain/fleet-promotion.js';
import { rfc3339 } from '../../src/domain/pending-digest.js';
import {
  type HaltDocumentFault,
  type RegistryFault,
  type RolloutBehaviour,
  SIM_HALT_REPO,
  SIM_PROMOTION_ENVIRONMENT,
  SIM_PROMOTION_TAG,
  type SignatureFault,
  SimWorld,
  simConfig,
  simDigest,
  simPorts,
} from '../../src/sim/index.js';
import { SIM_EPOCH_MS } from '../../src/sim/sim-ports.js';
import { ANNOTATION, IMAGES } from '../support/chart.js';
import {
  isOpenedFor,
  movesOf,
  openedAt,
  openedKey,
  type PromotionTick,
  type PublishedEntry,
  type PublishedPromotion,
  recordPromotionTick,
  runningDigestsOf,
  TAMPERED_KEPT_DOCUMENTS,
} from './fleet-promotion-truth.js';

// The fleet promotion's invariant (docs/behaviour.md §4, I49;
// docs/fleet-promotion.md) over fuzzed sequences on one edge of ring 1 to 3
// under FLEET_PROMOTION_REF: the followed tags moving to new builds and back
// to old ones, promotions published (signed, unsigned, garbage; naming the
// tag's build, an older one or the recorded one; for rings 1 to 3; expiring
// in minutes, in hours, or already expired), replaced, withdrawn, the
// promotion's tag, document and signature failing, its kept record edited by
// a human, time passing, rollouts failing — under the other switches; and the
// gate's record of an image removed by hand while its containers run an older
// build and its tag names a new, unpromoted one, under RECONCILE_LIVE=1 or
// ON_ROLLOUT_FAILURE=revert, where a record is what a live re-pin or a
// rollback moves containers to (docs/fleet-promotion.md, "The gate on the
// edges": a first observation no promotion names is held there). No fleet
// halt is published: a halt's pin-back is the halt's decision (I36–I39).
// Each tick is answered from the world (fleet-promotion-truth.ts); I49's
// precondition and each situation below must be met at least
// IMAGE_REFRESH_PROMOTION_MIN times in the run, or the run fails as vacuous.

const RUNS = Number(process.env.IMAGE_REFRESH_PROMOTION_RUNS ?? 300);
const MIN = Number(process.env.IMAGE_REFRESH_PROMOTION_MIN ?? 30);
const SEED = Number(process.env.IMAGE_REFRESH_PROMOTION_SEED ?? Date.now() % 2_147_483_647);
const REPLAY = `IMAGE_REFRESH_PROMOTION_SEED=${SEED} IMAGE_REFRESH_PROMOTION_RUNS=${RUNS} npx -y pnpm@10.34.9 exec vitest run --project core test/spec/fleet-promotion.properties.test.ts`;
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const REPOS = IMAGES.map((i) => i.repo);
const NAMES = IMAGES.map((i) => i.name);

type Pick = 'tag' | 'older' | 'recorded';
type Expiry = 'short' | 'long' | 'past';

interface EntryDraft {
  readonly image: string;
  readonly pick: Pick;
  readonly ring: number;
  readonly expiry: Expiry;
}

type Step =
  | { readonly _tag: 'tick' }
  | { readonly _tag: 'wait'; readonly ms: number }
  | { readonly _tag: 'publish'; readonly repo: string; readonly signed: boolean; readonly broken: boolean }
  /** The tag moved back to an older build (a bad build withdrawn from the tag). */
  | { readonly _tag: 'moveBack'; readonly repo: string }
  | {
      readonly _tag: 'promote';
      readonly entries: readonly EntryDraft[];
      readonly form: 'signed' | 'unsigned' | 'garbage';
    }
  | { readonly _tag: 'withdraw' }
  | { readonly _tag: 'tagFault'; readonly fault: RegistryFault }
  | { readonly _tag: 'documentFault'; readonly fault: HaltDocumentFault }
  | { readonly _tag: 'signatureFault'; readonly fault: SignatureFault }
  | { readonly _tag: 'keptEdited'; readonly value: string | undefined }
  /** A human removes the gate's record of one image (its recorded digest). */
  | { readonly _tag: 'recordLost'; readonly repo: string }
  | {
      readonly _tag: 'behave';
      readonly workload: 'jobs-manager' | 'requests-proxy' | 'resource-monitor';
      readonly behaviour: RolloutBehaviour;
    };

const entryArbitrary: fc.Arbitrary<EntryDraft> = fc.record({
  image: fc.constantFrom(NAMES[0] ?? 'jobs-manager', ...NAMES),
  pick: fc.constantFrom<Pick>('tag', 'tag', 'tag', 'older', 'recorded'),
  ring: fc.integer({ min: 1, max: 3 }),
  expiry: fc.constantFrom<Expiry>('long', 'long', 'long', 'short', 'past'),
});

const stepArbitrary: fc.Arbitrary<Step> = fc.oneof(
  { arbitrary: fc.constant<Step>({ _tag: 'tick' }), weight: 14 },
  { arbitrary: fc.integer({ min: 5, max: 600 }).map((m): Step => ({ _tag: 'wait', ms: m * MINUTE })), weight: 3 },
  {
    arbitrary: fc
      .record({
        repo: fc.constantFrom(...REPOS),
        signed: fc.constantFrom(true, true, true, false),
        broken: fc.constantFrom(false, false, false, true),
      })
      .map((p): Step => ({ _tag: 'publish', ...p })),
    weight: 5,
  },
  { arbitrary: fc.constantFrom(...REPOS).map((repo): Step => ({ _tag: 'moveBack', repo })), weight: 2 },
  {
    arbitrary: fc
      .record({
        entries: fc.array(entryArbitrary, { minLength: 0, maxLength: 3 }),
        form: fc.constantFrom<'signed' | 'unsigned' | 'garbage'>('signed', 'signed', 'signed', 'unsigned', 'garbage'),
      })
      .map((p): Step => ({ _tag: 'promote', ...p })),
    weight: 6,
  },
  { arbitrary: fc.constant<Step>({ _tag: 'withdraw' }), weight: 1 },
  {
    arbitrary: fc
      .constantFrom<RegistryFault>('Transport', 'Timeout', 'RateLimited', 'Forbidden', 'Hang', 'Garbage', 'NotFound')
      .map((fault): Step => ({ _tag: 'tagFault', fault })),
    weight: 3,
  },
  {
    arbitrary: fc
      .constantFrom<HaltDocumentFault>('Transport', 'Timeout', 'Unusable', 'Hang')
      .map((fault): Step => ({ _tag: 'documentFault', fault })),
    weight: 2,
  },
  {
    arbitrary: fc
      .constantFrom<SignatureFault>('Transport', 'RateLimited', 'Hang')
      .map((fault): Step => ({ _tag: 'signatureFault', fault })),
    weight: 2,
  },
  {
    arbitrary: fc
      .constantFrom<string | undefined>(undefined, ...TAMPERED_KEPT_DOCUMENTS)
      .map((value): Step => ({ _tag: 'keptEdited', value })),
    weight: 1,
  },
  { arbitrary: fc.constantFrom(...REPOS).map((repo): Step => ({ _tag: 'recordLost', repo })), weight: 1 },
  {
    arbitrary: fc
      .record({
        workload: fc.constantFrom<'jobs-manager' | 'requests-proxy' | 'resource-monitor'>(
          'jobs-manager',
          'requests-proxy',
          'resource-monitor',
        ),
        behaviour: fc.constantFrom<RolloutBehaviour>('settles', 'settles', 'settles', 'flaps', 'neverReady'),
      })
      .map((p): Step => ({ _tag: 'behave', ...p })),
    weight: 2,
  },
);

const TICK: Step = { _tag: 'tick' };

/** The name of the image `repo` is. */
const nameOf = (repo: string): string => IMAGES.find((i) => i.repo === repo)?.name ?? '';

/**
 * The stories I49 is about, as short runs of steps: a build pushed, then a
 * promotion of it (for some ring, in some form) and the ticks after — the
 * canaries' evidence arriving; and a promotion that expires or is withdrawn
 * under a tag that has moved on.
 */
const storyArbitrary: fc.Arbitrary<readonly Step[]> = fc.oneof(
  { arbitrary: stepArbitrary.map((step) => [step]), weight: 12 },
  {
    arbitrary: fc
      .record({
        repo: fc.constantFrom(...REPOS),
        ring: fc.integer({ min: 1, max: 3 }),
        expiry: fc.constantFrom<Expiry>('long', 'long', 'short'),
        form: fc.constantFrom<'signed' | 'unsigned'>('signed', 'signed', 'signed', 'unsigned'),
        wait: fc.integer({ min: 0, max: 90 }),
      })
      .map(({ repo, ring, expiry, form, wait }): readonly Step[] => [
        { _tag: 'publish', repo, signed: true, broken: false },
        TICK,
        {
          _tag: 'promote',
          entries: [{ image: IMAGES.find((i) => i.repo === repo)?.name ?? '', pick: 'tag', ring, expiry }],
          form,
        },
        TICK,
        { _tag: 'wait', ms: wait * MINUTE },
        TICK,
      ]),
    weight: 4,
  },
  {
    // A promotion that outlives its expiry, or is withdrawn, while the tag moves on.
    arbitrary: fc
      .record({ repo: fc.constantFrom(...REPOS), ending: fc.constantFrom('expire', 'withdraw') })
      .map(({ repo, ending }): readonly Step[] => [
        {
          _tag: 'promote',
          entries: [{ image: IMAGES.find((i) => i.repo === repo)?.name ?? '', pick: 'tag', ring: 3, expiry: 'short' }],
          form: 'signed',
        },
        TICK,
        ending === 'expire' ? { _tag: 'wait', ms: 30 * MINUTE } : { _tag: 'withdraw' },
        { _tag: 'publish', repo, signed: true, broken: false },
        TICK,
      ]),
    weight: 1,
  },
  {
    // Where a record is what containers are moved to (RECONCILE_LIVE=1, ON_ROLLOUT_FAILURE=revert):
    // a promoted build rolled out; then a new, unpromoted build at the tag while a human removes the
    // record, so the next ticks are first observations of it with the containers on the older build
    // (a live re-pin or a rollback would go back to it, were it recorded). Then `repin`: that build
    // promoted at last, recorded, and re-pinned to; or `rollback`: a promoted build, recorded as the
    // new baseline, and a promoted one after it that fails to roll out and is undone back to the
    // record (docs/fleet-promotion.md, "The gate on the edges"; I49).
    arbitrary: fc
      .record({ repo: fc.constantFrom(...REPOS), ending: fc.constantFrom('repin', 'rollback') })
      .map(({ repo, ending }): readonly Step[] => {
        const promoted: Step = {
          _tag: 'promote',
          entries: [{ image: nameOf(repo), pick: 'tag', ring: 3, expiry: 'long' }],
          form: 'signed',
        };
        const soaked: readonly Step[] = [TICK, { _tag: 'wait', ms: 40 * MINUTE }, TICK];
        const pushed = (broken: boolean): Step => ({ _tag: 'publish', repo, signed: true, broken });
        return [
          pushed(false),
          promoted,
          ...soaked,
          pushed(false),
          { _tag: 'recordLost', repo },
          ...soaked,
          ...(ending === 'repin'
            ? [promoted, ...soaked]
            : [pushed(true), promoted, ...soaked, pushed(true), promoted, ...soaked]),
        ];
      }),
    weight: 3,
  },
);

const environment = fc.record({
  ROLLOUT_RING: fc.constantFrom('1', '1', '2', '3'),
  RING_DELAY: fc.constantFrom('1m', '1h', '24h'),
  MIN_DIGEST_AGE: fc.constantFrom('0s', '0s', '30m'),
  ON_ROLLOUT_FAILURE: fc.constantFrom('keep', 'revert'),
  VERIFY_SIGNATURES: fc.constantFrom('off', 'off', 'warn', 'enforce'),
  RECONCILE_LIVE: fc.constantFrom('0', '1'),
  DECOUPLED_REFRESH: fc.constantFrom('0', '1'),
  REQUESTS_PROXY_PINNED: fc.constantFrom('0', '0', '0', '1'),
});

/** Builds pushed so far, per repository, and every promotion published, by its artifact digest. */
class Timeline {
  private build = 1;
  readonly builds = new Map<string, string[]>(REPOS.map((r) => [r, [simDigest(`${r}#1`)]]));
  readonly promotions = new Map<string, PublishedPromotion>();
  constructor(private readonly world: SimWorld) {
    for (const repo of REPOS) world.sign(repo, simDigest(`${repo}#1`));
  }
  publish(repo: string, signed: boolean, broken: boolean): void {
    this.build += 1;
    const digest = simDigest(`${repo}#${this.build}`);
    if (signed) this.world.sign(repo, digest);
    if (broken) this.world.breakBuild(digest);
    this.world.publish(repo, digest);
    this.builds.get(repo)?.push(digest);
  }
  /** An older build of `repo` than the one its tag names (the first build when there is none). */
  older(repo: string): string | undefined {
    const all = this.builds.get(repo) ?? [];
    const current = this.world.registry.get(`${repo}:${this.world.config.imageTag}`);
    return all.filter((d) => d !== current).at(-1) ?? all[0];
  }
  promote(entries: readonly PublishedEntry[] | 'garbage', signed: boolean): void {
    const document =
      entries === 'garbage'
        ? `{"version":1,"promotions":[{"image":"garbage ${this.world.clockMs}"}]}`
        : renderFleetPromotion(
            entries.map((e) => ({ ...e, expires: rfc3339(e.expiresAtMs), evidence: 'the canaries ran it, clean' })),
          );
    const digest = this.world.publishHalt(document, { signed, repo: SIM_HALT_REPO, tag: SIM_PROMOTION_TAG });
    this.promotions.set(digest, entries === 'garbage' ? { _tag: 'Garbage' } : { _tag: 'Entries', entries });
  }
}

const EXPIRY_MS: Record<Expiry, number> = { short: 20 * MINUTE, long: 12 * HOUR, past: -HOUR };

const apply = (world: SimWorld, timeline: Timeline, step: Step): void => {
  const now = SIM_EPOCH_MS + world.clockMs;
  switch (step._tag) {
    case 'tick':
      return;
    case 'wait':
      world.clockMs += step.ms;
      return;
    case 'publish':
      timeline.publish(step.repo, step.signed, step.broken);
      return;
    case 'moveBack': {
      const older = timeline.older(step.repo);
      if (older !== undefined) world.publish(step.repo, older);
      return;
    }
    case 'promote': {
      if (step.form === 'garbage') {
        timeline.promote('garbage', true);
        return;
      }
      const entries: PublishedEntry[] = [];
      for (const draft of step.entries) {
        const image = IMAGES.find((i) => i.name === draft.image);
        if (image === undefined) continue;
        const digest =
          draft.pick === 'tag'
            ? world.registry.get(`${image.repo}:${world.config.imageTag}`)
            : draft.pick === 'older'
              ? timeline.older(image.repo)
              : world.annotations[image.recordKey];
        // One entry per image@digest: the document would not parse with two.
        if (digest === undefined || entries.some((e) => e.image === image.name && e.digest === digest)) continue;
        entries.push({ image: image.name, digest, ring: draft.ring, expiresAtMs: now + EXPIRY_MS[draft.expiry] });
      }
      timeline.promote(entries, step.form === 'signed');
      return;
    }
    case 'withdraw':
      world.deleteTag(SIM_HALT_REPO, SIM_PROMOTION_TAG);
      return;
    case 'tagFault':
      world.injectRegistryFault(SIM_HALT_REPO, step.fault);
      return;
    case 'documentFault':
      world.injectHaltDocumentFault(step.fault);
      return;
    case 'signatureFault':
      world.injectSignatureFault(SIM_HALT_REPO, step.fault);
      return;
    case 'keptEdited':
      world.setAnnotation(ANNOTATION.fleetPromotionDocument, step.value);
      return;
    case 'recordLost': {
      const image = IMAGES.find((i) => i.repo === step.repo);
      if (image !== undefined) world.setAnnotation(image.recordKey, undefined);
      return;
    }
    case 'behave':
      world.setBehaviour(step.workload, step.behaviour);
      return;
  }
};

/** The images whose followed tag answers a digest other than the recorded one, before the tick. */
const changedAtTag = (t: PromotionTick) =>
  IMAGES.flatMap((image) => {
    const answer = t.before.registry[image.repo];
    return answer !== undefined && answer !== t.before.annotations[image.recordKey] ? [{ image, answer }] : [];
  });

/**
 * What the world holds of one tick's edge: its switches, and every
 * image@digest a verified, unexpired promotion opened to its ring at this tick
 * or at an earlier one (each judged at the tick that verified it).
 */
interface EdgeSoFar {
  readonly env: { readonly RECONCILE_LIVE: string; readonly ON_ROLLOUT_FAILURE: string };
  readonly ring: number;
  readonly opened: ReadonlySet<string>;
}

interface PromotionInvariant {
  readonly id: string;
  readonly says: string;
  readonly appliesTo: (t: PromotionTick, edge: EdgeSoFar) => boolean;
  readonly violation: (t: PromotionTick, edge: EdgeSoFar) => string | undefined;
}

const I49: PromotionInvariant = {
  id: 'I49',
  says: 'With FLEET_PROMOTION_REF set, every set image on an edge of ring R ≥ 1 — a change, a live re-pin or a rollback to the recorded digest — moves a container only to what it ran, or to an image@digest a signed, unexpired promotion verified at this tick or an earlier one named for ring R or higher; none, or one not verified, opens nothing.',
  appliesTo: (t) => changedAtTag(t).length > 0 || movesOf(t).length > 0,
  violation: (t, edge) => {
    const moved = movesOf(t).find((m) => !edge.opened.has(openedKey(m.image, m.digest)));
    return moved === undefined
      ? undefined
      : `set ${moved.workload} ${moved.container}=${moved.ref} (it ran ${moved.ran ?? 'nothing'}${moved.toRecord ? '; the recorded digest: a live re-pin or a rollback' : ''}) on ring ${edge.ring}, which no verified, unexpired promotion opened to it at this tick or before (this tick: ${t.truth._tag === 'Unverifiable' ? `unverifiable: ${t.truth.why}` : t.truth._tag})`;
  },
};

/** The entries of the promotion verified at this tick, if one was. */
const entriesOf = (t: PromotionTick): readonly PublishedEntry[] => (t.truth._tag === 'Verified' ? t.truth.entries : []);

/**
 * The hole a record's exemption hid: no record of the image before the tick
 * (a human removed it), its tag naming a build no promotion opened to this
 * ring so far, and a container running an older build of it — the first
 * observation a live re-pin or a rollback would later move containers to.
 */
const unpromotedFirstObservation = (t: PromotionTick, edge: EdgeSoFar): boolean =>
  IMAGES.some((image) => {
    const answer = t.before.registry[image.repo];
    return (
      t.before.annotations[image.recordKey] === undefined &&
      answer !== undefined &&
      !edge.opened.has(openedKey(image.name, answer)) &&
      runningDigestsOf(t, image.repo).some((d) => d !== answer)
    );
  });

const ROLLED_BACK = new Set(['rolledBack', 'rollbackFailed']);

/** Situations the generators must reach: a change let through, a change held for each reason, and the record's moves. */
const SITUATIONS: readonly { readonly name: string; readonly when: (t: PromotionTick, edge: EdgeSoFar) => boolean }[] =
  [
    {
      name: 'a new digest set under a promotion',
      when: (t) => movesOf(t).some((m) => !m.toRecord),
    },
    {
      name: 'a changed digest at the tag, opened to this ring',
      when: (t, { ring }) =>
        changedAtTag(t).some(({ image, answer }) => isOpenedFor(t.truth, image.name, answer, ring)),
    },
    {
      name: 'a changed digest at the tag, promoted to a lower ring only',
      when: (t, { ring }) =>
        changedAtTag(t).some(({ image, answer }) =>
          entriesOf(t).some((e) => e.image === image.name && e.digest === answer && e.ring < ring),
        ),
    },
    {
      name: 'a changed digest at the tag, its promotion expired',
      when: (t) =>
        changedAtTag(t).some(({ image, answer }) =>
          entriesOf(t).some(
            (e) =>
              e.image === image.name &&
              e.digest === answer &&
              t.truth._tag === 'Verified' &&
              e.expiresAtMs <= t.truth.atMs,
          ),
        ),
    },
    {
      name: 'a changed digest at the tag, the promotion unverifiable',
      when: (t) => t.truth._tag === 'Unverifiable' && changedAtTag(t).length > 0,
    },
    {
      name: 'a changed digest at the tag, the promotion tag failing',
      when: (t) => t.truth._tag === 'Unverifiable' && t.truth.why.startsWith('the tag') && changedAtTag(t).length > 0,
    },
    {
      name: "a changed digest at the tag, the promotion's document or signature failing",
      when: (t) =>
        t.truth._tag === 'Unverifiable' && /^the (document|signature)/.test(t.truth.why) && changedAtTag(t).length > 0,
    },
    {
      name: 'a changed digest at the tag, no promotion (none or withdrawn)',
      when: (t) => t.truth._tag === 'None' && changedAtTag(t).length > 0,
    },
    {
      name: 'a first observation of an unpromoted build, containers on an older one, RECONCILE_LIVE=1',
      when: (t, edge) => edge.env.RECONCILE_LIVE === '1' && unpromotedFirstObservation(t, edge),
    },
    {
      name: 'a first observation of an unpromoted build, containers on an older one, ON_ROLLOUT_FAILURE=revert',
      when: (t, edge) => edge.env.ON_ROLLOUT_FAILURE === 'revert' && unpromotedFirstObservation(t, edge),
    },
    {
      name: 'a live re-pin to the recorded digest (RECONCILE_LIVE=1)',
      when: (t, edge) =>
        edge.env.RECONCILE_LIVE === '1' && !ROLLED_BACK.has(t.outcome.result) && movesOf(t).some((m) => m.toRecord),
    },
    {
      name: 'a rollback to the recorded digest (ON_ROLLOUT_FAILURE=revert)',
      when: (t, edge) =>
        edge.env.ON_ROLLOUT_FAILURE === 'revert' &&
        ROLLED_BACK.has(t.outcome.result) &&
        movesOf(t).some((m) => m.toRecord),
    },
  ];

const met = new Map<string, number>([[I49.id, 0], ...SITUATIONS.map((s) => [s.name, 0] as const)]);
const count = (key: string) => met.set(key, (met.get(key) ?? 0) + 1);
let explored: { readonly failed: boolean } | undefined;

describe(`the fleet promotion's invariant over fuzzed sequences (${RUNS} runs)`, () => {
  it(`${I49.id}: ${I49.says}`, async () => {
    const details = await fc.check(
      fc.asyncProperty(environment, fc.array(storyArbitrary, { minLength: 5, maxLength: 30 }), async (env, stories) => {
        const config = simConfig({ ...SIM_PROMOTION_ENVIRONMENT, ...env });
        const ring = config.rolloutRing;
        const world = new SimWorld(config);
        const ports = simPorts(world);
        const timeline = new Timeline(world);
        const opened = new Set<string>();
        for (const step of [TICK, ...stories.flat()]) {
          apply(world, timeline, step);
          if (step._tag !== 'tick') continue;
          const tick = await recordPromotionTick(world, ports, timeline.promotions);
          for (const key of openedAt(tick.truth, ring)) opened.add(key);
          const edge: EdgeSoFar = { env, ring, opened };
          for (const situation of SITUATIONS) if (situation.when(tick, edge)) count(situation.name);
          if (!I49.appliesTo(tick, edge)) continue;
          count(I49.id);
          const broken = I49.violation(tick, edge);
          if (broken !== undefined) {
            throw new Error(
              `${I49.id} ${I49.says}\n    violated: ${broken}\n  env ${JSON.stringify(env)}\n  truth ${JSON.stringify(tick.truth)}\n  events:\n${tick.outcome.events.map((e) => `    ${e.level} ${e.message}`).join('\n')}`,
            );
          }
        }
      }),
      { numRuns: RUNS, seed: SEED },
    );
    explored = { failed: details.failed };
    if (details.failed) {
      const error =
        details.errorInstance instanceof Error ? details.errorInstance.message : String(details.errorInstance);
      expect.fail(`${error}\n${fc.defaultReportMessage(details)}\n  replay: ${REPLAY}`);
    }
  }, 600_000);

  it(`is not vacuous: its precondition and every situation held at least ${MIN} times`, () => {
    expect(explored, 'the exploration did not run (a -t filter must include I49)').toBeDefined();
    if (explored?.failed !== false) return;
    const thin = [...met].filter(([, n]) => n < MIN).map(([k, n]) => `${k}: ${n}`);
    expect(thin).toEqual([]);
  });

  afterAll(() => {
    console.log(
      [
        `fleet promotion property suite (seed ${SEED}; replay: ${REPLAY}), precondition and situations met:`,
        ...[...met].map(([k, n]) => `  ${String(n).padStart(6)}  ${k}`),
      ].join('\n'),
    );
  });
});
