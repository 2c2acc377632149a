import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import type { Environment } from '../../src/config/environment.js';
import type { TickConfig } from '../../src/config/tick-config.js';
import { lackingPlatforms, type Platform, platformName } from '../../src/domain/platforms.js';
import { runTick, type TickPorts } from '../../src/run-tick.js';
import { type SimCall, SimWorld, simConfig, simDigest, simPorts } from '../../src/sim/index.js';
import { IMAGES, type WorkloadId } from '../support/chart.js';
import { describeViolations, SpecChecker } from './spec-checker.js';
import { recordTick } from './tick-record.js';

// "Stage, then switch" (docs/behaviour.md §3.4a step 4, §3.5a, §4 I40–I44) on
// the simulator's nodes, image caches and link: builds that take minutes to
// pull or never pull, builds for fewer platforms, unreadable manifests, a
// staging call that fails or hangs, pods a killed tick left behind, nodes
// joining, the attempt write failing. Each invariant is answered from the
// world — its call log, its nodes, what its registry's manifests provide —
// never from the machine's account of itself. Every tick also goes through the
// main suite's checker (I1–I43 with these switches on) and is replayed on a
// clone of the world (I20). Each invariant's precondition must be met at least
// IMAGE_REFRESH_PROPERTY_MIN times (50), as in properties.test.ts.

const RUNS = Number(process.env.IMAGE_REFRESH_STAGING_RUNS ?? 300);
const SEED = Number(process.env.IMAGE_REFRESH_PROPERTY_SEED ?? Date.now() % 2_147_483_647);
const MIN_PRECONDITIONS = Number(process.env.IMAGE_REFRESH_PROPERTY_MIN ?? 50);
const MINUTE = 60_000;
const REPOS = IMAGES.map((i) => i.repo);
const AMD64: Platform = { os: 'linux', architecture: 'amd64' };
const ARM64: Platform = { os: 'linux', architecture: 'arm64' };
const ARMV7: Platform = { os: 'linux', architecture: 'arm', variant: 'v7' };

type Step =
  | { readonly _tag: 'tick' }
  | { readonly _tag: 'wait'; readonly ms: number }
  | { readonly _tag: 'publish'; readonly repo: string; readonly pullMinutes: number }
  | { readonly _tag: 'publishFailing'; readonly repo: string; readonly node: string | undefined }
  | { readonly _tag: 'publishFor'; readonly repo: string; readonly platforms: readonly Platform[] | string }
  | { readonly _tag: 'platformFault'; readonly repo: string; readonly fault: 'Transport' | 'RateLimited' | 'Hang' }
  | { readonly _tag: 'stagingFault'; readonly fault: 'Forbidden' | 'Transport' | 'Hang' }
  | { readonly _tag: 'leftoverPod'; readonly workload: WorkloadId; readonly node: string }
  | { readonly _tag: 'proxyMoves'; readonly node: string }
  | { readonly _tag: 'nodeJoins' }
  | { readonly _tag: 'attemptWriteFails' }
  | { readonly _tag: 'jobsManager'; readonly behaviour: 'settles' | 'neverReady' };

