import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import type { Environment } from '../../src/config/environment.js';
import type { Profile } from '../../src/config/profile/profile.js';
import type { TickConfig } from '../../src/config/tick-config.js';
import { SimWorld, simConfig, simDigest, simPorts } from '../../src/sim/index.js';
import { profileEnvironmentArbitrary } from './config-arbitrary.js';
import { INVARIANTS } from './invariants.js';
import { profileArbitrary, shapeOf } from './profile-arbitrary.js';
import { SITUATIONS, SpecChecker } from './spec-checker.js';
import type { TickView } from './tick-view.js';
import { commandsFor, type Edge } from './world-commands.js';

// The specification holds for topologies no one wrote by hand
// (docs/profiles.md): every sequence draws a profile (1 to 6 Deployments and
// DaemonSets across namespaces, images shared between workloads, sidecars,
// image and workload pins, a gate with and without decoupled workloads), an
// environment beside it (the switches and ceilings of properties.test.ts,
// none of the chart's variables, a value for each pin the profile names) and
// world commands drawn from that topology (world-commands.ts, commandsFor);
// every tick is held to every invariant of invariants.ts and replayed on a
// clone of its world (I20). A run fails when an invariant's precondition, or
// a situation of spec-checker.ts, was met fewer than IMAGE_REFRESH_PROPERTY_MIN
// times (50), as in properties.test.ts, and when a shape of topology was drawn
// in fewer than IMAGE_REFRESH_PROFILE_SHAPE_MIN sequences (20) or was at stake
// on fewer ticks than that. The floors keep a margin of three or more at the
// default 4,000 sequences (2026-12-05, 68 s inside the whole core run on two
// cores, 40,000 ticks): the thinnest precondition and situation, I4's
// unreadable streak and I11's unreadable attempt, were met 179 and 248 times;
// the rarest shape, one workload, was drawn in 700 sequences and at stake on
// 326 ticks. The run is sized for this file to take at most about three
// minutes on two cores; raise it for a deep run:
//   IMAGE_REFRESH_PROPERTY_RUNS=30000 npx -y pnpm@10.34.9 exec vitest run --project core test/spec/profiles.properties.test.ts
// Every run prints its seed; a failure prints the shrunk story (the profile,
// the environment, then each world event and tick) and a replay line.

const RUNS = Number(process.env.IMAGE_REFRESH_PROPERTY_RUNS ?? 4_000);
const SEED = Number(process.env.IMAGE_REFRESH_PROPERTY_SEED ?? Date.now() % 2_147_483_647);
const PATH = process.env.IMAGE_REFRESH_PROPERTY_PATH;
// fast-check replays a command sequence only with the shrink path of the
// commands themselves (their `replayPath`) beside the run's path.
const COMMANDS_PATH = process.env.IMAGE_REFRESH_PROPERTY_COMMANDS_PATH;
const MIN_PRECONDITIONS = Number(process.env.IMAGE_REFRESH_PROPERTY_MIN ?? 50);
// IMAGE_REFRESH_PROPERTY_MIN=0 switches every floor off, the shapes' too (as under Stryker, test/support/under-stryker.ts).
const MIN_PER_SHAPE = Number(process.env.IMAGE_REFRESH_PROFILE_SHAPE_MIN ?? (MIN_PRECONDITIONS === 0 ? 0 : 20));
// As properties.test.ts: the bound grows with the exploration, 60 ms a
// sequence (the chart's 40 ms and more: a tick of six workloads makes more calls).
const EXPLORATION_TIMEOUT_MS = Math.max(900_000, RUNS * 60);
const REPLAY = `IMAGE_REFRESH_PROPERTY_SEED=${SEED} IMAGE_REFRESH_PROPERTY_RUNS=${RUNS} npx -y pnpm@10.34.9 exec vitest run --project core test/spec/profiles.properties.test.ts`;

/**
 * The mirror guard is the chart's (docs/behaviour.md §3.1): with a profile
 * IMAGE_REGISTRY is ignored, so no tick here is mirror-inert — I14's
 * precondition must never hold, and its situation is never reached.
 */
const CHART_ONLY_INVARIANTS: ReadonlySet<string> = new Set(['I14']);
const CHART_ONLY_SITUATIONS: ReadonlySet<string> = new Set(['a private mirror']);

