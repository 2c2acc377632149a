// @image-refresh/core/sim — the simulated cluster and registry, for tests, the
// property suite, benchmarks and `image-refresh simulate`.

export { runScenario, type TimelineRow } from './run-scenario.js';
export { SCENARIOS, type Scenario, type ScenarioStep, scenarioNamed } from './scenarios.js';
export { SIM_ENVIRONMENT, simConfig } from './sim-config.js';
export { simDigest } from './sim-digest.js';
export { SIM_REGISTRY_MS, SIM_REQUEST_MS, SIM_ROLLOUT_MS, simPorts } from './sim-ports.js';
export {
  type ClusterFault,
  type ClusterOp,
  type RegistryFault,
  type RolloutBehaviour,
  type SimCall,
  type SimWorkload,
  SimWorld,
} from './sim-world.js';
