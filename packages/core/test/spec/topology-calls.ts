import type { Topology } from '../../src/config/profile/topology.js';
import type { TickConfig } from '../../src/config/tick-config.js';
import type { WriteKind } from '../../src/machine/tick-outcome.js';
import type { SimCall, SimWorld } from '../../src/sim/index.js';
import type { ReadKind, SpecCall, SpecOp } from '../support/spec-calls.js';

// The simulator logs each call by port primitive: every bookkeeping write is
// one `patchBookkeeping` with its changes as `key=value key-`, every read of
// the gate one `readGate`. The invariants speak of the steps
// docs/behaviour.md §3 names, so each write is named here by what it changes
// and each read of the gate by its place in the tick (§3.2 guard and streak,
// §3.4 recorded digests, the live pass's pin markers, §3.5 the attempt) —
// with the keys the edge's own topology writes (docs/profiles.md,
// "Bookkeeping"), so that the same reading serves any profile. On the chart
// it names every call as test/support/spec-calls.ts does (checker.test.ts
// holds the two together); the operation names (`observeJobsManager` for the
// gate's guard read among them) are that file's.

/** `key=value key-` back into changes: every key is under the prefix, and no value holds ` <prefix>/`. */
const changesOf = (topology: Topology, detail: string): Record<string, string | null> => {
  const prefix = topology.profile.annotationPrefix.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return Object.fromEntries(
    detail
      .split(new RegExp(` (?=${prefix}/)`))
      .filter((part) => part !== '')
      .map((part) => {
        const eq = part.indexOf('=');
        return eq < 0 ? [part.slice(0, -1), null] : [part.slice(0, eq), part.slice(eq + 1)];
      }),
  );
};

/** The key prefixes of the per-image and fleet-halt writes under a topology's annotation prefix. */
const scopesOf = (topology: Topology) => {
  const prefix = topology.profile.annotationPrefix;
  return {
    record: `${prefix}/last-refreshed-`,
    quarantine: `${prefix}/quarantined-`,
    pending: `${prefix}/pending-`,
    fleetHalt: `${prefix}/fleet-halt-`,
    fleetPromotion: `${prefix}/fleet-promotion-`,
  };
};