/** One drawn edge: its profile, the environment beside it, and the config the tick reads from both. */
interface DrawnEdge {
  readonly profile: Profile;
  readonly env: Environment;
  readonly config: TickConfig;
}

/**
 * A shape of topology the run must reach: drawn in enough sequences, and at
 * stake on enough ticks — a tick where what makes the shape different from
 * the chart's is what the invariants judge.
 */
interface Shape {
  readonly name: string;
  readonly has: (edge: DrawnEdge) => boolean;
  /** What puts the shape at stake on a tick, said in the printed counts. */
  readonly atStake: string;
  readonly when: (t: TickView) => boolean;
}

/** The workloads a tick asked to set images on, forward (not a rollback). */
const setWorkloads = (t: TickView): readonly string[] => [...new Set(t.setImageCalls().map((c) => c.workload))];

/** A new build of the image is behind its tag: its registry answer is no longer the install's build 1. */
const republished = (t: TickView, repo: string): boolean => {
  const image = t.images.find((i) => i.repo === repo);
  return image !== undefined && t.registryDigest(image) !== simDigest(`${repo}#1`);
};

const SHAPES: readonly Shape[] = [
  {
    name: 'one workload',
    has: ({ profile }) => shapeOf(profile).workloads === 1,
    atStake: 'the gate, the only workload, re-imaged (I9, I16)',
    when: (t) => setWorkloads(t).includes(t.gateId),
  },
  {
    name: 'several workloads',
    has: ({ profile }) => shapeOf(profile).workloads > 1,
    atStake: 'two workloads or more re-imaged in one tick (I16, §3.6 order)',
    when: (t) => setWorkloads(t).length > 1,
  },
  {
    name: 'a DaemonSet',
    has: ({ profile }) => shapeOf(profile).daemonSets > 0,
    atStake: 'a DaemonSet re-imaged',
    when: (t) => setWorkloads(t).some((id) => t.topology.workloads.some((w) => w.id === id && w.kind === 'DaemonSet')),
  },
  {
    name: 'several namespaces',
    has: ({ profile }) => shapeOf(profile).namespaces > 1,
    atStake: "a workload outside the gate's namespace re-imaged",
    when: (t) =>
      setWorkloads(t).some((id) =>
        t.topology.workloads.some((w) => w.id === id && w.namespace !== t.topology.gate.namespace),
      ),
  },
  {
    name: 'an image shared between workloads',
    has: ({ profile }) => shapeOf(profile).sharedImage,
    atStake: 'one image set in two workloads or more in one tick (I16)',
    when: (t) =>
      t.images.some(
        (image) =>
          new Set(
            t
              .setImageCalls()
              .filter((c) => Object.keys(c.images).some((container) => t.imageAt(c.workload, container) === image))
              .map((c) => c.workload),
          ).size > 1,
      ),
  },
  {
    name: 'a sidecar (a workload of several containers)',
    has: ({ profile }) => shapeOf(profile).sidecar,
    atStake: 'a workload of several containers re-imaged (I16)',
    when: (t) =>
      setWorkloads(t).some((id) => (t.topology.workloads.find((w) => w.id === id)?.containers.length ?? 0) > 1),
  },
  {
    name: 'an image pin',
    has: ({ config }) => config.topology.images.some((i) => i.pinned),
    atStake: "a settled tick while a pinned image's tag names a new build (I13)",
    when: (t) => t.guardShouldPass && t.images.some((i) => i.pinned && republished(t, i.repo)),
  },
  {
    name: 'a workload pin',
    has: ({ config }) => config.topology.workloads.some((w) => w.pinned),
    atStake: 'a pinned workload with drift of an image it runs (I13)',
    when: (t) => situation('a pinned workload with drift of an image it runs')(t),
  },
  {
    name: 'a gate with decoupled workloads',
    has: ({ profile }) => shapeOf(profile).decoupled > 0,
    atStake: 'a decoupled pass with drift pending past an unsettled gate (I22, I24, I25)',
    when: (t) => situation('a decoupled pass with drift pending past an unsettled gate')(t),
  },
  {
    name: 'a gate without decoupled workloads',
    has: ({ profile }) => shapeOf(profile).decoupled === 0,
    atStake: 'an unsettled gate with a new build published, and no pass past it (I22)',
    when: (t) => t.unsettledButReadable && t.images.some((i) => republished(t, i.repo)),
  },
];

