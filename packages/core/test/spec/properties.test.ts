import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { SimWorld, simConfig, simPorts } from '../../src/sim/index.js';
import { environmentArbitrary } from './config-arbitrary.js';
import { INVARIANTS } from './invariants.js';
import { SITUATIONS, SpecChecker } from './spec-checker.js';
import { commandsFor, type Edge } from './world-commands.js';

// The specification of image-refresh, as a property: over every generated
// sequence of world events and ticks, every tick satisfies every invariant
// of invariants.ts, each reported under its own id, on the chart's topology
// (docs/behaviour.md §2; profiles.properties.test.ts holds the same
// invariants over drawn profiles). A run explores IMAGE_REFRESH_PROPERTY_RUNS sequences
// (default 2,000) of up to 60 steps; raise it for a deep run, e.g.
//   IMAGE_REFRESH_PROPERTY_RUNS=100000 npx -y pnpm@10.34.9 exec vitest run --project core test/spec
// Every run prints its seed; a failure prints the shrunk story and a replay line.

const RUNS = Number(process.env.IMAGE_REFRESH_PROPERTY_RUNS ?? 2_000);
const SEED = Number(process.env.IMAGE_REFRESH_PROPERTY_SEED ?? Date.now() % 2_147_483_647);
const PATH = process.env.IMAGE_REFRESH_PROPERTY_PATH;
// fast-check replays a command sequence only with the shrink path of the
// commands themselves (their `replayPath`) beside the run's path.
const COMMANDS_PATH = process.env.IMAGE_REFRESH_PROPERTY_COMMANDS_PATH;
const MIN_PRECONDITIONS = Number(process.env.IMAGE_REFRESH_PROPERTY_MIN ?? 50);
// The exploration's bound grows with its size: a deep run (100,000 sequences,
// 31 min here on 2026-12-03, about 19 ms a sequence) ran into a fixed 15
// minutes and was reported as a timeout although it found nothing. 40 ms a
// sequence leaves it twice that; a normal run keeps 15 minutes.
const EXPLORATION_TIMEOUT_MS = Math.max(900_000, RUNS * 40);
const REPLAY = `IMAGE_REFRESH_PROPERTY_SEED=${SEED} IMAGE_REFRESH_PROPERTY_RUNS=${RUNS} npx -y pnpm@10.34.9 exec vitest run --project core test/spec/properties.test.ts`;

const checker = new SpecChecker();
/** The chart's world commands: its topology's shape is the same under every pin. */
const CHART_COMMANDS = commandsFor(simConfig().topology);

/** The exploration's verdict, shared by the tests below: one run, one verdict per invariant. */
let run: { readonly failed: boolean } | undefined;
/** The shrunk counterexample's story and violations, when the run found one. */
let failure = '';

/** Whether the counterexample names invariant `id` (describeViolations starts each with "<id> ("). */
const violates = (id: string): boolean => new RegExp(`^${id} \\(`, 'm').test(failure);

describe(`image-refresh invariants over fuzzed tick sequences (seed ${SEED}, ${RUNS} runs)`, () => {
  // One exploration feeds every test of this file: a failure in it names the
  // invariant(s) the shrunk counterexample broke, and each invariant's own
  // test below reddens under its id (test titles carry the id). It
  // is a test, not a beforeAll: Stryker attributes coverage per test, and
  // code run in a hook makes every mutant "static" (run against every test).
  it(
    `explores ${RUNS} sequences of up to 60 steps and finds no counterexample`,
    async () => {
      console.log(`property suite: seed ${SEED}, ${RUNS} sequences of up to 60 steps\n  replay: ${REPLAY}`);
      const details = await fc.check(
        fc.asyncProperty(
          environmentArbitrary,
          fc.commands([CHART_COMMANDS], {
            maxCommands: 60,
            size: 'max',
            ...(COMMANDS_PATH === undefined ? {} : { replayPath: COMMANDS_PATH }),
          }),
          async (env, commands) => {
            const config = simConfig(env);
            const world = new SimWorld(config);
            checker.reset();
            const edge: Edge = {
              config,
              world,
              ports: simPorts(world),
              checker,
              build: 1,
              gateCrashLoops: false,
            };
            await fc.asyncModelRun(() => ({ model: {}, real: edge }), commands);
          },
        ),
        { numRuns: RUNS, seed: SEED, ...(PATH === undefined ? {} : { path: PATH, endOnFailure: true }), verbose: 1 },
      );
      run = { failed: details.failed };
      if (details.failed) {
        const error = details.errorInstance;
        failure = error instanceof Error ? error.message : String(error);
        const commandsPath = /replayPath="([^"]*)"/.exec(String(details.counterexample?.[1]))?.[1];
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
      it(`is not vacuous: its precondition held at least ${MIN_PRECONDITIONS} times`, () => {
        // A run that stopped at a counterexample explored too little to judge.
        if (run?.failed !== false) return;
        expect(checker.preconditionsMet.get(invariant.id) ?? 0).toBeGreaterThanOrEqual(MIN_PRECONDITIONS);
      });
    });
  }

  it(`every situation the invariants are about occurred at least ${MIN_PRECONDITIONS} times`, () => {
    if (run?.failed !== false) return;
    const thin = SITUATIONS.filter((s) => (checker.situationsMet.get(s.name) ?? 0) < MIN_PRECONDITIONS).map(
      (s) => `${s.name} (${s.invariants}): ${checker.situationsMet.get(s.name) ?? 0}`,
    );
    expect(thin, `situations met too rarely (seed ${SEED})`).toEqual([]);
  });

  afterAll(() => {
    const lines = [
      `property suite: ${checker.ticks} ticks checked (seed ${SEED})`,
      ...INVARIANTS.map(
        (i) => `  ${i.id.padEnd(4)} ${String(checker.preconditionsMet.get(i.id)).padStart(7)}  ${i.says}`,
      ),
      '  situations:',
      ...SITUATIONS.map(
        (s) => `  ${String(checker.situationsMet.get(s.name)).padStart(12)}  ${s.name} (${s.invariants})`,
      ),
    ];
    console.log(lines.join('\n'));
  });
});
