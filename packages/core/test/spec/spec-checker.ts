import { isDeepStrictEqual } from 'node:util';
import { INVARIANTS, type Invariant } from './invariants.js';
import type { TickRecord } from './tick-record.js';
import { type History, NO_HISTORY, TickView } from './tick-view.js';

// Runs every invariant over each recorded tick of one sequence, keeping the
// little history some of them need, and counts how often each one's
// precondition held — an invariant whose precondition never held proved
// nothing. The situations speak of the edge's own topology: its gate, its
// pinned and decoupled workloads (on the chart: jobs-manager, a pinned
// requests-proxy, requests-proxy and resource-monitor).

export interface Violation {
  readonly invariant: Invariant;
  readonly detail: string;
}

/** Situations the generators must reach often enough, each named by the invariants it exercises. */
export interface Situation {
  readonly name: string;
  readonly invariants: string;
  readonly when: (t: TickView) => boolean;
}

/** The way back's situations (docs/behaviour.md §3.6): a rollback, a rollback that failed, a quarantined digest held. */
const WAY_BACK_SITUATIONS: readonly Situation[] = [
  {
    name: 'a failed rollout rolled back (ON_ROLLOUT_FAILURE=revert)',
    invariants: 'I29',
    when: (t) => t.record.outcome.result === 'rolledBack',
  },
  {
    name: 'a rollback that failed',
    invariants: 'I29',
    when: (t) => t.record.outcome.result === 'rollbackFailed',
  },
  {
    name: 'a quarantined digest still answered by the registry',
    invariants: 'I30',
    when: (t) => t.record.outcome.events.some((e) => e.code === 'DIGEST_QUARANTINED'),
  },
];

