import { runTick } from '../src/index.js';
import { SimWorld, simConfig, simDigest, simPorts } from '../src/sim/index.js';

// `pnpm bench`: simulator throughput, as `<case>: <N> ticks/s` lines. Target
// on the 2-core CI machine: ≥ 10,000 steady-state ticks/s, so the property
// suite can explore hundreds of thousands of ticks per run.

const config = simConfig();

/** One world and its ports for the whole run, reset before every tick, as a property-test sequence does. */
const measure = async (label: string, reset: (world: SimWorld) => void, seconds = 2): Promise<void> => {
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
};

/** Settled, digests recorded, nothing new: what 15-minute ticks almost always are. */
const steadyWorld = async (): Promise<SimWorld> => {
  const world = new SimWorld(config);
  await runTick(config, simPorts(world));
  return world;
};

const steady = await steadyWorld();
const steadyAnnotations = { ...steady.annotations };

await measure('steady-state tick', (world) => {
  world.annotations = { ...steadyAnnotations };
  world.calls.length = 0;
});

let generation = 2;
await measure('re-image tick', (world) => {
  world.annotations = { ...steadyAnnotations };
  world.calls.length = 0;
  generation += 1;
  world.publish('tracebloc/jobs-manager', simDigest(`tracebloc/jobs-manager#${generation}`));
  world.publish('tracebloc/resource-monitor', simDigest(`tracebloc/resource-monitor#${generation}`));
});
