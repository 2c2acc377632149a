// @image-refresh/core/sim — the simulated cluster and registry, for tests, the
// property suite, benchmarks and `image-refresh simulate`: the real tick
// machine on an in-memory edge with injectable faults and virtual time.
// Public on its own subpath so the main entry stays free of test equipment.

export { profileTour, publishBuild } from './profile-tour.js';
export { runScenario, type TimelineRow } from './run-scenario.js';
export { SCENARIOS, type Scenario, type ScenarioStep, scenarioNamed } from './scenarios.js';
export { SIM_ENVIRONMENT, SIM_PROFILE_ENVIRONMENT, simConfig } from './sim-config.js';
export { simDigest } from './sim-digest.js';
export { SIM_HALT_ENVIRONMENT, SIM_HALT_REPO, SIM_HALT_TAG, simHaltDocument } from './sim-fleet-halt.js';
export { SIM_PROMOTION_ENVIRONMENT, SIM_PROMOTION_TAG, simPromotionDocument } from './sim-fleet-promotion.js';
export { SIM_NODE_NAMES, SimNodes, type SimStagingPod } from './sim-nodes.js';
export { simPorts } from './sim-ports.js';
export { SHOP_PROFILE } from './sim-shop.js';
export {
  type ClusterFault,
  type ClusterOp,
  type FaultTarget,
  type HaltDocumentFault,
  type PlatformFault,
  type RegistryFault,
  type RolloutBehaviour,
  SIM_PLATFORMS,
  SIM_SIGNING_KEY,
  type SignatureFault,
  type SimCall,
  type SimKubeEvent,
  type SimWorkload,
  SimWorld,
} from './sim-world.js';
