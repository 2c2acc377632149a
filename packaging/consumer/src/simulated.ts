// A test suite reusing the simulator from the ./sim subpath: the real tick
// machine on an in-memory edge, a new build published between two ticks.
import { runTick } from '@image-refresh/core';
import { SimWorld, simConfig, simDigest, simPorts } from '@image-refresh/core/sim';

const world = new SimWorld(simConfig());
const ports = simPorts(world);
const first = await runTick(world.config, ports);
world.publish('tracebloc/jobs-manager', simDigest('jobs-manager build 2'));
const second = await runTick(world.config, ports);
console.log(`first ${first.result} reimages=${first.reimages.length}`);
console.log(
  `second ${second.result} reimages=${second.reimages.length} api=${world.workload('jobs-manager').images.api}`,
);
