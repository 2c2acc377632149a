import { runTick } from '../src/index.js';
import { SimWorld, simPorts } from '../src/sim/index.js';
import { type BenchCase, benchConfig as config, reimageTick, steadyTick } from './sim-cases.js';

// `pnpm bench`: simulator throughput, as `<case>: <N> ticks/s` lines. Target
// on the 2-core CI machine: ≥ 10,000 steady-state ticks/s, so the property
// suite can explore hundreds of thousands of ticks per run.

/** One world and its ports for the whole run, reset before every tick, as a property-test sequence does. */
const measure = async ({ label, reset }: BenchCase, seconds = 2): Promise<void> => {
  const world = new SimWorld(config);
  const ports = simPorts(world);
  const tick = async () => {
    reset(world);
    await runTick(config, ports);
  };
  for (let i = 0; i < 500; i++) await tick(); // warm up the JIT before timing
  let ticks = 0;
  const started = performance.now();
  const until = started + seconds * 1000;
  while (performance.now() < until) {
    for (let i = 0; i < 100; i++) await tick();
    ticks += 100;
  }
  const perSecond = Math.round((ticks * 1000) / (performance.now() - started));
  console.log(`${label}: ${perSecond} ticks/s`);
  // The world's call log holds the last tick's port calls (the reset empties it).
  console.log(`${label}: ${world.calls.length} port calls a tick`);
};

await measure(steadyTick);
await measure(reimageTick);