const repos = fc.constantFrom(...REPOS);
const stepArbitrary: fc.Arbitrary<Step> = fc.oneof(
  { arbitrary: fc.constant<Step>({ _tag: 'tick' }), weight: 12 },
  { arbitrary: fc.integer({ min: 5, max: 180 }).map((m): Step => ({ _tag: 'wait', ms: m * MINUTE })), weight: 4 },
  {
    arbitrary: fc
      .tuple(repos, fc.constantFrom(0, 0, 3, 12, 25, 50))
      .map(([repo, pullMinutes]): Step => ({ _tag: 'publish', repo, pullMinutes })),
    weight: 6,
  },
  {
    arbitrary: fc
      .tuple(repos, fc.constantFrom(undefined, 'edge-1', 'edge-3'))
      .map(([repo, node]): Step => ({ _tag: 'publishFailing', repo, node })),
    weight: 1,
  },
  {
    arbitrary: fc
      .tuple(
        repos,
        fc.constantFrom<readonly Platform[] | string>(
          [AMD64],
          [ARM64],
          [AMD64, ARM64, ARMV7],
          [ARM64, AMD64],
          'its manifest is larger than 512 KiB: not read',
        ),
      )
      .map(([repo, platforms]): Step => ({ _tag: 'publishFor', repo, platforms })),
    weight: 3,
  },
  {
    arbitrary: fc
      .tuple(repos, fc.constantFrom('Transport' as const, 'RateLimited' as const, 'Hang' as const))
      .map(([repo, fault]): Step => ({ _tag: 'platformFault', repo, fault })),
    weight: 1,
  },
  {
    arbitrary: fc
      .constantFrom('Forbidden' as const, 'Transport' as const, 'Hang' as const)
      .map((fault): Step => ({ _tag: 'stagingFault', fault })),
    weight: 1,
  },
  {
    arbitrary: fc
      .tuple(
        fc.constantFrom<WorkloadId>('jobs-manager', 'requests-proxy', 'resource-monitor'),
        fc.constantFrom('edge-1', 'edge-2'),
      )
      .map(([workload, node]): Step => ({ _tag: 'leftoverPod', workload, node })),
    weight: 3,
  },
  { arbitrary: fc.constantFrom('edge-1', 'edge-2').map((node): Step => ({ _tag: 'proxyMoves', node })), weight: 1 },
  { arbitrary: fc.constant<Step>({ _tag: 'nodeJoins' }), weight: 1 },
  { arbitrary: fc.constant<Step>({ _tag: 'attemptWriteFails' }), weight: 1 },
  {
    arbitrary: fc
      .constantFrom('settles' as const, 'settles' as const, 'neverReady' as const)
      .map((behaviour): Step => ({ _tag: 'jobsManager', behaviour })),
    weight: 1,
  },
);

const environmentArbitrary: fc.Arbitrary<Environment> = fc.record({
  PREPULL: fc.constantFrom('on', 'on', 'on', 'off'),
  PLATFORM_CHECK: fc.constantFrom('on', 'on', 'on', 'off'),
  PREPULL_TIMEOUT: fc.constantFrom('5m', '30m', '30m'),
  PREPULL_PARALLEL: fc.constantFrom('1', '1', '2', '3'),
  ON_ROLLOUT_FAILURE: fc.constantFrom('keep', 'revert'),
  MAX_REFRESH_ATTEMPTS: fc.integer({ min: 2, max: 5 }).map(String),
  REGISTRY_BUDGET_FLOOR: fc.constantFrom('10', 'off'),
  RECONCILE_LIVE: fc.constantFrom('0', '0', '1'),
});

/** Builds published so far in one sequence, to make each digest new. */
class Builds {
  private n = 1;
  next(repo: string): string {
    this.n += 1;
    return simDigest(`${repo}#${this.n}`);
  }
}

const apply = (world: SimWorld, builds: Builds, step: Step): void => {
  switch (step._tag) {
    case 'wait':
      world.clockMs += step.ms;
      return;
    case 'publish': {
      const digest = builds.next(step.repo);
      if (step.pullMinutes > 0) world.slowLink(digest, step.pullMinutes * MINUTE);
      world.publish(step.repo, digest);
      return;
    }
    case 'publishFailing': {
      const digest = builds.next(step.repo);
      world.nodes.failing.add(step.node === undefined ? digest : `${digest} ${step.node}`);
      world.publish(step.repo, digest);
      return;
    }
    case 'publishFor':
      world.publishFor(step.repo, builds.next(step.repo), step.platforms);
      return;
    case 'platformFault':
      world.injectPlatformFault(step.repo, step.fault);
      return;
    case 'stagingFault':
      world.injectClusterFault('stageImages', step.fault);
      return;
    case 'leftoverPod':
      world.nodes.stagingPods.set(`left ${world.clockMs} ${step.workload}`, {
        workload: step.workload,
        node: step.node,
        images: `docker.io/${IMAGES[0]?.repo}@${simDigest(`left over ${world.clockMs}`)}`,
      });
      return;
    case 'proxyMoves':
      world.nodes.of['requests-proxy'] = [step.node];
      return;
    case 'nodeJoins':
      if (!world.nodes.nodesOf('resource-monitor').includes('edge-4'))
        world.nodes.of['resource-monitor'] = [...world.nodes.nodesOf('resource-monitor'), 'edge-4'];
      return;
    case 'attemptWriteFails':
      world.injectClusterFault('patchBookkeeping', 'Transport', 1, 'tracebloc.io/refresh-attempt=');
      return;
    case 'jobsManager':
      world.setBehaviour('jobs-manager', step.behaviour);
      return;
    case 'tick':
      return;
  }
};

