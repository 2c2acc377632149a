import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { isHaltedDigest } from '../../src/domain/fleet-halt.js';
import {
  type HaltDocumentFault,
  type RegistryFault,
  type RolloutBehaviour,
  SIM_HALT_ENVIRONMENT,
  SIM_HALT_REPO,
  SIM_HALT_TAG,
  type SignatureFault,
  SimWorld,
  simConfig,
  simDigest,
  simHaltDocument,
  simPorts,
} from '../../src/sim/index.js';
import { SIM_EPOCH_MS } from '../../src/sim/sim-ports.js';
import { ANNOTATION, IMAGES } from '../support/chart.js';
import { HALT_INVARIANTS } from './fleet-halt-invariants.js';
import { type HaltTick, inForce, pinnedBack, recordHaltTick } from './fleet-halt-truth.js';

// The fleet halt's invariants (docs/behaviour.md §4, I36–I39) over fuzzed
// sequences: builds published (signed, unsigned, crash-looping), halts
// published (signed, unsigned, garbage, expiring, naming the tag's build or
// the recorded one, with or without a pin, `*`, naming nothing), lifted, the
// halt's tag, document and signature failing, its kept record edited by a
// human, time passing, rollouts failing — under the other switches. Each
// tick is answered from the world (fleet-halt-truth.ts), and each
// invariant's precondition, and each situation below, must be met at least
// IMAGE_REFRESH_HALT_MIN times in the run, or the run fails as vacuous.

const RUNS = Number(process.env.IMAGE_REFRESH_HALT_RUNS ?? 300);
const MIN = Number(process.env.IMAGE_REFRESH_HALT_MIN ?? 30);
const SEED = Number(process.env.IMAGE_REFRESH_HALT_SEED ?? Date.now() % 2_147_483_647);
const REPLAY = `IMAGE_REFRESH_HALT_SEED=${SEED} IMAGE_REFRESH_HALT_RUNS=${RUNS} npx -y pnpm@10.34.9 exec vitest run --project core test/spec/fleet-halt.properties.test.ts`;
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const REPOS = IMAGES.map((i) => i.repo);

type Step =
  | { readonly _tag: 'tick' }
  | { readonly _tag: 'wait'; readonly ms: number }
  | { readonly _tag: 'publish'; readonly repo: string; readonly signed: boolean; readonly broken: boolean }
  | {
      readonly _tag: 'halt';
      readonly repo: string;
      /** What it names: the tag's build, the recorded one, every digest, or nothing. */
      readonly names: 'tag' | 'recorded' | 'star' | 'nothing';
      /** Its pin: the build before the one it names, the recorded one, or none. */
      readonly pin: 'previous' | 'recorded' | 'none';
      readonly form: 'signed' | 'unsigned' | 'garbage' | 'shortLived';
    }
  | { readonly _tag: 'lift' }
  | { readonly _tag: 'tagFault'; readonly fault: RegistryFault }
  | { readonly _tag: 'documentFault'; readonly fault: HaltDocumentFault }
  | { readonly _tag: 'signatureFault'; readonly fault: SignatureFault }
  | { readonly _tag: 'keptEdited'; readonly value: string | undefined }
  | {
      readonly _tag: 'behave';
      readonly workload: 'jobs-manager' | 'requests-proxy';
      readonly behaviour: RolloutBehaviour;
    };

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
  {
    arbitrary: fc
      .record({
        repo: fc.constantFrom(...REPOS),
        names: fc.constantFrom<'tag' | 'recorded' | 'star' | 'nothing'>(
          'tag',
          'tag',
          'recorded',
          'recorded',
          'star',
          'nothing',
        ),
        pin: fc.constantFrom<'previous' | 'recorded' | 'none'>('previous', 'previous', 'recorded', 'none'),
        form: fc.constantFrom<'signed' | 'unsigned' | 'garbage' | 'shortLived'>(
          'signed',
          'signed',
          'signed',
          'signed',
          'unsigned',
          'garbage',
          'shortLived',
        ),
      })
      .map((p): Step => ({ _tag: 'halt', ...p })),
    weight: 5,
  },
  { arbitrary: fc.constant<Step>({ _tag: 'lift' }), weight: 1 },
  {
    arbitrary: fc
      .constantFrom<RegistryFault>('Transport', 'Timeout', 'RateLimited', 'Forbidden', 'Hang', 'Garbage', 'NotFound')
      .map((fault): Step => ({ _tag: 'tagFault', fault })),
    weight: 1,
  },
  {
    arbitrary: fc
      .constantFrom<HaltDocumentFault>('Transport', 'Timeout', 'Unusable', 'Hang')
      .map((fault): Step => ({ _tag: 'documentFault', fault })),
    weight: 1,
  },
  {
    arbitrary: fc
      .constantFrom<SignatureFault>('Transport', 'RateLimited', 'Hang')
      .map((fault): Step => ({ _tag: 'signatureFault', fault })),
    weight: 1,
  },
  {
    arbitrary: fc
      .constantFrom(undefined, '{garbage', '{"version":1}')
      .map((value): Step => ({ _tag: 'keptEdited', value })),
    weight: 1,
  },
  {
    arbitrary: fc
      .record({
        workload: fc.constantFrom<'jobs-manager' | 'requests-proxy'>('jobs-manager', 'requests-proxy'),
        behaviour: fc.constantFrom<RolloutBehaviour>('settles', 'settles', 'settles', 'flaps', 'neverReady'),
      })
      .map((p): Step => ({ _tag: 'behave', ...p })),
    weight: 2,
  },
);

