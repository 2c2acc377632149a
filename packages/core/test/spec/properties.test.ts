import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { SimWorld, simConfig, simPorts } from '../../src/sim/index.js';
import { environmentArbitrary } from './config-arbitrary.js';
import { INVARIANTS } from './invariants.js';
import { SITUATIONS, SpecChecker } from './spec-checker.js';
import { commandArbitrary, type Edge } from './world-commands.js';

// The specification of image-refresh, as a property: over every generated
// sequence of world events and ticks, every tick satisfies I1–I20
// (invariants.ts). A run explores IMAGE_REFRESH_PROPERTY_RUNS sequences
// (default 1,500) of up to 60 steps; raise it for a deep run, e.g.
//   IMAGE_REFRESH_PROPERTY_RUNS=100000 npx -y pnpm@10.34.9 exec vitest run --project core test/spec
// Every run prints its seed; a failure prints the shrunk story and a replay line.

const RUNS = Number(process.env.IMAGE_REFRESH_PROPERTY_RUNS ?? 1_500);
const SEED = Number(process.env.IMAGE_REFRESH_PROPERTY_SEED ?? Date.now() % 2_147_483_647);
const PATH = process.env.IMAGE_REFRESH_PROPERTY_PATH;
const MIN_PRECONDITIONS = Number(process.env.IMAGE_REFRESH_PROPERTY_MIN ?? 50);
const REPLAY = `IMAGE_REFRESH_PROPERTY_SEED=${SEED} IMAGE_REFRESH_PROPERTY_RUNS=${RUNS} npx -y pnpm@10.34.9 exec vitest run --project core test/spec/properties.test.ts`;

const checker = new SpecChecker();

describe(`image-refresh invariants over fuzzed tick sequences (seed ${SEED}, ${RUNS} runs)`, () => {
  it('every tick of every sequence satisfies I1–I20', async () => {
    console.log(`property suite: seed ${SEED}, ${RUNS} sequences of up to 60 steps\n  replay: ${REPLAY}`);
    await fc.assert(
      fc.asyncProperty(
        environmentArbitrary,
        fc.commands([commandArbitrary], { maxCommands: 60, size: 'max' }),
        async (env, commands) => {
          const config = simConfig(env);
          const world = new SimWorld(config);
          checker.reset();
          const edge: Edge = { config, world, ports: simPorts(world), checker, build: 1, jobsManagerCrashLoops: false };
          await fc.asyncModelRun(() => ({ model: {}, real: edge }), commands);
        },
      ),
      { numRuns: RUNS, seed: SEED, ...(PATH === undefined ? {} : { path: PATH, endOnFailure: true }), verbose: 1 },
    );
  }, 900_000);

  it(`no invariant holds vacuously: each precondition met at least ${MIN_PRECONDITIONS} times`, () => {
    const thin = [
      ...INVARIANTS.filter((i) => (checker.preconditionsMet.get(i.id) ?? 0) < MIN_PRECONDITIONS).map((i) => i.id),
      ...SITUATIONS.filter((s) => (checker.situationsMet.get(s.name) ?? 0) < MIN_PRECONDITIONS).map((s) => s.name),
    ];
    expect(thin, `preconditions met too rarely (seed ${SEED})`).toEqual([]);
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