// --- what the world's log says ---------------------------------------------

const isAttemptWrite = (c: SimCall): boolean =>
  c.op === 'patchBookkeeping' && c.detail.split(' ').some((part) => part.startsWith('tracebloc.io/refresh-attempt='));

/** The forward set images sent (not one already on target, not the rollback after a failed rollout). */
const forwardSetImages = (calls: readonly SimCall[]): { at: number; workload: WorkloadId; images: string[] }[] => {
  const failed = calls.findIndex(
    (c) =>
      (c.op === 'setImages' && c.outcome !== 'ok' && c.outcome !== 'unchanged') ||
      ((c.op === 'waitForRollout' || c.op === 'watchStability') && c.outcome !== 'ok'),
  );
  return calls.flatMap((c, at) => {
    if (c.op !== 'setImages' || c.outcome !== 'ok' || (failed >= 0 && at > failed)) return [];
    const [workload, ...pairs] = c.detail.split(' ');
    return [{ at, workload: workload as WorkloadId, images: pairs.map((p) => p.slice(p.indexOf('=') + 1)) }];
  });
};

/** `stageImage` answers per workload this tick: staged when every node of it said Staged. */
const stagedWorkloads = (calls: readonly SimCall[]): { staged: Set<string>; failed: Set<string> } => {
  const byWorkload = new Map<string, string[]>();
  for (const c of calls.filter((c) => c.op === 'stageImage')) {
    const workload = c.detail.split(' ')[0] ?? '';
    byWorkload.set(workload, [...(byWorkload.get(workload) ?? []), c.outcome]);
  }
  const staged = new Set([...byWorkload].filter(([, o]) => o.every((x) => x === 'Staged')).map(([w]) => w));
  const failed = new Set([...byWorkload].filter(([, o]) => o.some((x) => x !== 'Staged')).map(([w]) => w));
  return { staged, failed };
};

interface TickFacts {
  readonly config: TickConfig;
  readonly world: SimWorld;
  /** Every call of the sequence so far, this tick's last. */
  readonly log: readonly SimCall[];
  /** Where this tick's calls start in `log`. */
  readonly from: number;
  readonly annotationsBefore: Readonly<Record<string, string>>;
  readonly registryBefore: ReadonlyMap<string, string>;
  readonly podsBefore: number;
  readonly exitCode: number;
}

interface StagingInvariant {
  readonly id: string;
  readonly says: string;
  readonly appliesTo: (t: TickFacts) => boolean;
  readonly violation: (t: TickFacts) => string | undefined;
}

const tickCalls = (t: TickFacts): readonly SimCall[] => t.log.slice(t.from);
const recordKeyOf = (repo: string) => IMAGES.find((i) => i.repo === repo)?.recordKey ?? '';