export const SITUATIONS: readonly Situation[] = [
  {
    name: 'an unsettled tick at or past the skip ceiling',
    invariants: 'I3 I5',
    when: (t) =>
      t.unsettledButReadable &&
      t.calls('writeSkipStreak').some((c) => c.outcome === 'ok' && Number(c.detail) >= t.config.maxSkipTicks),
  },
  {
    name: 'a tick at the ceiling of a clean unsettled run',
    invariants: 'I5',
    when: (t) => (t.history.unsettledRun ?? 0) >= t.config.maxSkipTicks,
  },
  {
    name: 'an unsettled tick with an unreadable streak',
    invariants: 'I4',
    when: (t) => t.unsettledButReadable && t.failed('readSkipStreak'),
  },
  {
    name: 'a settled tick with a streak whose clear failed',
    invariants: 'I6',
    when: (t) => t.guardShouldPass && t.failed('clearSkipStreak'),
  },
  {
    name: 'an unreadable gate',
    invariants: 'I2',
    when: (t) => !t.isMirror && !t.gateReadable,
  },
  {
    name: 'a deleted gate',
    invariants: 'I2',
    when: (t) => !t.isMirror && t.record.before.workloads[t.gateId]?.exists !== true,
  },
  {
    name: 'a first observation',
    invariants: 'I8',
    when: (t) => t.record.outcome.events.some((e) => e.code === 'FIRST_OBSERVATION'),
  },
  { name: 'a re-image tick that failed', invariants: 'I9 I10', when: (t) => t.reimaged && !t.everyRolloutCompleted() },
  {
    name: 'a re-image tick that succeeded',
    invariants: 'I7 I12 I16',
    when: (t) => t.reimaged && t.everyRolloutCompleted(),
  },
  { name: 'a tick in flap lockout with drift', invariants: 'I10', when: (t) => t.called('markFlapDetected') },
  {
    name: 'a tick in flap lockout with drift while the registry budget is low',
    invariants: 'I10 I18',
    when: (t) => t.lockedOutWithDriftPending && t.registryBudgetLow,
  },
  {
    // A flapping gate: failures counted, then a decoupled pass with drift pending.
    name: 'a decoupled pass with drift pending over a standing refresh-attempt count',
    invariants: 'I10 I25',
    when: (t) =>
      t.config.decoupledRefresh &&
      t.unsettledButReadable &&
      t.counterBefore(t.keys.refreshAttempt) > 0 &&
      t.record.outcome.events.some((e) => e.code === 'DIGEST_CHANGED'),
  },
  { name: 'an unreadable attempt counter with drift', invariants: 'I11', when: (t) => t.failed('readRefreshAttempt') },
  { name: 'a success reset that failed', invariants: 'I12 I18', when: (t) => t.failed('clearFlapState') },
  {
    name: 'one image unresolved while another re-imaged',
    invariants: 'I15',
    when: (t) => t.reimaged && t.calls('resolveDigest').length > t.resolvedImages().length,
  },
  {
    name: 'a garbage digest from the registry',
    invariants: 'I19',
    when: (t) => Object.values(t.record.before.registryFaults).includes('Garbage'),
  },
  {
    name: 'a pinned workload with drift of an image it runs',
    invariants: 'I13 I16',
    // Drift found is what puts the pin at stake, whether or not a re-image follows.
    when: (t) =>
      t.topology.workloads.some(
        (w) =>
          w.pinned &&
          w.containers.some((c) => {
            const repo = t.images.find((i) => i.name === c.image)?.repo;
            return t.record.outcome.events.some((e) => e.code === 'DIGEST_CHANGED' && e.message.startsWith(`${repo}:`));
          }),
      ),
  },
  { name: 'a private mirror', invariants: 'I14', when: (t) => t.isMirror },
  {
    name: 'drift held back by a low registry budget',
    invariants: 'I7b',
    when: (t) => t.registryBudgetLow && t.record.outcome.events.some((e) => e.code === 'REGISTRY_BUDGET_LOW'),
  },
  {
    name: 'a flap lockout that is a finding (FLAP_LOCKOUT_EXIT=1)',
    invariants: 'I18',
    when: (t) => t.config.flapLockoutIsFinding && t.called('markFlapDetected'),
  },
  {
    name: 'a live re-pin after a re-render or a hand edit (RECONCILE_LIVE=1)',
    invariants: 'I23',
    when: (t) =>
      t.config.reconcileLive === 'repair' && t.reimaged && t.record.outcome.events.some((e) => e.code === 'LIVE_DRIFT'),
  },
  {
    // Drift pending is what puts I22/I24 at stake: the pass must move only what is settled.
    name: 'a decoupled pass with drift pending past an unsettled gate',
    invariants: 'I22 I24',
    when: (t) =>
      t.config.decoupledRefresh &&
      t.unsettledButReadable &&
      t.record.outcome.events.some((e) => e.code === 'DIGEST_CHANGED'),
  },
  { name: 'a Kubernetes Event that could not be written', invariants: 'I18b', when: (t) => t.failed('recordEvent') },
  {
    name: 'a hung port call',
    invariants: 'I17',
    when: (t) => Object.values(t.record.before.clusterFaults).includes('Hang'),
  },
  {
    name: 'unreadable recorded digests',
    invariants: 'docs/behaviour.md §5 I7',
    when: (t) => t.failed('readRecordedDigests'),
  },
  ...WAY_BACK_SITUATIONS,
  {
    name: 'a fleet halt published under the tag, FLEET_HALT_REF unset',
    invariants: 'I35',
    when: (t) => t.config.fleetHalt === undefined && t.record.before.haltPublished && t.called('resolveDigest'),
  },
];

const cleanUnsettled = (t: TickView): boolean =>
  t.unsettledButReadable && t.succeeded('readSkipStreak') && t.succeeded('writeSkipStreak');

/** The gate was deleted or recreated since the previous tick (its bookkeeping is gone with it). */
const recreated = (record: TickRecord, after: History): boolean => {
  const gate = record.config.topology.gate.id;
  return (
    after.previous !== undefined &&
    (after.previous.after.workloads[gate]?.exists !== true || record.before.workloads[gate]?.exists !== true)
  );
};

/** The history as of this tick, from the history after the previous one. */
const historyFor = (record: TickRecord, after: History): History => {
  const probe = new TickView(record, after);
  let unsettledRun: number | undefined;
  if (!cleanUnsettled(probe)) unsettledRun = probe.guardShouldPass ? 0 : undefined;
  else if ((after.unsettledRun ?? 0) > 0 && !probe.editedSincePreviousTick(probe.keys.skipStreak))
    unsettledRun = (after.unsettledRun ?? 0) + 1;
  else unsettledRun = probe.counterBefore(probe.keys.skipStreak) === 0 ? 1 : undefined;

  const cleared = probe.editedSincePreviousTick(probe.keys.refreshAttempt) || after.previous === undefined;
  const failedReimage = probe.succeeded('writeRefreshAttempt') && probe.reimaged && !probe.everyRolloutCompleted();
  const failedBefore = cleared ? 0 : after.failedReimagesSinceClear;
  return {
    previous: after.previous,
    unsettledRun,
    frozenInRun: unsettledRun !== undefined && unsettledRun > 1 && after.frozenInRun,
    failedReimagesSinceClear: failedBefore + (failedReimage ? 1 : 0),
    // A recreated gate starts on repo:tag again, unpinned.
    pinnedContainers: recreated(record, after)
      ? new Set([...after.pinnedContainers].filter((key) => !key.startsWith(`${probe.gateId}/`)))
      : after.pinnedContainers,
  };
};

