import type { TickConfig } from '../../src/config/tick-config.js';
import type { WriteKind } from '../../src/machine/tick-outcome.js';
import type { ClusterOp, SimCall, SimWorld } from '../../src/sim/index.js';
import { ANNOTATION } from './chart.js';

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
  | 'verifySignature'
  | 'readClock'
  | 'sleep'
  | 'readFleetHalt'
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

const STREAK = ANNOTATION.skipStreak;
const ATTEMPT = ANNOTATION.refreshAttempt;
const FLAP = ANNOTATION.flapDetected;
const SILENCE = ANNOTATION.resolveFailureStreak;

/**
 * `key=value key-` back into changes. Every key is `tracebloc.io/…`; only the
 * fleet halt's kept document holds spaces in its value, never ` tracebloc.io/`.
 */
const changesOf = (detail: string): Record<string, string | null> =>
  Object.fromEntries(
    detail
      .split(/ (?=tracebloc\.io\/)/)
      .filter((part) => part !== '')
      .map((part) => {
        const eq = part.indexOf('=');
        return eq < 0 ? [part.slice(0, -1), null] : [part.slice(0, eq), part.slice(eq + 1)];
      }),
  );

const writeOf = (detail: string): { op: WriteKind; detail: string } => {
  const changes = changesOf(detail);
  const value = (key: string) => changes[key];
  if (typeof value(STREAK) === 'string') return { op: 'writeSkipStreak', detail: String(value(STREAK)) };
  if (STREAK in changes) return { op: 'clearSkipStreak', detail: '' };
  // MAX_RESOLVE_FAILURE_TICKS (I46): the registry's silence counted, or over.
  if (typeof value(SILENCE) === 'string') return { op: 'writeResolveFailureStreak', detail: String(value(SILENCE)) };
  if (SILENCE in changes) return { op: 'clearResolveFailureStreak', detail: '' };
  if (typeof value(FLAP) === 'string') return { op: 'markFlapDetected', detail: String(value(FLAP)) };
  if (ATTEMPT in changes && value(ATTEMPT) === null) return { op: 'clearFlapState', detail: '' };
  if (typeof value(ATTEMPT) === 'string') return { op: 'writeRefreshAttempt', detail: String(value(ATTEMPT)) };
  // The fleet halt (docs/behaviour.md §3.4b): its record, or its removal once lifted.
  if (Object.keys(changes).some((key) => key.startsWith('tracebloc.io/fleet-halt-')))
    return Object.values(changes).some((v) => v !== null)
      ? { op: 'recordFleetHalt', detail: JSON.stringify(changes) }
      : { op: 'liftFleetHalt', detail: JSON.stringify(changes) };
  if (Object.keys(changes).some((key) => key.startsWith('tracebloc.io/quarantined-')))
    return { op: 'quarantineDigests', detail: JSON.stringify(changes) };
  // Issue 17: a write of pending records alone (the record write may also remove one).
  if (Object.keys(changes).every((key) => key.startsWith('tracebloc.io/pending-')))
    return { op: 'writePendingDigests', detail: JSON.stringify(changes) };
  return { op: 'recordDigests', detail: JSON.stringify(changes) };
};

/** The reads of one tick in order (§3): which a tick makes depends on its path, never on their answers' content. */
const readOrder = (livePass: boolean): readonly ReadKind[] => [
  'observeJobsManager',
  'readSkipStreak',
  'readRecordedDigests',
  ...(livePass ? (['readPinMarkers'] as const) : []),
  'readRefreshAttempt',
];

/** The live pass runs on a settled tick only; an unsettled tick writes its streak (§3.2). */
const hasLivePass = (config: TickConfig, calls: readonly SimCall[]): boolean =>
  config.reconcileLive !== 'off' &&
  !calls.some((c) => c.op === 'patchBookkeeping' && writeOf(c.detail).op === 'writeSkipStreak');

