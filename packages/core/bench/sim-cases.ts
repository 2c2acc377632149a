import { runTick } from '../src/index.js';
import { SimWorld, simConfig, simDigest, simPorts } from '../src/sim/index.js';

// The two ticks the benchmarks fold, on the simulator's default edge: each a
// reset that puts a world, reused for the whole run, back where the tick starts.

/**
 * BENCH_ENV: the variables the benchmarked edge runs with, `NAME=value`
 * separated by spaces (`BENCH_ENV=OWNERSHIP_CHECK=off` measures a tick
 * without one switch's steps); unset, every switch at its default.
 */
const benchEnvironment = (text = process.env.BENCH_ENV ?? ''): Record<string, string> =>
  Object.fromEntries(
    text
      .split(/\s+/)
      .filter((pair) => pair !== '')
      .map((pair) => {
        const at = pair.indexOf('=');
        if (at < 1) throw new Error(`BENCH_ENV: "${pair}" is not NAME=value`);
        return [pair.slice(0, at), pair.slice(at + 1)];
      }),
  );

export const benchConfig = simConfig(benchEnvironment());

/** A tick to measure: what the world is reset to before each one. */
export interface BenchCase {
  readonly label: string;
  readonly reset: (world: SimWorld) => void;
}

/** Settled, digests recorded, nothing new: what 15-minute ticks almost always are. */
const steadyAnnotations = async (): Promise<Record<string, string>> => {
  const world = new SimWorld(benchConfig);
  await runTick(benchConfig, simPorts(world));
  return { ...world.annotations };
};

const recorded = await steadyAnnotations();
let generation = 2;

export const steadyTick: BenchCase = {
  label: 'steady-state tick',
  reset: (world) => {
    world.annotations = { ...recorded };
    world.calls.length = 0;
  },
};

/** The steady world with a new build of jobs-manager and resource-monitor published each tick. */
export const reimageTick: BenchCase = {
  label: 're-image tick',
  reset: (world) => {
    steadyTick.reset(world);
    generation += 1;
    world.publish('tracebloc/jobs-manager', simDigest(`tracebloc/jobs-manager#${generation}`));
    world.publish('tracebloc/resource-monitor', simDigest(`tracebloc/resource-monitor#${generation}`));
  },
};