const TICK: Step = { _tag: 'tick' };

/**
 * The stories the invariants are about, as short runs of steps: a build that
 * rolls out and is then halted with the previous build as its pin (ring 0
 * sent back, I38), a halt that is published and then lifted (I39).
 */
const storyArbitrary: fc.Arbitrary<readonly Step[]> = fc.oneof(
  { arbitrary: stepArbitrary.map((step) => [step]), weight: 12 },
  {
    arbitrary: fc
      .record({
        repo: fc.constantFrom(...REPOS),
        names: fc.constantFrom<'recorded' | 'star'>('recorded', 'recorded', 'star'),
        form: fc.constantFrom<'signed' | 'shortLived'>('signed', 'signed', 'signed', 'shortLived'),
        broken: fc.constantFrom(false, false, true),
      })
      .map(({ repo, names, form, broken }): readonly Step[] => [
        { _tag: 'publish', repo, signed: true, broken: false },
        TICK,
        { _tag: 'halt', repo, names, pin: 'previous', form },
        ...(broken ? [{ _tag: 'publish', repo, signed: true, broken: true } as Step] : []),
        TICK,
      ]),
    weight: 2,
  },
  {
    arbitrary: fc
      .constantFrom(...REPOS)
      .map((repo): readonly Step[] => [
        { _tag: 'halt', repo, names: 'tag', pin: 'none', form: 'signed' },
        TICK,
        { _tag: 'lift' },
      ]),
    weight: 1,
  },
  {
    // A halt that outlives its expiry: ignored from then on.
    arbitrary: fc
      .constantFrom(...REPOS)
      .map((repo): readonly Step[] => [
        { _tag: 'halt', repo, names: 'tag', pin: 'none', form: 'shortLived' },
        TICK,
        { _tag: 'wait', ms: 30 * MINUTE },
        TICK,
      ]),
    weight: 1,
  },
);

const environment = fc.record({
  FLEET_HALT_EXIT: fc.constantFrom('0', '1'),
  ON_ROLLOUT_FAILURE: fc.constantFrom('keep', 'revert'),
  VERIFY_SIGNATURES: fc.constantFrom('off', 'off', 'warn', 'enforce'),
  RECONCILE_LIVE: fc.constantFrom('0', '0', '1'),
  DECOUPLED_REFRESH: fc.constantFrom('0', '1'),
  REQUESTS_PROXY_PINNED: fc.constantFrom('0', '0', '0', '1'),
  MIN_DIGEST_AGE: fc.constantFrom('0s', '0s', '30m'),
  REGISTRY_BUDGET_FLOOR: fc.constantFrom('off', '10'),
});

/** Builds published so far, per repository, in order (a halt's "previous" pin is the one before the last). */
class Timeline {
  private build = 1;
  readonly builds = new Map<string, string[]>(REPOS.map((r) => [r, [simDigest(`${r}#1`)]]));
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
  previous(repo: string): string | undefined {
    const all = this.builds.get(repo) ?? [];
    return all.at(-2);
  }
}

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
    case 'halt': {
      const image = IMAGES.find((i) => i.repo === step.repo);
      const recorded = world.annotations[image?.recordKey ?? ''];
      const named =
        step.names === 'tag'
          ? world.registry.get(`${step.repo}:stg`)
          : step.names === 'recorded'
            ? recorded
            : undefined;
      const pin =
        step.pin === 'previous' ? timeline.previous(step.repo) : step.pin === 'recorded' ? recorded : undefined;
      const repositories =
        step.names === 'nothing'
          ? {}
          : step.names === 'star'
            ? { [step.repo]: { digests: '*' as const, ...(pin === undefined ? {} : { pin }) } }
            : named === undefined
              ? {}
              : { [step.repo]: { digests: [named], ...(pin === undefined || pin === named ? {} : { pin }) } };
      const document =
        step.form === 'garbage'
          ? `{"version":1,"reason":"garbage ${world.clockMs}"`
          : simHaltDocument(
              `halt at ${world.clockMs}`,
              now + (step.form === 'shortLived' ? 20 * MINUTE : 12 * HOUR),
              repositories,
            );
      world.publishHalt(document, { signed: step.form !== 'unsigned', repo: SIM_HALT_REPO, tag: SIM_HALT_TAG });
      return;
    }
    case 'lift':
      world.deleteTag(SIM_HALT_REPO, SIM_HALT_TAG);
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
      world.setAnnotation(ANNOTATION.fleetHaltDocument, step.value);
      return;
    case 'behave':
      world.setBehaviour(step.workload, step.behaviour);
      return;
  }
};

