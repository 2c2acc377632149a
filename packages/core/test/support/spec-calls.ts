import type { WriteKind } from '../../src/machine/tick-outcome.js';
import type { ClusterOp, SimCall } from '../../src/sim/index.js';

// The simulator logs each call by port primitive: every bookkeeping write is
// one `patchBookkeeping` with its changes as `key=value key-`, every read of
// the jobs-manager Deployment one `readGate`. The examples and the
// invariants speak of the steps docs/behaviour.md §3 names — the guard's read,
// the streak read and write, its clear, the recorded digests, the pin
// markers, the attempt read and write, the flap mark, the success reset, the
// record — so each call is named here by what it changes, and each read by
// its place in that order (§3.2 guard and streak, §3.4 recorded digests, the
// live pass's pin markers on a settled RECONCILE_LIVE tick, §3.5 the attempt).
// This reads the world's log, never the machine's account (under test).

/** A port operation, or a bookkeeping write named by what it changes. */
export type SpecOp =
  | Exclude<ClusterOp, 'patchBookkeeping' | 'readGate'>
  | 'resolveDigest'
  // MIRROR_MODE=follow-upstream: a changed digest asked of the mirror (docs/behaviour.md §3.3).
  | 'askMirror'
  | 'verifySignature'
  | 'readClock'
  | 'sleep'
  | 'readFleetHalt'
  | 'readFleetPromotion'
  | 'readPlatforms'
  | 'stageImage'
  | 'deleteStagingPod'
  // OWNERSHIP_CHECK (docs/behaviour.md §3.4c): a workload read once, with no settle window.
  | 'readOwnedWorkload'
  | WriteKind
  | ReadKind;

/** The reads of the jobs-manager Deployment a tick makes, by what it reads. */
export type ReadKind =
  | 'observeJobsManager'
  | 'readSkipStreak'
  | 'readRecordedDigests'
  | 'readPinMarkers'
  | 'readRefreshAttempt';

/** One call as the invariants read it. */
export interface SpecCall extends Omit<SimCall, 'op'> {
  readonly op: SpecOp;
}

// The names are given by the topology's own keys (spec/topology-calls.ts), for
// the chart and for any profile alike.
export { injectFault, readAt, specCalls } from '../spec/topology-calls.js';