const STAGING_INVARIANTS: readonly StagingInvariant[] = [
  {
    id: 'I40',
    says: 'With PREPULL=on, no set image of a workload before every one of its nodes reported the images staged, on that tick or an earlier one.',
    appliesTo: (t) => t.config.staging?.prepull !== undefined && forwardSetImages(tickCalls(t)).length > 0,
    violation: (t) => {
      for (const set of forwardSetImages(tickCalls(t))) {
        const before = t.log.slice(0, t.from + set.at);
        for (const node of t.world.nodes.nodesOf(set.workload)) {
          for (const image of set.images) {
            const staged = before.some(
              (c) =>
                c.op === 'stageImage' &&
                c.outcome === 'Staged' &&
                c.detail.startsWith(`${set.workload} ${node} `) &&
                c.detail.split(' ').slice(2).includes(image),
            );
            if (!staged) return `set ${set.workload} to ${image}, never staged on ${node}`;
          }
        }
      }
      return undefined;
    },
  },
  {
    id: 'I41',
    says: 'With PREPULL=on, a staging failure never spends an attempt: refresh-attempt is written only after staging, and only when some workload was staged on every node that tick.',
    appliesTo: (t) => t.config.staging?.prepull !== undefined && stagedWorkloads(tickCalls(t)).failed.size > 0,
    violation: (t) => {
      const calls = tickCalls(t);
      const attempt = calls.findIndex(isAttemptWrite);
      if (attempt < 0) return undefined;
      const lastStaging = calls.map((c) => c.op).lastIndexOf('stageImages');
      if (attempt < lastStaging) return 'wrote refresh-attempt before staging had answered';
      return stagedWorkloads(calls).staged.size > 0
        ? undefined
        : 'wrote refresh-attempt on a tick whose staging failed for every workload';
    },
  },
  {
    id: 'I42',
    says: 'With PLATFORM_CHECK=on, no set image carries a changed digest that lacks a platform its recorded digest provides, or whose platforms (or the recorded one’s) were not read that tick; a tick that found one lacking exits 1.',
    appliesTo: (t) =>
      t.config.staging?.platformCheck === true &&
      (forwardSetImages(tickCalls(t)).length > 0 || tickCalls(t).some((c) => c.op === 'readPlatforms')),
    violation: (t) => {
      const calls = tickCalls(t);
      const platformsOf = (digest: string): readonly Platform[] | undefined => {
        const p = t.world.platformsOf(digest);
        return typeof p === 'string' ? undefined : p;
      };
      for (const set of forwardSetImages(calls)) {
        for (const image of set.images) {
          const repo = image.slice('docker.io/'.length, image.indexOf('@'));
          const digest = image.slice(image.indexOf('@') + 1);
          const recorded = t.annotationsBefore[recordKeyOf(repo)];
          if (recorded === undefined || recorded === digest) continue;
          const read = (d: string) =>
            calls
              .slice(0, set.at)
              .some(
                (c) => c.op === 'readPlatforms' && c.outcome === 'Platforms' && c.detail.startsWith(`${repo}@${d} `),
              );
          if (!read(digest) || !read(recorded)) return `set ${image} without reading both manifests first`;
          const lacking = lackingPlatforms(platformsOf(recorded) ?? [], platformsOf(digest) ?? []);
          if (lacking.length > 0) return `set ${image}, which lacks ${lacking.map(platformName).join(', ')}`;
        }
      }
      // A refusal is a finding (unless the tick was stopped): judged on the world's manifests.
      const refused = IMAGES.some(({ repo, recordKey }) => {
        const digest = t.registryBefore.get(`${repo}:stg`);
        const recorded = t.annotationsBefore[recordKey];
        const answered = (d: string | undefined) =>
          calls.some(
            (c) => c.op === 'readPlatforms' && c.outcome === 'Platforms' && c.detail.startsWith(`${repo}@${d} `),
          );
        if (digest === undefined || recorded === undefined || !answered(digest) || !answered(recorded)) return false;
        return lackingPlatforms(platformsOf(recorded) ?? [], platformsOf(digest) ?? []).length > 0;
      });
      return refused && t.exitCode !== 1 ? `refused a digest lacking a platform, yet exited ${t.exitCode}` : undefined;
    },
  },
  {
    id: 'I44',
    says: 'With PREPULL=on, no staging pod outlives a tick that staged: its own are deleted, and those an earlier, killed tick left are found and removed.',
    appliesTo: (t) =>
      t.config.staging?.prepull !== undefined && tickCalls(t).some((c) => c.op === 'stageImage') && t.podsBefore > 0,
    violation: (t) =>
      t.world.nodes.stagingPods.size === 0
        ? undefined
        : `${t.world.nodes.stagingPods.size} staging pod(s) left: ${[...t.world.nodes.stagingPods.values()].map((p) => `${p.workload}@${p.node}`).join(', ')}`,
  },
];