function situation(name: string): (t: TickView) => boolean {
  const found = SITUATIONS.find((s) => s.name === name);
  if (found === undefined) throw new Error(`spec-checker.ts has no situation "${name}"`);
  return found.when;
}

/** How often each shape was drawn and at stake, and each invariant's precondition met in its sequences. */
const perShape = new Map(
  SHAPES.map((s) => [
    s.name,
    { sequences: 0, ticks: 0, atStake: 0, preconditions: new Map<string, number>(INVARIANTS.map((i) => [i.id, 0])) },
  ]),
);
/** The shapes of the sequence running now. */
let currentShapes: readonly Shape[] = [];

const checker = new SpecChecker((view) => {
  for (const shape of currentShapes) {
    const counts = perShape.get(shape.name);
    if (counts === undefined) continue;
    counts.ticks += 1;
    if (shape.when(view)) counts.atStake += 1;
  }
});

/** A profile, the environment beside it, and a sequence of world commands drawn from its topology. */
const caseArbitrary = profileArbitrary.chain((profile) =>
  fc.tuple(
    fc.constant(profile),
    profileEnvironmentArbitrary(profile),
    fc.commands([commandsFor(simConfig({}, profile).topology)], {
      maxCommands: 60,
      size: 'max',
      ...(COMMANDS_PATH === undefined ? {} : { replayPath: COMMANDS_PATH }),
    }),
  ),
);

/** The exploration's verdict, shared by the tests below. */
let run: { readonly failed: boolean; readonly ms: number } | undefined;
/** The shrunk counterexample's story and violations, when the run found one. */
let failure = '';

/** Whether the counterexample names invariant `id` (describeViolations starts each with "<id> ("). */
const violates = (id: string): boolean => new RegExp(`^${id} \\(`, 'm').test(failure);

