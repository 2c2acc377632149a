import type { TickSignal } from '../machine/interrupted.js';
import type { TickEvent } from '../machine/tick-event.js';
import type { ClockPort } from '../ports/clock-port.js';
import type { ClusterPort } from '../ports/cluster-port.js';
import type { EventsPort } from '../ports/events-port.js';
import type { FleetHaltPort } from '../ports/fleet-halt-port.js';
import type { FleetPromotionPort } from '../ports/fleet-promotion-port.js';
import type { PlatformPort } from '../ports/platform-port.js';
import type { RegistryPort } from '../ports/registry-port.js';
import type { SignaturePort } from '../ports/signature-port.js';
import type { StagingPort } from '../ports/staging-port.js';

// The public types of running a tick: its ports, its timers, its options.

/**
 * Everything a tick talks to. The tick does no I/O of its own (I20): these
 * ports are its only way to read or change the world. Build them with
 * `@image-refresh/k8s-adapter`, with `simPorts` from `@image-refresh/core/sim`,
 * or implement {@link ClusterPort} and {@link RegistryPort} yourself.
 */
export interface TickPorts {
  /** The gate's bookkeeping and every workload of the topology. */
  readonly cluster: ClusterPort;
  /** Where floating tags are resolved to digests. */
  readonly registry: RegistryPort;
  /** Where findings are also recorded as Kubernetes Events; optional, and never able to change the outcome. */
  readonly events?: EventsPort;
  /**
   * Where new digests' signatures are checked (VERIFY_SIGNATURES ≠ off,
   * docs/behaviour.md §3.4a step 3); never called with `off`. Absent while
   * verification is on, no digest verifies: every changed one waits, with a
   * WARN saying why (fail closed).
   */
  readonly signatures?: SignaturePort;
  /**
   * The wall clock and a wait (docs/behaviour.md §3.4a, The clock port): needed
   * only by MIN_DIGEST_AGE / ROLLOUT_RING and MAINTENANCE_WINDOW (absent, every
   * changed digest is held back: fail closed, §3.4d) and START_JITTER (absent,
   * not waited). With the defaults it is never called.
   */
  readonly clock?: ClockPort;
  /**
   * Where the fleet halt's document is read (FLEET_HALT_REF, docs/behaviour.md
   * §3.4b): only when the halt tag answers a digest this edge has not
   * verified. Absent while FLEET_HALT_REF is set, such a halt cannot be read:
   * it is unverified, and nothing is re-imaged (fail closed, I37).
   */
  readonly fleetHalt?: FleetHaltPort;
  /**
   * Where the fleet promotion's document is read (FLEET_PROMOTION_REF on ring
   * ≥ 1, docs/fleet-promotion.md): only when its tag answers a digest this
   * edge has not verified. Absent while it is needed, the promotion is
   * unverified and every change waits (fail closed).
   */
  readonly fleetPromotion?: FleetPromotionPort;
  /**
   * Where the platforms of a changed digest and of the recorded one are read
   * (PLATFORM_CHECK=on, docs/behaviour.md §3.4a step 4); never called with
   * `off`. Absent while the check is on, no digest is admitted (fail closed).
   */
  readonly platforms?: PlatformPort;
  /**
   * Where a workload's new images are pulled onto its nodes before it is
   * switched (PREPULL=on, §3.5a); never called with `off`. Absent while it is
   * on, nothing is staged, so nothing is switched (fail closed).
   */
  readonly staging?: StagingPort;
}

/**
 * The timers the tick's backstop uses (I17: whatever a port does, its call
 * ends once its bound has passed); the platform's `setTimeout` by default.
 * Inject fake ones to test a port that never answers without waiting.
 */
export interface Timers {
  readonly setTimeout: (callback: () => void, ms: number) => unknown;
  readonly clearTimeout: (handle: unknown) => void;
}

/** How to run a tick; every field is optional. */
export interface TickOptions {
  /** Timers for the per-call backstop; the platform's by default. */
  readonly timers?: Timers;
  /** Called with each event as the tick emits it (the outcome has them all, at the end). */
  readonly onEvent?: (event: TickEvent) => void;
  /**
   * Aborted (reason: `interruptedBy('SIGTERM')`), the tick starts no further
   * port call and ends `interrupted` with exit 143 / 130 (docs/behaviour.md §3,
   * Signals). Abort the ports' waits and reads with it too; a write already
   * sent is awaited.
   */
  readonly signal?: TickSignal;
}