/** The history to carry to the next tick. */
const historyAfter = (record: TickRecord, current: History): History => {
  const view = new TickView(record, current);
  return {
    previous: record,
    unsettledRun: current.unsettledRun,
    // Frozen by the streak itself: a decoupled re-image's own failure is not the freeze.
    frozenInRun:
      current.unsettledRun !== undefined &&
      current.unsettledRun > 0 &&
      (current.frozenInRun ||
        view.calls('writeSkipStreak').some((c) => c.outcome === 'ok' && Number(c.detail) >= view.config.maxSkipTicks)),
    // Only a success reset on a settled tick ends a row of failures: a
    // decoupled pass's success says nothing of the gate's rollouts that
    // failed before it (I10, I25).
    failedReimagesSinceClear:
      view.succeeded('clearFlapState') && view.guardShouldPass ? 0 : current.failedReimagesSinceClear,
    // A set image that found the container already on the digest ('unchanged',
    // it sends nothing) pins it as much as one that moved it: the tick chose
    // that digest for that container, and its pin marker says so (I23).
    pinnedContainers: new Set([
      ...current.pinnedContainers,
      ...[...view.setImageCalls(), ...view.rollbackSetImageCalls()]
        .filter((c) => c.outcome === 'ok' || c.outcome === 'unchanged')
        .flatMap((c) => Object.keys(c.images).map((container) => `${c.workload}/${container}`)),
    ]),
  };
};

export class SpecChecker {
  /** `observe` sees every tick's view after its invariants were checked (what a suite counts beyond them). */
  constructor(private readonly observe?: (view: TickView) => void) {}

  private history: History = NO_HISTORY;
  readonly preconditionsMet = new Map<string, number>(INVARIANTS.map((i) => [i.id, 0]));
  readonly situationsMet = new Map<string, number>(SITUATIONS.map((s) => [s.name, 0]));
  ticks = 0;

  /** Check one tick; `replay` is the same tick run again on a clone of the world before it (I20). */
  check(record: TickRecord, replay?: TickRecord): Violation[] {
    const history = historyFor(record, this.history);
    const view = new TickView(record, history);
    const violations: Violation[] = [];
    this.ticks += 1;
    for (const invariant of INVARIANTS) {
      if (!invariant.appliesTo(view)) continue;
      this.preconditionsMet.set(invariant.id, (this.preconditionsMet.get(invariant.id) ?? 0) + 1);
      const detail = invariant.violation(view);
      if (detail !== undefined) violations.push({ invariant, detail });
    }
    if (record.outcome.exitCode === 2) {
      violations.push({ invariant: byId('I18'), detail: 'exit 2 on a valid configuration' });
    }
    if (
      replay !== undefined &&
      !(isDeepStrictEqual(replay.outcome, record.outcome) && isDeepStrictEqual(replay.calls, record.calls))
    ) {
      violations.push({
        invariant: byId('I20'),
        detail: 'the same tick replayed on the same world gave another outcome or other calls',
      });
    }
    for (const situation of SITUATIONS) {
      if (situation.when(view))
        this.situationsMet.set(situation.name, (this.situationsMet.get(situation.name) ?? 0) + 1);
    }
    this.observe?.(view);
    this.history = historyAfter(record, history);
    return violations;
  }

  /** A new sequence starts: forget the previous one's history (counts are kept). */
  reset(): void {
    this.history = NO_HISTORY;
  }
}

const byId = (id: string): Invariant => {
  const found = INVARIANTS.find((i) => i.id === id);
  if (found === undefined) throw new Error(`no invariant ${id}`);
  return found;
};

export const describeViolations = (violations: readonly Violation[]): string =>
  violations
    .map((v) => `${v.invariant.id} (${v.invariant.source}) ${v.invariant.says}\n    violated: ${v.detail}`)
    .join('\n');