/** Situations the generators must reach often enough, each named by the invariants it exercises. */
const SITUATIONS: readonly { readonly name: string; readonly ids: string; readonly when: (t: TickFacts) => boolean }[] =
  [
    {
      name: 'a tick whose staging failed on some node (slow link, failed pull, staging call failed)',
      ids: 'I41',
      when: (t) => tickCalls(t).some((c) => c.op === 'stageImage' && c.outcome !== 'Staged'),
    },
    {
      name: 'a workload switched after a staging that took minutes',
      ids: 'I40',
      when: (t) =>
        forwardSetImages(tickCalls(t)).length > 0 &&
        t.log[t.log.length - 1] !== undefined &&
        tickCalls(t).some((c) => c.op === 'stageImage') &&
        (t.log.at(-1)?.at ?? 0) - (t.log[t.from]?.at ?? 0) > 2 * MINUTE,
    },
    {
      name: 'a digest refused by the platform check',
      ids: 'I42',
      when: (t) => t.exitCode === 1 && tickCalls(t).some((c) => c.op === 'readPlatforms'),
    },
  ];

/** How often each staging invariant's precondition, and each situation, held. */
const met = new Map<string, number>([
  ...STAGING_INVARIANTS.map((i) => [i.id, 0] as const),
  ...SITUATIONS.map((s) => [s.name, 0] as const),
]);
const count = (key: string) => met.set(key, (met.get(key) ?? 0) + 1);

let run: { readonly failed: boolean } | undefined;
let failure = '';
const violates = (id: string): boolean => new RegExp(`^${id} `, 'm').test(failure);

const checkTick = async (
  world: SimWorld,
  ports: TickPorts,
  config: TickConfig,
  checker: SpecChecker,
  log: SimCall[],
): Promise<void> => {
  const replayWorld = world.clone();
  const from = world.calls.length;
  const annotationsBefore = { ...world.annotations };
  const registryBefore = new Map(world.registry);
  const podsBefore = world.nodes.stagingPods.size;
  const record = await recordTick(world, ports, config);
  const replay = await recordTick(replayWorld, simPorts(replayWorld), config);
  const main = checker.check(record, replay);
  if (main.length > 0)
    expect.fail(
      `${describeViolations(main)}\n  calls: ${record.calls.map((c) => `${c.op} ${c.detail}=${c.outcome}`).join('; ')}`,
    );
  log.length = 0;
  log.push(...world.calls);
  const facts: TickFacts = {
    config,
    world,
    log,
    from,
    annotationsBefore,
    registryBefore,
    podsBefore,
    exitCode: record.outcome.exitCode,
  };
  const broken: string[] = [];
  for (const invariant of STAGING_INVARIANTS) {
    if (!invariant.appliesTo(facts)) continue;
    count(invariant.id);
    const detail = invariant.violation(facts);
    if (detail !== undefined) broken.push(`${invariant.id} ${invariant.says}\n    violated: ${detail}`);
  }
  for (const situation of SITUATIONS) if (situation.when(facts)) count(situation.name);
  if (broken.length > 0) {
    expect.fail(
      `${broken.join('\n')}\n  tick events:\n${record.outcome.events.map((e) => `    ${e.level} ${e.message}`).join('\n')}`,
    );
  }
};