/** Situations the generators must reach: each names the invariants it puts at stake. */
const SITUATIONS: readonly { readonly name: string; readonly when: (t: HaltTick) => boolean }[] = [
  {
    name: 'I36: the registry answers a changed digest the halt in force names',
    when: (t) => {
      const halt = inForce(t);
      return (
        halt !== undefined &&
        IMAGES.some((i) => {
          const answer = t.before.registry[i.repo];
          return (
            answer !== undefined && answer !== t.before.annotations[i.recordKey] && isHaltedDigest(halt, i.repo, answer)
          );
        })
      );
    },
  },
  {
    name: 'I36, I38: a record the halt in force names, with a pin',
    when: (t) => {
      const halt = inForce(t);
      return halt !== undefined && pinnedBack(t, halt).length > 0;
    },
  },
  {
    name: 'I37: an unverifiable halt with a changed digest behind a tag',
    when: (t) =>
      t.truth._tag === 'Unverifiable' &&
      IMAGES.some((i) => t.before.registry[i.repo] !== t.before.annotations[i.recordKey]),
  },
  { name: 'I39: a halt verified before, kept', when: (t) => t.truth._tag === 'Verified' && t.truth.kept },
  {
    name: 'I39: a 404 where a halt was recorded',
    when: (t) => t.truth._tag === 'None' && t.before.annotations[ANNOTATION.fleetHaltDigest] !== undefined,
  },
  { name: 'an expired halt', when: (t) => t.truth._tag === 'Verified' && !t.truth.inForce },
];

const met = new Map<string, number>([
  ...HALT_INVARIANTS.map((i) => [i.id, 0] as const),
  ...SITUATIONS.map((s) => [s.name, 0] as const),
]);
const count = (key: string) => met.set(key, (met.get(key) ?? 0) + 1);
let explored: { readonly failed: boolean } | undefined;
let failure = '';

describe(`the fleet halt's invariants over fuzzed sequences (${RUNS} runs)`, () => {
  it(`explores ${RUNS} sequences of up to 30 stories and finds no counterexample`, async () => {
    const details = await fc.check(
      fc.asyncProperty(environment, fc.array(storyArbitrary, { minLength: 5, maxLength: 30 }), async (env, stories) => {
        const steps = stories.flat();
        const config = simConfig({ ...SIM_HALT_ENVIRONMENT, ...env });
        const world = new SimWorld(config);
        const ports = simPorts(world);
        const timeline = new Timeline(world);
        for (const step of [{ _tag: 'tick' } as Step, ...steps]) {
          apply(world, timeline, step);
          if (step._tag !== 'tick') continue;
          const tick = await recordHaltTick(world, ports);
          for (const situation of SITUATIONS) if (situation.when(tick)) count(situation.name);
          for (const invariant of HALT_INVARIANTS) {
            if (!invariant.appliesTo(tick, config)) continue;
            count(invariant.id);
            const broken = invariant.violation(tick, config);
            if (broken !== undefined) {
              throw new Error(
                `${invariant.id} ${invariant.says}\n    violated: ${broken}\n  env ${JSON.stringify(env)}\n  truth ${JSON.stringify(tick.truth)}\n  events:\n${tick.outcome.events.map((e) => `    ${e.level} ${e.message}`).join('\n')}`,
              );
            }
          }
        }
      }),
      { numRuns: RUNS, seed: SEED },
    );
    explored = { failed: details.failed };
    if (details.failed) {
      failure = details.errorInstance instanceof Error ? details.errorInstance.message : String(details.errorInstance);
      expect.fail(`${fc.defaultReportMessage(details)}\n  replay: ${REPLAY}`);
    }
  }, 600_000);

  for (const invariant of HALT_INVARIANTS) {
    describe(`${invariant.id}: ${invariant.says}`, () => {
      it('holds after every tick of every sequence', () => {
        expect(explored, 'the exploration did not run (a -t filter must include "explores")').toBeDefined();
        expect(failure.startsWith(`${invariant.id} `), failure).toBe(false);
      });
      it(`is not vacuous: its precondition held at least ${MIN} times`, () => {
        if (explored?.failed !== false) return;
        expect(met.get(invariant.id) ?? 0).toBeGreaterThanOrEqual(MIN);
      });
    });
  }

  it(`every situation the halt invariants are about occurred at least ${MIN} times`, () => {
    if (explored?.failed !== false) return;
    const thin = SITUATIONS.filter((s) => (met.get(s.name) ?? 0) < MIN).map(
      (s) => `${s.name}: ${met.get(s.name) ?? 0}`,
    );
    expect(thin).toEqual([]);
  });

  afterAll(() => {
    console.log(
      [
        `fleet halt property suite (seed ${SEED}; replay: ${REPLAY}), preconditions and situations met:`,
        ...[...met].map(([k, n]) => `  ${String(n).padStart(6)}  ${k}`),
      ].join('\n'),
    );
  });
});
