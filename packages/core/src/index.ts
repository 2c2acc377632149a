// Public surface of @image-refresh/core. Everything not exported here is internal.

export { formatDuration, parseDurationMs } from './config/duration.js';
export { DEFAULTS, ENV, type Environment } from './config/environment.js';
export { parseTickConfig } from './config/parse-config.js';
export type { ConfigError, TickConfig } from './config/tick-config.js';
export { describeConfigError } from './config/tick-config.js';
export { counterValue } from './domain/counter.js';
export { type Digest, isWellFormedDigest, shortDigest } from './domain/digest.js';
export { kubernetesEventsFor } from './domain/kubernetes-events.js';
export { type LiveFinding, liveFindings, type ManagedContainer, parseReference } from './domain/live-drift.js';
export {
  type ImageResolution,
  type ImageVerdict,
  imageReference,
  planRefresh,
  type RefreshPlan,
  type WorkloadChange,
  workloadRef,
} from './domain/plan.js';
export {
  type DaemonSetRolloutView,
  type DeploymentRolloutView,
  daemonSetSettledness,
  deploymentSettledness,
  type Settledness,
} from './domain/settledness.js';
export {
  ANNOTATION,
  CONTAINER,
  describeWorkload,
  IMAGES,
  type ImageName,
  type ImageSpec,
  imageSpec,
  type PinName,
  WORKLOAD_ORDER,
  type WorkloadId,
  type WorkloadKind,
  type WorkloadRef,
} from './domain/workloads.js';
export { mermaidDiagram } from './machine/diagram.js';
export { type PortBounds, portBounds } from './machine/port-bounds.js';
export type { EventCode, EventLevel, TickEvent } from './machine/tick-event.js';
export { isFinding } from './machine/tick-event.js';
export { type TickMachine, tickMachine } from './machine/tick-machine.js';
export type {
  AnnotationWrite,
  DigestChange,
  Reimage,
  TickOutcome,
  TickResult,
  WriteKind,
} from './machine/tick-outcome.js';
export type { ClusterPort, ContainerImage, LiveWorkload, RecordedDigests, RolloutError } from './ports/cluster-port.js';
export { dryRunPorts } from './ports/dry-run.js';
export type { EventsPort, KubeEvent } from './ports/events-port.js';
export * from './ports/port-error.js';
export type { DigestRequest, RegistryError, RegistryPort, Resolution } from './ports/registry-port.js';
export {
  provideTickPorts,
  runTick,
  runTickAsActor,
  runTickFromEnvironment,
  type TickOptions,
  type TickPorts,
  type Timers,
} from './run-tick.js';