describe(`stage, then switch: I40–I44 over fuzzed sequences (seed ${SEED}, ${RUNS} runs)`, () => {
  it(`explores ${RUNS} sequences and finds no counterexample (I1–I43 checked on every tick too)`, async () => {
    const details = await fc.check(
      fc.asyncProperty(
        environmentArbitrary,
        fc.array(stepArbitrary, { minLength: 10, maxLength: 60 }),
        async (env, steps) => {
          const config = simConfig(env);
          const world = new SimWorld(config);
          const ports = simPorts(world);
          const checker = new SpecChecker();
          const builds = new Builds();
          const log: SimCall[] = [];
          for (const step of [{ _tag: 'tick' } as Step, ...steps]) {
            apply(world, builds, step);
            if (step._tag === 'tick') await checkTick(world, ports, config, checker, log);
          }
        },
      ),
      { numRuns: RUNS, seed: SEED },
    );
    run = { failed: details.failed };
    if (details.failed) {
      failure = details.errorInstance instanceof Error ? details.errorInstance.message : String(details.errorInstance);
      expect.fail(
        `${await fc.asyncDefaultReportMessage(details)}\n${failure}\n  replay: IMAGE_REFRESH_PROPERTY_SEED=${SEED}`,
      );
    }
  }, 600_000);

  for (const invariant of STAGING_INVARIANTS) {
    describe(`${invariant.id}: ${invariant.says}`, () => {
      it('holds after every tick of every sequence', () => {
        expect(run, 'the exploration did not run (a -t filter must include "explores")').toBeDefined();
        expect(violates(invariant.id), `${invariant.id} violated (seed ${SEED}):\n${failure}`).toBe(false);
      });
      it(`is not vacuous: its precondition held at least ${MIN_PRECONDITIONS} times`, () => {
        if (run?.failed !== false) return;
        expect(met.get(invariant.id) ?? 0).toBeGreaterThanOrEqual(MIN_PRECONDITIONS);
      });
    });
  }

  it(`every situation the staging invariants are about occurred at least ${MIN_PRECONDITIONS} times`, () => {
    if (run?.failed !== false) return;
    const thin = SITUATIONS.filter((s) => (met.get(s.name) ?? 0) < MIN_PRECONDITIONS).map(
      (s) => `${s.name} (${s.ids}): ${met.get(s.name) ?? 0}`,
    );
    expect(thin, `situations met too rarely (seed ${SEED})`).toEqual([]);
  });

  it('I43: with both switches off, a tick is the one without them: same calls, writes and outcome, with or without the ports', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(stepArbitrary, { maxLength: 40 }), async (steps) => {
        // Today's tick: no switch set, and no platform or staging port at all.
        const today = new SimWorld(simConfig({}));
        const { platforms: _p, staging: _s, ...todayPorts } = simPorts(today);
        // Both off spelled out (their other variables ignored), with every port the tick could call.
        const explicit = new SimWorld(
          simConfig({ PLATFORM_CHECK: 'off', PREPULL: 'off', PREPULL_TIMEOUT: 'soon', PREPULL_PARALLEL: 'all' }),
        );
        const explicitPorts = simPorts(explicit);
        const builds = [new Builds(), new Builds()] as const;
        for (const step of [{ _tag: 'tick' } as Step, ...steps]) {
          apply(today, builds[0], step);
          apply(explicit, builds[1], step);
          if (step._tag !== 'tick') continue;
          const [a, b] = [await runTick(today.config, todayPorts), await runTick(explicit.config, explicitPorts)];
          expect(b).toEqual(a);
        }
        const spoken = (w: SimWorld) => w.calls.map((c) => `${c.op} ${c.detail} ${c.outcome} ${c.at}`);
        expect(spoken(explicit)).toEqual(spoken(today));
        expect(
          explicit.calls.filter((c) =>
            ['readPlatforms', 'stageImages', 'stageImage', 'deleteStagingPod'].includes(c.op),
          ),
        ).toEqual([]);
      }),
      { numRuns: Math.max(20, Math.floor(RUNS / 3)), seed: SEED },
    );
  }, 300_000);

  afterAll(() => {
    console.log(
      [
        `stage-then-switch properties (seed ${SEED}, ${RUNS} runs):`,
        ...[...met].map(([key, n]) => `  ${String(n).padStart(6)}  ${key}`),
      ].join('\n'),
    );
  });
});