/** One tick's calls with each bookkeeping patch named by what it writes and each read by what it reads. */
export const specCalls = (calls: readonly SimCall[], config: TickConfig): SpecCall[] => {
  const order = readOrder(hasLivePass(config, calls));
  let reads = 0;
  return calls.map((c): SpecCall => {
    if (c.op === 'patchBookkeeping') return { ...c, ...writeOf(c.detail) };
    if (c.op === 'readGate') return { ...c, op: order[reads++] ?? 'readRefreshAttempt', detail: '' };
    if (c.op === 'observeWorkload' && c.detail.endsWith(' once'))
      return { ...c, op: 'readOwnedWorkload', detail: c.detail.slice(0, -' once'.length) };
    return { ...c, op: c.op };
  });
};

/** Which read a fault on the tick's read number `index` hits, by name (on a settled tick). */
export const readAt = (config: TickConfig, index: number): string =>
  readOrder(config.reconcileLive !== 'off')[index] ?? `readGate #${index}`;

/** Where a fault on one of the named writes is armed: a patch setting (`key=`) or removing (`key-`) its key. */
export const WRITE_FAULT_KEY: Readonly<Record<WriteKind, string>> = {
  writeSkipStreak: `${STREAK}=`,
  clearSkipStreak: `${STREAK}-`,
  writeRefreshAttempt: `${ATTEMPT}=`,
  markFlapDetected: `${FLAP}=`,
  clearFlapState: `${ATTEMPT}-`,
  recordDigests: 'tracebloc.io/last-refreshed-',
  quarantineDigests: 'tracebloc.io/quarantined-',
  writePendingDigests: 'tracebloc.io/pending-',
  recordFleetHalt: 'tracebloc.io/fleet-halt-digest=',
  liftFleetHalt: 'tracebloc.io/fleet-halt-digest-',
  writeResolveFailureStreak: `${SILENCE}=`,
  clearResolveFailureStreak: `${SILENCE}-`,
};

const isWriteKind = (op: SpecOp): op is WriteKind => Object.hasOwn(WRITE_FAULT_KEY, op);

const READ_KINDS: readonly string[] = [
  'observeJobsManager',
  'readSkipStreak',
  'readRecordedDigests',
  'readPinMarkers',
  'readRefreshAttempt',
];
const isReadKind = (op: SpecOp): op is ReadKind => READ_KINDS.includes(op);

/**
 * Arm a fault on a port operation, on one of the named writes (a patch making
 * that change) or on one of the named reads (that read of the next tick).
 */
export const injectFault = (
  world: SimWorld,
  op: SpecOp,
  fault: Parameters<SimWorld['injectClusterFault']>[1],
  times = 1,
): void => {
  if (isWriteKind(op)) {
    world.injectClusterFault('patchBookkeeping', fault, times, WRITE_FAULT_KEY[op]);
    return;
  }
  if (isReadKind(op)) {
    // The live pass (one read more) runs on settled ticks only: on an
    // unsettled one (a decoupled pass) the same read comes one earlier.
    const { config } = world;
    const readIndex = readOrder(config.reconcileLive !== 'off').indexOf(op);
    const unsettledReadIndex = readOrder(false).indexOf(op);
    world.armClusterFault(
      unsettledReadIndex === readIndex || unsettledReadIndex < 0
        ? { op: 'readGate', readIndex }
        : { op: 'readGate', readIndex, unsettledReadIndex },
      fault,
      times,
    );
    return;
  }
  if (op === 'resolveDigest') throw new Error('a registry fault is armed per repo: injectRegistryFault');
  if (op === 'verifySignature') throw new Error('a signature fault is armed per repo: injectSignatureFault');
  if (op === 'readClock' || op === 'sleep') throw new Error('the simulated clock takes no faults');
  if (op === 'readFleetHalt') throw new Error('a halt document fault is armed on its own: injectHaltDocumentFault');
  if (op === 'readPlatforms') throw new Error('a platform fault is armed per repo: injectPlatformFault');
  if (op === 'stageImage' || op === 'deleteStagingPod')
    throw new Error('a staging fault is armed on the whole call: stageImages');
  // The ownership check's read is an observeWorkload like the others: its fault is theirs.
  world.injectClusterFault(op === 'readOwnedWorkload' ? 'observeWorkload' : op, fault, times);
};