const writeOf = (topology: Topology, detail: string): { op: WriteKind; detail: string } => {
  const changes = changesOf(topology, detail);
  const { skipStreak, refreshAttempt, flapDetected, resolveFailureStreak, topologyFingerprint } = topology.keys;
  const scopes = scopesOf(topology);
  const value = (key: string) => changes[key];
  const keys = Object.keys(changes);
  if (typeof value(skipStreak) === 'string') return { op: 'writeSkipStreak', detail: String(value(skipStreak)) };
  if (skipStreak in changes) return { op: 'clearSkipStreak', detail: '' };
  // MAX_RESOLVE_FAILURE_TICKS (I46): the registry's silence counted, or over.
  if (typeof value(resolveFailureStreak) === 'string')
    return { op: 'writeResolveFailureStreak', detail: String(value(resolveFailureStreak)) };
  if (resolveFailureStreak in changes) return { op: 'clearResolveFailureStreak', detail: '' };
  // OWNERSHIP_CHECK (§3.4c): a changed topology found true.
  if (topologyFingerprint in changes)
    return { op: 'recordTopologyFingerprint', detail: String(value(topologyFingerprint)) };
  if (typeof value(flapDetected) === 'string') return { op: 'markFlapDetected', detail: String(value(flapDetected)) };
  if (refreshAttempt in changes && value(refreshAttempt) === null) return { op: 'clearFlapState', detail: '' };
  if (typeof value(refreshAttempt) === 'string')
    return { op: 'writeRefreshAttempt', detail: String(value(refreshAttempt)) };
  // The fleet halt (docs/behaviour.md §3.4b): its record, or its removal once lifted.
  if (keys.some((key) => key.startsWith(scopes.fleetHalt)))
    return Object.values(changes).some((v) => v !== null)
      ? { op: 'recordFleetHalt', detail: JSON.stringify(changes) }
      : { op: 'liftFleetHalt', detail: JSON.stringify(changes) };
  // The fleet promotion (docs/fleet-promotion.md): its record, or its removal once withdrawn.
  if (keys.some((key) => key.startsWith(scopes.fleetPromotion)))
    return Object.values(changes).some((v) => v !== null)
      ? { op: 'recordFleetPromotion', detail: JSON.stringify(changes) }
      : { op: 'withdrawFleetPromotion', detail: JSON.stringify(changes) };
  if (keys.some((key) => key.startsWith(scopes.quarantine)))
    return { op: 'quarantineDigests', detail: JSON.stringify(changes) };
  // A write of pending records alone (docs/behaviour.md §3.4a step 2; the record write may also remove one).
  if (keys.every((key) => key.startsWith(scopes.pending)))
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
  !calls.some((c) => c.op === 'patchBookkeeping' && writeOf(config.topology, c.detail).op === 'writeSkipStreak');

/** One tick's calls with each bookkeeping patch named by what it writes and each read of the gate by what it reads. */
export const specCalls = (calls: readonly SimCall[], config: TickConfig): SpecCall[] => {
  const order = readOrder(hasLivePass(config, calls));
  let reads = 0;
  return calls.map((c): SpecCall => {
    if (c.op === 'patchBookkeeping') return { ...c, ...writeOf(config.topology, c.detail) };
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
export const writeFaultKeys = (topology: Topology): Readonly<Record<WriteKind, string>> => {
  const { skipStreak, refreshAttempt, flapDetected, fleetHaltDigest, resolveFailureStreak, topologyFingerprint } =
    topology.keys;
  const scopes = scopesOf(topology);
  return {
    writeSkipStreak: `${skipStreak}=`,
    clearSkipStreak: `${skipStreak}-`,
    writeRefreshAttempt: `${refreshAttempt}=`,
    markFlapDetected: `${flapDetected}=`,
    clearFlapState: `${refreshAttempt}-`,
    recordDigests: scopes.record,
    quarantineDigests: scopes.quarantine,
    writePendingDigests: scopes.pending,
    recordFleetHalt: `${fleetHaltDigest}=`,
    liftFleetHalt: `${fleetHaltDigest}-`,
    recordFleetPromotion: `${topology.keys.fleetPromotionDigest}=`,
    withdrawFleetPromotion: `${topology.keys.fleetPromotionDigest}-`,
    writeResolveFailureStreak: `${resolveFailureStreak}=`,
    clearResolveFailureStreak: `${resolveFailureStreak}-`,
    recordTopologyFingerprint: `${topologyFingerprint}=`,
  };
};

const isWriteKind = (op: SpecOp, keys: Readonly<Record<WriteKind, string>>): op is WriteKind => Object.hasOwn(keys, op);

const READ_KINDS: readonly string[] = readOrder(true);
const isReadKind = (op: SpecOp): op is ReadKind => READ_KINDS.includes(op);

/**
 * Arm a fault on a port operation, on one of the named writes (a patch making
 * that change) or on one of the named reads of the gate (that read of the next tick).
 */
export const injectFault = (
  world: SimWorld,
  op: SpecOp,
  fault: Parameters<SimWorld['injectClusterFault']>[1],
  times = 1,
): void => {
  const writeKeys = writeFaultKeys(world.config.topology);
  if (isWriteKind(op, writeKeys)) {
    world.injectClusterFault('patchBookkeeping', fault, times, writeKeys[op]);
    return;
  }
  if (isReadKind(op)) {
    // The live pass (one read more) runs on settled ticks only: on an
    // unsettled one (a decoupled pass) the same read comes one earlier.
    const readIndex = readOrder(world.config.reconcileLive !== 'off').indexOf(op);
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
  switch (op) {
    case 'resolveDigest':
      throw new Error('a registry fault is armed per repo: injectRegistryFault');
    case 'verifySignature':
      throw new Error('a signature fault is armed per repo: injectSignatureFault');
    case 'readClock':
    case 'sleep':
      throw new Error('the simulated clock takes no faults');
    case 'readFleetHalt':
      throw new Error('a halt document fault is armed on its own: injectHaltDocumentFault');
    case 'readFleetPromotion':
      throw new Error('a promotion document fault is armed as the halt’s: injectHaltDocumentFault');
    case 'readPlatforms':
      throw new Error('a platform fault is armed per repo: injectPlatformFault');
    case 'stageImage':
    case 'deleteStagingPod':
      throw new Error('a staging fault is armed on the whole call: stageImages');
    case 'askMirror':
      throw new Error('the mirror is staged with mirrorLagging and mirrorCorrupt');
    default:
      // The ownership check's read is an observeWorkload like the others: its fault is theirs.
      world.injectClusterFault(op === 'readOwnedWorkload' ? 'observeWorkload' : op, fault, times);
  }
};
