import { ANNOTATION } from '../../src/domain/workloads.js';
import type { WriteKind } from '../../src/machine/tick-outcome.js';
import type { ClusterOp, SimCall, SimWorld } from '../../src/sim/index.js';

// The simulator logs each call by port primitive: every bookkeeping write is
// one `patchBookkeeping` with its changes as `key=value key-`. The examples
// and the invariants speak of the writes docs/behaviour.md §3 names — the
// streak write, its clear, the attempt write, the flap mark, the success
// reset, the record — so each patch is named here by what it changes. This
// reads the world's log, never the machine's account (which is under test).

/** A port operation, or a bookkeeping write named by what it changes. */
export type SpecOp = Exclude<ClusterOp, 'patchBookkeeping'> | 'resolveDigest' | WriteKind;

/** One call as the invariants read it. */
export interface SpecCall extends Omit<SimCall, 'op'> {
  readonly op: SpecOp;
}

const STREAK = ANNOTATION.skipStreak;
const ATTEMPT = ANNOTATION.refreshAttempt;
const FLAP = ANNOTATION.flapDetected;

/** `key=value key-` back into changes (the values the tick writes hold no spaces). */
const changesOf = (detail: string): Record<string, string | null> =>
  Object.fromEntries(
    detail
      .split(' ')
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
  if (typeof value(FLAP) === 'string') return { op: 'markFlapDetected', detail: String(value(FLAP)) };
  if (ATTEMPT in changes && value(ATTEMPT) === null) return { op: 'clearFlapState', detail: '' };
  if (typeof value(ATTEMPT) === 'string') return { op: 'writeRefreshAttempt', detail: String(value(ATTEMPT)) };
  return { op: 'recordDigests', detail: JSON.stringify(changes) };
};

/** The simulator's call log with each bookkeeping patch named by what it writes. */
export const specCalls = (calls: readonly SimCall[]): SpecCall[] =>
  calls.map((c) => (c.op === 'patchBookkeeping' ? { ...c, ...writeOf(c.detail) } : (c as SpecCall)));

/** Where a fault on one of the named writes is armed: a patch setting (`key=`) or removing (`key-`) its key. */
export const WRITE_FAULT_KEY: Readonly<Record<WriteKind, string>> = {
  writeSkipStreak: `${STREAK}=`,
  clearSkipStreak: `${STREAK}-`,
  writeRefreshAttempt: `${ATTEMPT}=`,
  markFlapDetected: `${FLAP}=`,
  clearFlapState: `${ATTEMPT}-`,
  recordDigests: 'tracebloc.io/last-refreshed-',
};

const isWriteKind = (op: SpecOp): op is WriteKind => Object.hasOwn(WRITE_FAULT_KEY, op);

/** Arm a fault on a port operation or on one of the named writes. */
export const injectFault = (
  world: SimWorld,
  op: SpecOp,
  fault: Parameters<SimWorld['injectClusterFault']>[1],
  times = 1,
) =>
  isWriteKind(op)
    ? world.injectClusterFault('patchBookkeeping', fault, times, WRITE_FAULT_KEY[op])
    : world.injectClusterFault(op as ClusterOp, fault, times);