describe(`image-refresh invariants over drawn profiles (seed ${SEED}, ${RUNS} runs)`, () => {
  // One exploration feeds every test of this file, as in properties.test.ts:
  // a test, not a beforeAll, so that Stryker attributes coverage to it.
  it(
    `explores ${RUNS} profiles with a sequence of up to 60 steps each and finds no counterexample`,
    async () => {
      console.log(`profile property suite: seed ${SEED}, ${RUNS} sequences of up to 60 steps\n  replay: ${REPLAY}`);
      const started = Date.now();
      const details = await fc.check(
        fc.asyncProperty(caseArbitrary, async ([profile, env, commands]) => {
          const config = simConfig(env, profile);
          const drawn: DrawnEdge = { profile, env, config };
          currentShapes = SHAPES.filter((s) => s.has(drawn));
          for (const shape of currentShapes) {
            const counts = perShape.get(shape.name);
            if (counts !== undefined) counts.sequences += 1;
          }
          const before = new Map(checker.preconditionsMet);
          const world = new SimWorld(config);
          checker.reset();
          const edge: Edge = { config, world, ports: simPorts(world), checker, build: 1, gateCrashLoops: false };
          try {
            await fc.asyncModelRun(() => ({ model: {}, real: edge }), commands);
          } finally {
            for (const shape of currentShapes) {
              const counts = perShape.get(shape.name)?.preconditions;
              for (const [id, met] of checker.preconditionsMet) {
                counts?.set(id, (counts.get(id) ?? 0) + met - (before.get(id) ?? 0));
              }
            }
          }
        }),
        { numRuns: RUNS, seed: SEED, ...(PATH === undefined ? {} : { path: PATH, endOnFailure: true }), verbose: 1 },
      );
      run = { failed: details.failed, ms: Date.now() - started };
      if (details.failed) {
        const error = details.errorInstance;
        failure = error instanceof Error ? error.message : String(error);
        const commandsPath = /replayPath="([^"]*)"/.exec(String(details.counterexample?.[0]))?.[1];
        const replayShrunk = REPLAY.replace(
          'npx',
          `IMAGE_REFRESH_PROPERTY_PATH=${details.counterexamplePath} ${commandsPath === undefined ? '' : `IMAGE_REFRESH_PROPERTY_COMMANDS_PATH='${commandsPath}' `}npx`,
        );
        expect.fail(`${await fc.asyncDefaultReportMessage(details)}\n  replay the shrunk case: ${replayShrunk}`);
      }
    },
    EXPLORATION_TIMEOUT_MS,
  );

  for (const invariant of INVARIANTS) {
    describe(`${invariant.id}: ${invariant.says} (${invariant.source})`, () => {
      it('holds after every tick of every sequence', () => {
        expect(run, 'the exploration did not run (a -t filter must include "explores")').toBeDefined();
        expect(violates(invariant.id), `${invariant.id} violated (seed ${SEED}):\n${failure}`).toBe(false);
      });
      if (CHART_ONLY_INVARIANTS.has(invariant.id)) {
        it("is the chart's alone: its precondition never held beside a profile", () => {
          if (run?.failed !== false) return;
          expect(checker.preconditionsMet.get(invariant.id) ?? 0).toBe(0);
        });
      } else {
        it(`is not vacuous: its precondition held at least ${MIN_PRECONDITIONS} times`, () => {
          // A run that stopped at a counterexample explored too little to judge.
          if (run?.failed !== false) return;
          expect(checker.preconditionsMet.get(invariant.id) ?? 0).toBeGreaterThanOrEqual(MIN_PRECONDITIONS);
        });
      }
    });
  }

  it(`every situation the invariants are about occurred at least ${MIN_PRECONDITIONS} times`, () => {
    if (run?.failed !== false) return;
    const thin = SITUATIONS.filter(
      (s) => !CHART_ONLY_SITUATIONS.has(s.name) && (checker.situationsMet.get(s.name) ?? 0) < MIN_PRECONDITIONS,
    ).map((s) => `${s.name} (${s.invariants}): ${checker.situationsMet.get(s.name) ?? 0}`);
    expect(thin, `situations met too rarely (seed ${SEED})`).toEqual([]);
  });

  for (const shape of SHAPES) {
    it(`reaches ${shape.name}: drawn in at least ${MIN_PER_SHAPE} sequences, at stake on at least ${MIN_PER_SHAPE} ticks (${shape.atStake})`, () => {
      if (run?.failed !== false) return;
      const counts = perShape.get(shape.name);
      expect(counts?.sequences ?? 0, `sequences of ${shape.name} (seed ${SEED})`).toBeGreaterThanOrEqual(MIN_PER_SHAPE);
      expect(counts?.atStake ?? 0, `ticks with ${shape.atStake} (seed ${SEED})`).toBeGreaterThanOrEqual(MIN_PER_SHAPE);
    });
  }

  afterAll(() => {
    const seconds = (run?.ms ?? 0) / 1000;
    const column = (name: string) => SHAPES.findIndex((s) => s.name === name) + 1;
    const lines = [
      `profile property suite: ${checker.ticks} ticks checked in ${seconds.toFixed(1)} s (${Math.round(checker.ticks / Math.max(seconds, 0.001))} ticks/s, each also replayed for I20), seed ${SEED}`,
      '  shapes: sequences drawn, ticks checked, ticks at stake',
      ...SHAPES.map((s) => {
        const counts = perShape.get(s.name);
        return `  [${column(s.name)}] ${String(counts?.sequences).padStart(6)} ${String(counts?.ticks).padStart(7)} ${String(counts?.atStake).padStart(6)}  ${s.name}: ${s.atStake}`;
      }),
      `  preconditions met: all sequences, then per shape [${SHAPES.map((s) => column(s.name)).join('] [')}]`,
      ...INVARIANTS.map(
        (i) =>
          `  ${i.id.padEnd(4)} ${String(checker.preconditionsMet.get(i.id)).padStart(7)} ${SHAPES.map((s) =>
            String(perShape.get(s.name)?.preconditions.get(i.id)).padStart(6),
          ).join('')}`,
      ),
      '  situations:',
      ...SITUATIONS.map(
        (s) => `  ${String(checker.situationsMet.get(s.name)).padStart(7)}  ${s.name} (${s.invariants})`,
      ),
    ];
    console.log(lines.join('\n'));
  });
});
