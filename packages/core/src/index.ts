// Public surface of @image-refresh/core, on purpose: removing or changing any
// name below is a breaking change (packaging/api/core.api.md records them, and
// a test fails when they change unreviewed). Everything not exported here is
// internal and not importable from the published package (its `exports` map
// names only this file and ./sim). Listed by name, never `export *`, so a new
// export in a module cannot join the public API by accident.

export { formatDuration, parseDurationMs } from './config/duration.js';
export { MAX_TICK_DURATION_MS } from './config/duration-limit.js';
export { ENV, type Environment } from './config/environment.js';
export { type FleetHaltConfig, parseFleetHaltReference } from './config/fleet-halt-config.js';
export { type MaintenanceWindowConfig, WINDOW_ENV } from './config/maintenance-window-config.js';
export { type MaintenanceWindow, parseMaintenanceWindows } from './config/maintenance-window-grammar.js';
export { type MisspelledVariable, misspelledVariables } from './config/misspelled-variables.js';
export {
  MAX_DIGEST_AGE_MS,
  MAX_START_JITTER_MS,
  parseTickConfig,
  parseTrustConfig,
} from './config/parse-config.js';
export { type ChartNames, DEFAULT_PROFILE } from './config/profile/chart-profile.js';
export { CHART_TOPOLOGY_VARIABLES } from './config/profile/chart-variables.js';
export { describeProfileProblem, type ProfileProblem, parseProfile } from './config/profile/parse-profile.js';
export type { Profile, ProfileImage, ProfileNouns, ProfileWorkload, WorkloadKind } from './config/profile/profile.js';
export {
  type ImageSpec,
  type ManagedContainer,
  type MappedContainer,
  type Topology,
  type TopologyInputs,
  type TopologyWorkload,
  topologyOf,
  type WorkloadRef,
} from './config/profile/topology.js';
export type { ImageKeys, TickKeys } from './config/profile/topology-keys.js';
export { REGISTRY_ACCESS_ENV } from './config/registry-access-env.js';
export {
  type KeylessConfig,
  parseSignatureConfig,
  SIGNATURE_ENV,
  type SignatureConfig,
  type SignatureIdentity,
  type SignatureMode,
  signatureModeOf,
  verifiesNothing,
} from './config/signature-config.js';
export { type PrepullConfig, STAGING_ENV, type StagingConfig } from './config/staging-config.js';
export { type ConfigError, describeConfigError, type TickConfig } from './config/tick-config.js';
export { hasUserinfo, withoutUserinfo } from './config/url-userinfo.js';
export {
  CONFIG_VARIABLES,
  type ConfigVariable,
  VARIABLE_SECTIONS,
  type VariableSection,
} from './config/variables.js';
export {
  type Annotations,
  type BookkeepingChanges,
  describeChanges,
  flapMarked,
  flapStateRemoved,
  pinMarkersOf,
  quarantinesRemoved,
  type RecordedDigests,
  recordChanges,
  recordedDigestsOf,
  refreshAttemptOf,
  refreshAttemptSet,
  resolveFailureStreakOf,
  resolveFailureStreakRemoved,
  resolveFailureStreakSet,
  skipStreakOf,
  skipStreakRemoved,
  skipStreakSet,
} from './domain/bookkeeping.js';
export { counterValue } from './domain/counter.js';
export { type Digest, isWellFormedDigest, shortDigest } from './domain/digest.js';
export { requiredDigestAgeMs } from './domain/digest-age.js';
export {
  FLEET_HALT_MEDIA_TYPE,
  type FleetHalt,
  type FleetHaltDraft,
  haltIsInForce,
  haltKeyOf,
  isHaltedDigest,
  MAX_HALT_BYTES,
  MAX_HALT_MS,
  parseFleetHalt,
  pinOf,
  type RepositoryHalt,
  renderFleetHalt,
} from './domain/fleet-halt.js';
export type { HaltReport } from './domain/fleet-halt-reading.js';
export {
  FLEET_PROMOTION_MEDIA_TYPE,
  type FleetPromotion,
  isPromotedFor,
  MAX_PROMOTION_BYTES,
  MAX_PROMOTION_MS,
  MAX_PROMOTION_RING,
  type Promotion,
  type PromotionDraft,
  parseFleetPromotion,
  promotedRing,
  renderFleetPromotion,
  withPromotion,
} from './domain/fleet-promotion.js';
export {
  longestOpenMs,
  type OpenStretch,
  openStretches,
  type WindowState,
  windowStateAt,
} from './domain/maintenance-window.js';
export {
  formatPendingDigest,
  type PendingDigest,
  parsePendingDigest,
} from './domain/pending-digest.js';
export {
  describePortError,
  forbidden,
  isPortError,
  malformed,
  notFound,
  type PortError,
  type PortErrorTag,
  type RegistryError,
  type RegistryRequest,
  timeout,
  transport,
  unauthorized,
} from './domain/port-error.js';
export type { PromotionReport } from './domain/promotion-admission.js';
export { formatRecordedAt, parseRecordedAt, type RecordedAt } from './domain/recorded-at.js';
export {
  type DaemonSetRolloutView,
  type DeploymentRolloutView,
  daemonSetSettledness,
  deploymentSettledness,
  type Settledness,
} from './domain/settledness.js';
export type { SignatureCheckReport, SignatureResult } from './domain/signature-admission.js';
export { startJitterDelayMs } from './domain/start-jitter.js';
export { isPrivateMirror } from './domain/switches.js';
export { topologyFingerprint } from './domain/topology-fingerprint.js';
export { type ExpectedRollout, expectedRollouts, type WindowJudgement } from './domain/window-room.js';
export {
  type ContainerImage,
  describeWorkload,
  imageOf,
  type LiveWorkload,
  workloadOf,
} from './domain/workloads.js';
export { type DryRunMode, dryRunPorts } from './dry-run.js';
export { mermaidDiagram } from './machine/diagram.js';
export {
  INTERRUPTED_EXIT,
  interruptedAfterTheTick,
  interruptedBy,
  type TickInterrupt,
  type TickSignal,
} from './machine/interrupted.js';
export { kubernetesEventsFor } from './machine/kubernetes-events.js';
export { MAX_TIMER_MS, worstCaseTickMs } from './machine/tick-deadline.js';
export { type EventCode, type EventLevel, isFinding, type TickEvent } from './machine/tick-event.js';
export { type TickMachine, tickMachine } from './machine/tick-machine.js';
export type {
  AnnotationWrite,
  DigestChange,
  FailedReimage,
  FailedReimageWhy,
  HeldDigest,
  HeldReason,
  Reimage,
  TickOutcome,
  TickResult,
  WriteKind,
} from './machine/tick-outcome.js';
export type { ClockPort } from './ports/clock-port.js';
export type { ClusterPort, GateSnapshot, RolloutError } from './ports/cluster-port.js';
export type { EventsPort, KubeEvent } from './ports/events-port.js';
export type { FleetHaltDocument, FleetHaltPort, FleetHaltTarget } from './ports/fleet-halt-port.js';
export type { FleetPromotionPort } from './ports/fleet-promotion-port.js';
export type { Platform, PlatformAnswer, PlatformPort, PlatformTarget } from './ports/platform-port.js';
export type { DigestRequest, RegistryPort, Resolution } from './ports/registry-port.js';
export type { SignatureFormat, SignaturePort, SignatureTarget, SignatureVerdict } from './ports/signature-port.js';
export type {
  StagingFailure,
  StagingPort,
  StagingRequest,
  StagingResult,
  StagingTarget,
} from './ports/staging-port.js';
export { type FleetHaltView, readFleetHalt } from './read-fleet-halt.js';
export { type FleetPromotionView, readFleetPromotion } from './read-fleet-promotion.js';
export {
  configInvalidOutcome,
  runTick,
  runTickFromEnvironment,
  type TickOptions,
  type TickPorts,
  type Timers,
} from './run-tick.js';
