import * as O from 'fp-ts/lib/Option.js';
import { counterValue } from '../../src/domain/counter.js';
import { isWellFormedDigest } from '../../src/domain/digest.js';
import { runsFollowedImage } from '../../src/domain/ownership.js';
import type { TickView } from './tick-view.js';

/** PREPULL's Event, as the simulated Events port logs it: recorded as staging starts. */
const STAGING_EVENT = 'Normal RefreshStaging';

// What image-refresh promises, tick after tick (docs/behaviour.md §4). Each invariant is
// stated once: its id, one sentence, where the lesson comes from, the ticks it
// speaks about (`appliesTo` — counted, so none can hold vacuously) and how a
// tick breaks it (`violation` — undefined when it holds). The property suite
// checks every tick of every fuzzed sequence, and every example scenario,
// against this list. Each one speaks of the edge's own topology
// (`config.topology`, docs/profiles.md): its gate, its images and workloads,
// each workload's own pin and decoupling, its keys. On the chart's topology
// every one is exactly the check it was when it named jobs-manager,
// requests-proxy and resource-monitor; profiles.properties.test.ts holds
// them over topologies no one wrote by hand.

export interface Invariant {
  readonly id: string;
  readonly says: string;
  readonly source: string;
  readonly appliesTo: (t: TickView) => boolean;
  readonly violation: (t: TickView) => string | undefined;
}

const unless = (holds: boolean, otherwise: () => string): string | undefined => (holds ? undefined : otherwise());

/** A decoupled pass (the gate unsettled) that found refresh-attempt above 0: it puts the count back, it does not clear it (I25). */
const decoupledOverACount = (t: TickView): boolean =>
  t.config.decoupledRefresh && t.unsettledButReadable && t.counterBefore(t.keys.refreshAttempt) > 0;

/** Any image or workload pinned on this edge by its own variable (I13). */
const anythingPinned = (t: TickView): boolean =>
  t.topology.images.some((i) => i.pinned) || t.topology.workloads.some((w) => w.pinned);

export const INVARIANTS: readonly Invariant[] = [
  {
    id: 'I1',
    says: 'No workload is re-imaged on a tick whose settled guard did not pass.',
    source: '#546',
    // With DECOUPLED_REFRESH=1 the others may move past it: I22 and I24 say how far.
    appliesTo: (t) => !t.isMirror && !t.guardShouldPass && !t.config.decoupledRefresh,
    violation: (t) =>
      unless(!t.reimaged, () => `re-imaged on an unsettled/unreadable tick: ${t.calls('setImages')[0]?.detail}`),
  },
  {
    id: 'I2',
    says: 'An unreadable gate ends the tick with exit 1 and no write.',
    source: '#571',
    appliesTo: (t) => !t.isMirror && !t.gateReadable,
    violation: (t) =>
      unless(
        t.exitCode === 1 && t.writes.length === 0,
        () => `exit ${t.exitCode}, writes ${t.writes.map((w) => w.op)}`,
      ),
  },
  {
    id: 'I3',
    says: 'On an unsettled tick the streak written is previous+1 (absent/garbage = 0); exit is 0 below MAX_SKIP_TICKS, 1 at or above it.',
    source: '#1964',
    appliesTo: (t) => t.unsettledButReadable && t.succeeded('readSkipStreak') && t.succeeded('writeSkipStreak'),
    violation: (t) => {
      const expected = t.counterBefore(t.keys.skipStreak) + 1;
      const written = t.calls('writeSkipStreak')[0]?.detail;
      if (written !== String(expected)) return `wrote streak ${written}, expected ${expected}`;
      // Below the ceiling a decoupled re-image that failed is a finding of its own (I18).
      const exit = expected >= t.config.maxSkipTicks || t.otherFinding() ? 1 : 0;
      return unless(t.exitCode === exit, () => `streak ${expected}/${t.config.maxSkipTicks} exited ${t.exitCode}`);
    },
  },
  {
    id: 'I4',
    says: 'Unsettled + unreadable streak → exit 1 and no streak write (never collapse to 0).',
    source: '#1964',
    appliesTo: (t) => t.unsettledButReadable && t.record.before.clusterFaults.readSkipStreak !== undefined,
    violation: (t) =>
      unless(
        t.exitCode === 1 && !t.called('writeSkipStreak'),
        () => `exit ${t.exitCode}, streak written: ${t.called('writeSkipStreak')}`,
      ),
  },
  {
    id: 'I5',
    says: 'In a run of consecutive unsettled ticks with working writes, tick k exits 1 iff k ≥ MAX_SKIP_TICKS — it never lapses back to green while unsettled.',
    source: '#1964',
    appliesTo: (t) => t.history.unsettledRun !== undefined && t.history.unsettledRun > 0,
    violation: (t) => {
      const k = t.history.unsettledRun ?? 0;
      const exit = k >= t.config.maxSkipTicks || t.otherFinding() ? 1 : 0;
      if (t.history.frozenInRun && t.exitCode === 0) return `tick ${k} of an unsettled run lapsed back to green`;
      return unless(
        t.exitCode === exit,
        () => `tick ${k} of an unsettled run (MAX ${t.config.maxSkipTicks}) exited ${t.exitCode}`,
      );
    },
  },
  {
    id: 'I6',
    says: 'A settled tick with a recorded streak attempts its removal; a failed removal is a WARNING and the tick still reaches the registry pass. A settled tick with no streak writes no streak.',
    source: '#1964, #2007',
    appliesTo: (t) => t.guardShouldPass && t.record.before.clusterFaults.readSkipStreak === undefined,
    violation: (t) => {
      const streak = t.annotationBefore(t.keys.skipStreak);
      if (streak === undefined || streak === '') {
        return unless(
          !t.called('writeSkipStreak') && !t.called('clearSkipStreak'),
          () => 'wrote a streak that was not there',
        );
      }
      if (!t.called('clearSkipStreak')) return `streak ${streak} was not cleared`;
      if (t.failed('clearSkipStreak')) {
        const warned = t.record.outcome.events.some((e) => e.code === 'SKIP_STREAK_CLEAR_FAILED' && e.level === 'warn');
        const anyUnpinned = t.images.some((image) => t.followed(image));
        if (!warned) return 'a failed clear was not reported as a WARNING';
        if (anyUnpinned && !t.called('resolveDigest'))
          return 'a failed clear stopped the tick before the registry pass';
      }
      return undefined;
    },
  },
  {
    id: 'I7',
    says: 'A recorded digest changes only to the digest the registry reported, and only (a) on first observation or (b) after every rollout of that tick completed.',
    source: '#569',
    appliesTo: (t) => t.images.some((i) => t.record.after.annotations[i.recordKey] !== t.annotationBefore(i.recordKey)),
    violation: (t) => {
      for (const image of t.images) {
        const before = t.annotationBefore(image.recordKey);
        const after = t.record.after.annotations[image.recordKey];
        if (after === before) continue;
        if (after === undefined) return `${image.recordKey} was removed by the tick`;
        if (after !== t.registryDigest(image))
          return `${image.recordKey}=${after}, registry said ${t.registryDigest(image)}`;
        const firstObservation = before === undefined || before === '';
        if (!firstObservation && !(t.reimaged && t.everyRolloutCompleted())) {
          return `${image.recordKey} moved ${before} → ${after} without every rollout completing`;
        }
      }
      return undefined;
    },
  },
  {
    id: 'I7b',
    says: 'A tick whose registry pull budget is low (any 429, or ratelimit-remaining below REGISTRY_BUDGET_FLOOR) re-images nothing and records no changed digest; first observations may still be recorded.',
    source: 'beyond the script',
    appliesTo: (t) => t.registryBudgetLow,
    violation: (t) => {
      if (t.reimaged) return 're-imaged with the registry budget low';
      const changed = t.images.find((i) => {
        const before = t.annotationBefore(i.recordKey) ?? '';
        return before !== '' && t.record.after.annotations[i.recordKey] !== t.annotationBefore(i.recordKey);
      });
      return changed === undefined ? undefined : `${changed.recordKey} changed with the registry budget low`;
    },
  },
  {
    id: 'I8',
    says: 'First observation never re-images.',
    source: '#569',
    appliesTo: (t) => t.resolvedImages().some((i) => (t.annotationBefore(i.recordKey) ?? '') === ''),
    violation: (t) => {
      for (const image of t.resolvedImages()) {
        if ((t.annotationBefore(image.recordKey) ?? '') !== '') continue;
        const touched = t.setImageCalls().find((c) => t.sets(c, t.containersRunning(image.name)));
        if (touched !== undefined) return `first observation of ${image.name} re-imaged ${touched.workload}`;
      }
      return undefined;
    },
  },
  {
    id: 'I9',
    says: 'Every set-image is preceded, on the same tick, by a successful write of refresh-attempt = previous+1.',
    source: '#563, #626',
    // Of the set images sent: one that found its workload already on target sent nothing
    // (docs/behaviour.md §3.6), yet the machine asks for it only after the attempt too.
    appliesTo: (t) => t.firstSetImageSent() >= 0,
    violation: (t) => {
      const write = t.indexOf('writeRefreshAttempt', 'ok');
      const setImage = t.firstSetImageSent();
      if (write < 0 || write > setImage) return 'set image without a persisted attempt before it';
      const written = t.record.calls[write]?.detail;
      return unless(
        written === String(t.counterBefore(t.keys.refreshAttempt) + 1),
        () => `attempt written ${written}, previous ${t.counterBefore(t.keys.refreshAttempt)}`,
      );
    },
  },
  {
    id: 'I10',
    says: 'With nobody clearing refresh-attempt, no more than MAX_REFRESH_ATTEMPTS re-image ticks fail in a row; after that, drift ticks write refresh-flap-detected and re-image nothing until it is cleared.',
    source: '#563',
    // "In a row" is counted by the checker's history: only a human clear or a
    // success reset on a settled tick ends the row — a decoupled pass's success
    // does not, or a flapping gate never reaches the lockout (I25).
    appliesTo: (t) =>
      t.history.failedReimagesSinceClear > 0 ||
      t.lockedOutWithDriftPending ||
      (t.succeeded('readRefreshAttempt') && t.counterBefore(t.keys.refreshAttempt) >= t.config.maxRefreshAttempts),
    violation: (t) => {
      const attempt = t.counterBefore(t.keys.refreshAttempt);
      if (t.history.failedReimagesSinceClear > t.config.maxRefreshAttempts) {
        return `${t.history.failedReimagesSinceClear} failed re-image ticks in a row (MAX ${t.config.maxRefreshAttempts})`;
      }
      // Decided from the world, not from the calls: a lockout that a later check
      // (a low registry budget) pre-empted never read the counter at all.
      if (t.lockedOutWithDriftPending && !t.called('markFlapDetected')) {
        return `refresh-attempt ${attempt} ≥ MAX with drift pending, yet no flap marker (tick ended ${t.record.outcome.result})`;
      }
      if (t.succeeded('readRefreshAttempt') && attempt >= t.config.maxRefreshAttempts) {
        if (t.reimaged) return `re-imaged with refresh-attempt ${attempt} ≥ MAX`;
        const marked = t.calls('markFlapDetected')[0]?.detail;
        return unless(marked === String(attempt), () => `flap marker ${marked}, attempt ${attempt}`);
      }
      return undefined;
    },
  },
  {
    id: 'I11',
    says: 'Unreadable refresh-attempt → no re-image that tick.',
    source: '#626',
    appliesTo: (t) => t.failed('readRefreshAttempt'),
    violation: (t) =>
      unless(
        !t.reimaged && t.writes.every((w) => w.op !== 'writeRefreshAttempt'),
        () => 're-imaged without reading the attempt',
      ),
  },
  {
    id: 'I12',
    says: 'refresh-attempt/refresh-flap-detected are removed only after a fully successful re-image, in a write that precedes the digest record — and a fully successful re-image always removes them, except a decoupled pass over a count built before it (I25).',
    source: '#626',
    appliesTo: (t) =>
      t.called('clearFlapState') ||
      (t.reimaged && t.everyRolloutCompleted()) ||
      [t.keys.refreshAttempt, t.keys.flapDetected].some(
        (k) => t.annotationBefore(k) !== undefined && t.record.after.annotations[k] === undefined,
      ),
    violation: (t) => {
      if (t.reimaged && t.everyRolloutCompleted() && !t.called('clearFlapState') && !decoupledOverACount(t)) {
        return 'every rollout completed, yet no success reset was attempted';
      }
      const removedByTick = [t.keys.refreshAttempt, t.keys.flapDetected].some(
        (k) => t.annotationBefore(k) !== undefined && t.record.after.annotations[k] === undefined,
      );
      if (removedByTick && !t.succeeded('clearFlapState')) return 'bookkeeping removed outside the success reset';
      if (!t.called('clearFlapState')) return undefined;
      if (!(t.reimaged && t.everyRolloutCompleted())) return 'success reset without every rollout completed';
      const record = t.indexOf('recordDigests');
      return unless(record < 0 || t.indexOf('clearFlapState') < record, () => 'digest record before the success reset');
    },
  },
  {
    id: 'I13',
    says: 'A pinned image is neither resolved nor re-imaged, and a pinned workload is never re-imaged.',
    source: '#569',
    // A pin is an image's own variable or a workload's (the chart's REQUESTS_PROXY_PINNED): no container that runs a
    // pinned image, in any workload, and no container of a pinned workload moves — not by a rollback either.
    appliesTo: anythingPinned,
    violation: (t) => {
      const setImages = [...t.setImageCalls(), ...t.rollbackSetImageCalls()];
      for (const image of t.images.filter((i) => t.pinned(i))) {
        if (t.calls('resolveDigest').some((c) => c.detail === image.repo)) return `pinned ${image.repo} was resolved`;
        const touched = setImages.find((c) => t.sets(c, t.containersRunning(image.name)));
        if (touched !== undefined) return `pinned ${image.name} was re-imaged in ${touched.workload}`;
      }
      const pinned = setImages.find((c) => t.topology.workloads.some((w) => w.pinned && w.id === c.workload));
      return unless(pinned === undefined, () => `pinned ${pinned?.workload} was re-imaged`);
    },
  },
  {
    id: 'I14',
    says: 'A private mirror makes the tick inert unless MIRROR_MODE=follow-upstream: no API and no registry call, exit 0.',
    source: '#569',
    appliesTo: (t) => t.isMirror,
    violation: (t) =>
      unless(
        t.record.calls.length === 0 && t.exitCode === 0,
        () => `${t.record.calls.length} calls, exit ${t.exitCode}`,
      ),
  },
  {
    id: 'I15',
    says: "A failed resolution of one image leaves the others' refresh unaffected.",
    source: '#569',
    // A rate limit is the exception on purpose: it holds every re-image back (I7b).
    appliesTo: (t) =>
      t.guardShouldPass &&
      !t.registryBudgetLow &&
      t.resolvedImages().length > 0 &&
      t.images.some((i) => t.followed(i) && t.called('resolveDigest') && !t.resolvedImages().includes(i)),
    violation: (t) => {
      const verdicts = t.record.outcome.events.filter((e) =>
        ['FIRST_OBSERVATION', 'DIGEST_UNCHANGED', 'DIGEST_CHANGED'].includes(e.code),
      );
      if (t.succeeded('readRecordedDigests')) {
        for (const image of t.resolvedImages()) {
          if (!verdicts.some((e) => e.message.startsWith(`${image.repo}:`)))
            return `${image.repo} resolved but was not compared`;
        }
      }
      if (!t.reimaged || !t.everyRolloutCompleted()) return undefined;
      for (const image of t.resolvedImages()) {
        const before = t.annotationBefore(image.recordKey) ?? '';
        // A drift its signature check held back is not refreshed on purpose (I26); nor one the
        // platform check refused or could not judge, nor one not staged on every node (docs/behaviour.md §3.5a).
        const drifted =
          before !== '' &&
          before !== t.registryDigest(image) &&
          !t.quarantined(image) &&
          !t.heldBySignature(image.repo) &&
          !t.heldByPlatform(image.repo) &&
          !t.heldByStaging(image.repo);
        const set = t.setImageCalls().some((c) => t.sets(c, t.managedContainersOf(image.name)));
        if (drifted && !set) return `${image.repo} drifted but was not re-imaged with the others`;
      }
      return undefined;
    },
  },
  {
    id: 'I16',
    says: "The containers of one workload change in one patch per tick, and every container set to an image in a tick gets the same digest of it: the registry's answer, or (a live re-pin) the recorded one. On the chart: both jobs-manager containers in one patch, and requests-proxy on exactly jobs-manager's digest.",
    source: '#569',
    appliesTo: (t) => t.reimaged,
    violation: (t) => {
      const calls = t.setImageCalls();
      for (const workload of t.topology.workloads) {
        const patches = calls.filter((c) => c.workload === workload.id).length;
        if (patches > 1) return `${patches} patches for ${workload.id} in one tick`;
      }
      for (const image of t.images) {
        const targets = [
          ...new Set(
            calls.flatMap((c) =>
              Object.entries(c.images)
                .filter(([container]) => t.imageAt(c.workload, container) === image)
                .map(([container, reference]) => `${c.workload}/${container}=${reference}`),
            ),
          ),
        ];
        const references = new Set(targets.map((target) => target.slice(target.indexOf('=') + 1)));
        if (references.size > 1) return `${image.name} set to more than one digest in one tick: ${targets.join(' ')}`;
        // The registry's digest, or (a RECONCILE_LIVE skew repair) the recorded one.
        const allowed = [t.registryDigest(image), t.annotationBefore(image.recordKey)].map((d) =>
          t.referenceOf(image, d),
        );
        const other = [...references].find((reference) => !allowed.includes(reference));
        if (other !== undefined) return `${image.name} set to ${other}, not its digest (${allowed.join(' or ')})`;
      }
      return undefined;
    },
  },
  {
    id: 'I17',
    says: 'Every tick terminates within the sum of its bounds, whatever the ports do.',
    source: '#626',
    appliesTo: () => true,
    violation: (t) =>
      unless(t.elapsedMs <= t.sumOfBounds(), () => `took ${t.elapsedMs} ms, bounds sum to ${t.sumOfBounds()} ms`),
  },
  {
    id: 'I18',
    says: 'Exit 1 iff the tick has a finding an operator must see; exit 0 otherwise; exit 2 only for configuration errors.',
    source: '#1964',
    appliesTo: () => true,
    violation: (t) => {
      // The findings, read off the calls (TickView.otherFinding: a failed
      // call that is not one of BENIGN_FAILURES, or a lockout made a finding
      // by FLAP_LOCKOUT_EXIT=1), or a streak at its ceiling.
      const failedCall = t.failedFinding();
      const streak = t.calls('writeSkipStreak').find((c) => c.outcome === 'ok')?.detail;
      const atCeiling = streak !== undefined && Number(streak) >= t.config.maxSkipTicks;
      // FLAP_LOCKOUT_EXIT=1: a lockout with drift pending is a finding by the
      // world's account, so a tick that never got to the flap check (a low
      // registry budget decided first) cannot pass for green.
      const lockout = t.config.flapLockoutIsFinding && t.lockedOutWithDriftPending;
      const finding = t.otherFinding() || atCeiling || lockout;
      const what = failedCall?.op ?? (atCeiling ? `streak ${streak}` : 'flap lockout with drift pending');
      return unless(
        t.exitCode === (finding ? 1 : 0),
        () => `exit ${t.exitCode} but ${finding ? `finding: ${what}` : 'no finding'}`,
      );
    },
  },
  {
    id: 'I18b',
    says: 'Kubernetes Events never change a tick: they are recorded after its last decision (RefreshStaging aside, recorded as staging starts), and one that cannot be written changes neither the exit code nor any write to the Deployment.',
    source: 'beyond the script',
    appliesTo: (t) => t.called('recordEvent'),
    // The exit-code half is I18's model, which counts no Event failure as a finding. PREPULL's
    // RefreshStaging is recorded before the staging wait, so that a long pull is visible while it
    // lasts (docs/behaviour.md §3.5a); whatever becomes of it, the tick goes on alike.
    violation: (t) => {
      const first = t.record.calls.findIndex((c) => c.op === 'recordEvent' && c.detail !== STAGING_EVENT);
      if (first < 0) return undefined;
      const after = t.record.calls.slice(first).filter((c) => c.op !== 'recordEvent');
      return unless(after.length === 0, () => `port calls after the first Event: ${after.map((c) => c.op).join(', ')}`);
    },
  },
  {
    id: 'I19',
    says: 'A digest that is not a well-formed OCI digest is a resolution failure; it never reaches a pod spec or an annotation.',
    source: 'beyond the reference',
    appliesTo: (t) =>
      Object.values(t.record.before.registryFaults).includes('Garbage') || t.reimaged || t.called('recordDigests'),
    violation: (t) => {
      for (const call of t.setImageCalls()) {
        for (const image of Object.values(call.images)) {
          if (!isWellFormedDigest(image.slice(image.indexOf('@') + 1))) return `pod spec got ${image}`;
        }
      }
      for (const image of t.images) {
        const after = t.record.after.annotations[image.recordKey];
        if (after !== undefined && after !== t.annotationBefore(image.recordKey) && !isWellFormedDigest(after)) {
          return `${image.recordKey} recorded ${after}`;
        }
      }
      return undefined;
    },
  },
  {
    id: 'I21',
    says: "With RECONCILE_LIVE and DECOUPLED_REFRESH off, a tick reads no workload but those the ownership check needs (OWNERSHIP_CHECK on: each at most once, never the gate, whose read is the tick's own) and writes none of the annotations those switches add: with OWNERSHIP_CHECK=off too, it is the reference tick.",
    source: 'beyond the script',
    appliesTo: (t) => t.config.reconcileLive === 'off' && !t.config.decoupledRefresh,
    violation: (t) => {
      const windowed = t.record.calls.filter((c) => c.op === 'observeWorkload' || c.op === 'readPinMarkers');
      if (windowed.length > 0) return `called ${windowed.map((c) => c.op).join(', ')}`;
      const reads = t.record.calls.filter((c) => c.op === 'readOwnedWorkload');
      if (!t.config.ownershipCheck && reads.length > 0) return `read ${reads.map((c) => c.detail).join(', ')}`;
      const workloads = reads.map((c) => c.detail);
      if (workloads.includes(t.config.topology.gate.id)) return 'read the gate again for the ownership check';
      if (new Set(workloads).size < workloads.length) return `read a workload twice: ${workloads.join(', ')}`;
      const marker = t.images.find((i) => t.record.after.annotations[i.pinKey] !== t.annotationBefore(i.pinKey));
      return unless(marker === undefined, () => `wrote ${marker?.pinKey}`);
    },
  },
  {
    id: 'I22',
    says: 'No container of the gate (on the chart: jobs-manager, api and pods-monitor) is re-imaged on a tick whose gate guard did not pass — whatever the switches.',
    source: 'beyond the script, #546, #1964',
    appliesTo: (t) => !t.isMirror && !t.guardShouldPass,
    violation: (t) => {
      const touched = t.setImageCalls().find((c) => c.workload === t.gateId);
      return unless(
        touched === undefined,
        () => `re-imaged the gate ${t.gateId} while it was not settled: ${Object.keys(touched?.images ?? {})}`,
      );
    },
  },
  {
    id: 'I23',
    says: 'A live-drift re-pin (RECONCILE_LIVE=1) is a re-image like any other — after refresh-attempt+1, to the recorded digest — and only of a container image-refresh pinned or that runs another digest of its own repository; a fresh install still on repo:tag is never re-pinned.',
    source: 'beyond the script, #563, #569',
    appliesTo: (t) => t.config.reconcileLive === 'repair' && t.reimaged,
    violation: (t) => {
      const attempt = t.indexOf('writeRefreshAttempt', 'ok');
      if (attempt < 0 || attempt > t.indexOf('setImages')) return 'a re-pin without a persisted attempt before it';
      for (const call of t.setImageCalls()) {
        for (const [container, image] of Object.entries(call.images)) {
          const spec = t.imageOfReference(image);
          if (spec === undefined) return `${container} set to ${image}, not an image of ours`;
          const target = image.slice(image.indexOf('@') + 1);
          const recorded = t.annotationBefore(spec.recordKey);
          if (target !== recorded) {
            if (target === t.registryDigest(spec)) continue; // registry drift, not a re-pin
            return `${container} re-pinned to ${target}, not the recorded ${recorded}`;
          }
          const live = t.record.before.workloads[call.workload]?.images[container] ?? '';
          if (live === image) continue; // a no-op patch of a container already there
          // The first-tick contract, per container: a container on its tag is
          // re-pinned only if image-refresh itself pinned that very container.
          const pinnedBefore = t.history.pinnedContainers.has(`${call.workload}/${container}`);
          if (!live.includes('@') && !pinnedBefore) {
            return `${container} re-pinned from ${live}, which image-refresh never pinned (first-tick contract)`;
          }
        }
      }
      return undefined;
    },
  },
  {
    id: 'I24',
    says: 'In decoupled mode, on a tick whose gate is unsettled no workload but a decoupled one (on the chart: requests-proxy, resource-monitor) is re-imaged, and a decoupled one only if it was itself settled at the start of the tick.',
    source: 'beyond the script',
    // The gate's own containers are I22's.
    appliesTo: (t) => t.config.decoupledRefresh && t.unsettledButReadable,
    violation: (t) => {
      const moved = t.setImageCalls().find((c) => c.workload !== t.gateId && !t.movableInDecoupledPass(c.workload));
      if (moved === undefined) return undefined;
      return t.topology.workloads.some((w) => w.id === moved.workload && w.decoupled)
        ? `re-imaged ${moved.workload}, which was not settled`
        : `re-imaged ${moved.workload}, which is not decoupled, past an unsettled gate`;
    },
  },
  {
    id: 'I25',
    says: 'A decoupled pass never patches a container onto the digest it already runs of an image the pass cannot record — one that a container outside the pass (on the gate, or on a workload not settled itself) runs too; on the chart, requests-proxy onto the jobs-manager digest (a pass that cannot record that digest proves nothing by it) — and its success leaves refresh-attempt where it found it: it never clears a count that failed re-images before it built (with none, its success is the full success reset).',
    source: 'beyond the script (the flap counter keeps its meaning), #563',
    appliesTo: (t) => t.config.decoupledRefresh && t.unsettledButReadable && t.called('resolveDigest'),
    violation: (t) => {
      for (const call of t.setImageCalls()) {
        for (const [container, reference] of Object.entries(call.images)) {
          const image = t.imageAt(call.workload, container);
          const running = t.record.before.workloads[call.workload]?.images[container];
          if (image === undefined || reference !== running) continue;
          // An image the pass records keeps its in-place retry: its rollout wait is what counts a flapping workload.
          const recordable = t.managedContainersOf(image.name).every((m) => t.movableInDecoupledPass(m.workload));
          if (!recordable) return `patched ${call.workload}/${container} onto ${running}, which it already ran`;
        }
      }
      if (!t.reimaged || !t.everyRolloutCompleted()) return undefined;
      const before = t.counterBefore(t.keys.refreshAttempt);
      const after = counterValue(O.fromNullable(t.record.after.annotations[t.keys.refreshAttempt]));
      return unless(
        before === 0 || after >= before,
        () => `a decoupled success took refresh-attempt from ${before} to ${after}: failures before it were forgotten`,
      );
    },
  },
  {
    id: 'I29',
    says: 'With ON_ROLLOUT_FAILURE=revert, after a re-image tick whose rollout failed, every container the tick set runs the last recorded digest of its image — or the tick said ROLLBACK FAILED (exit 1).',
    source: 'beyond the script',
    appliesTo: (t) => t.config.onRolloutFailure === 'revert' && t.firstFailedRollout >= 0,
    violation: (t) => {
      if (t.record.outcome.events.some((e) => e.code === 'ROLLBACK_FAILED'))
        return unless(t.exitCode === 1, () => `ROLLBACK FAILED with exit ${t.exitCode}`);
      for (const call of t.setImageCalls().filter((c) => c.outcome === 'ok')) {
        for (const container of Object.keys(call.images)) {
          const image = t.imageAt(call.workload, container);
          const recorded = image === undefined ? undefined : t.annotationBefore(image.recordKey);
          const runs = t.record.after.workloads[call.workload]?.images[container];
          if (image === undefined || runs !== t.referenceOf(image, recorded))
            return `${call.workload}/${container} runs ${runs} after the failed rollout, not the recorded ${recorded}`;
        }
      }
      return undefined;
    },
  },
  {
    id: 'I30',
    says: 'A quarantined digest never reaches a pod spec again: no set image (re-image, live re-pin or rollback) moves a container to the digest quarantined for its image, and no record write makes it the recorded digest.',
    source: 'beyond the script',
    appliesTo: (t) => t.images.some((i) => t.annotationBefore(i.quarantineKey) !== undefined),
    violation: (t) => {
      for (const image of t.images) {
        const quarantined = t.annotationBefore(image.quarantineKey);
        if (quarantined === undefined) continue;
        const bad = t.referenceOf(image, quarantined);
        const hit = [...t.setImageCalls(), ...t.rollbackSetImageCalls()].find((c) =>
          Object.values(c.images).includes(bad),
        );
        if (hit !== undefined) return `${hit.workload} was set to the quarantined ${bad}`;
        const recorded = t.record.after.annotations[image.recordKey];
        if (recorded === quarantined && t.annotationBefore(image.recordKey) !== quarantined)
          return `${image.recordKey} was recorded as the quarantined ${quarantined}`;
      }
      return undefined;
    },
  },
  {
    id: 'I31',
    says: "With ON_ROLLOUT_FAILURE=keep and ROLLOUT_STABLE_FOR=0s a tick makes none of the way back's calls: no stability watch, no set image after a failed rollout, no quarantine written — the script's tick.",
    source: 'beyond the script',
    appliesTo: (t) => t.config.onRolloutFailure === 'keep' && t.config.rolloutStableForMs === 0,
    violation: (t) => {
      if (t.called('watchStability')) return 'watched a rollout with no stability window';
      if (t.rollbackSetImageCalls().length > 0) return 'set images after a failed rollout under keep';
      if (t.called('quarantineDigests')) return 'wrote a quarantine under keep';
      return unless(
        !['rolledBack', 'rollbackFailed'].includes(t.record.outcome.result),
        () => `ended ${t.record.outcome.result} under keep`,
      );
    },
  },
  {
    id: 'I20',
    says: 'Same port answers in, same commands and outcome out: the machine is deterministic and does no I/O of its own.',
    source: 'design',
    appliesTo: () => true,
    // Checked by replaying the tick on a clone of the world before it (see
    // spec-checker.ts); a tick view alone cannot see a second run.
    violation: () => undefined,
  },
  {
    id: 'I26',
    says: 'Under VERIFY_SIGNATURES=enforce no set-image carries a new digest whose signature check this tick was not Verified (NotVerified or a registry failure alike); a live re-pin puts back the recorded digest, which is not new.',
    source: 'beyond the script',
    appliesTo: (t) => t.config.signatures?.mode === 'enforce' && t.reimaged,
    violation: (t) => {
      const setAt = t.indexOf('setImages');
      for (const call of t.setImageCalls()) {
        for (const image of Object.values(call.images)) {
          const spec = t.imageOfReference(image);
          const digest = image.slice(image.indexOf('@') + 1);
          if (spec === undefined || digest === t.annotationBefore(spec.recordKey)) continue;
          const verified = t
            .signatureChecks()
            .some(
              (c) => c.call.detail === `${spec.repo}@${digest}` && c.call.outcome === 'Verified' && c.index < setAt,
            );
          if (!verified) return `set ${image} without a Verified signature check before it`;
        }
      }
      return undefined;
    },
  },
  {
    id: 'I27',
    says: 'With VERIFY_SIGNATURES on, refresh-attempt is written only after a changed digest passed its signature check this tick (Verified; under warn also NotVerified) — a check that failed, or a rejection under enforce, never spends an attempt.',
    source: 'beyond the script, #563',
    // A live re-pin (RECONCILE_LIVE=1) re-images a recorded digest: no new digest, no check.
    appliesTo: (t) =>
      (t.config.signatures?.mode ?? 'off') !== 'off' &&
      t.config.reconcileLive !== 'repair' &&
      t.called('writeRefreshAttempt'),
    violation: (t) => {
      const attemptAt = t.indexOf('writeRefreshAttempt');
      const admitted = t
        .signatureChecks()
        .some((c) => c.gated && c.index < attemptAt && t.admitsBySignature(c.call.outcome));
      return unless(
        admitted,
        () => 'wrote refresh-attempt with no changed digest admitted by its signature check before it',
      );
    },
  },
  {
    id: 'I28',
    says: "With VERIFY_SIGNATURES=off (the default) a tick makes no signature request and says nothing about signatures: its exits and writes are the reference tick's (I1–I25 hold as they did).",
    source: 'beyond the script',
    appliesTo: (t) => (t.config.signatures?.mode ?? 'off') === 'off',
    violation: (t) => {
      if (t.called('verifySignature')) return `checked ${t.calls('verifySignature')[0]?.detail}`;
      const said = t.record.outcome.events.find((e) => e.code.startsWith('SIGNATURE_'));
      return unless(said === undefined, () => `said ${said?.message}`);
    },
  },
  {
    id: 'I35',
    says: 'With FLEET_HALT_REF unset (the default) a tick makes no request of a fleet halt, writes no fleet-halt annotation and says nothing of one, whatever the registry holds under a halt tag.',
    source: 'docs/behaviour.md §3.4b',
    // Every sequence here runs without FLEET_HALT_REF, and its worlds publish halts (PublishHalt).
    appliesTo: (t) => t.config.fleetHalt === undefined,
    violation: (t) => {
      const asked = t.record.calls.find(
        (c) =>
          c.op === 'readFleetHalt' ||
          ((c.op === 'resolveDigest' || c.op === 'verifySignature') &&
            !t.images.some((i) => c.detail === i.repo || c.detail.startsWith(`${i.repo}@`))),
      );
      if (asked !== undefined) return `asked ${asked.op} ${asked.detail}`;
      const wrote = t.record.calls.find((c) => c.op === 'recordFleetHalt' || c.op === 'liftFleetHalt');
      if (wrote !== undefined) return `wrote ${wrote.detail}`;
      const kept = [t.keys.fleetHaltDigest, t.keys.fleetHaltDocument].find(
        (k) => t.annotationBefore(k) !== t.record.after.annotations[k],
      );
      if (kept !== undefined) return `changed ${kept}`;
      const said = t.record.outcome.events.find((e) => e.code.includes('HALT'));
      return unless(said === undefined && t.record.outcome.halt === undefined, () => `said ${said?.message}`);
    },
  },
  {
    id: 'I43',
    says: 'With PLATFORM_CHECK=off and PREPULL=off (the defaults) a tick reads no manifest, stages nothing, records no RefreshStaging Event and says nothing of platforms or staging: it is the reference tick.',
    source: 'stage, then switch',
    appliesTo: (t) => t.config.staging === undefined,
    violation: (t) => {
      const call = t.record.calls.find(
        (c) =>
          ['readPlatforms', 'stageImages', 'stageImage', 'deleteStagingPod'].includes(c.op) ||
          c.detail === STAGING_EVENT,
      );
      if (call !== undefined) return `${call.op} ${call.detail}`;
      const said = t.record.outcome.events.find((e) => e.code.startsWith('PLATFORM') || e.code.startsWith('STAG'));
      return unless(said === undefined, () => `said ${said?.message}`);
    },
  },
  {
    id: 'I45',
    says: "With OWNERSHIP_CHECK on, no set image moves a container that ran, when the tick began, another repository than its image's or that repository at another tag (a digest of it is the image's), and no record write names a digest for an image one of whose set or recorded containers did.",
    source: 'docs/behaviour.md §3.4c',
    appliesTo: (t) =>
      t.config.ownershipCheck && (t.reimaged || t.record.outcome.writes.some((w) => w.kind === 'recordDigests')),
    violation: (t) => {
      const ours = (workload: string, container: string, image: string): boolean => {
        const running = t.record.before.workloads[workload]?.images[container];
        const spec = t.images.find((i) => i.name === image);
        return running !== undefined && spec !== undefined && runsFollowedImage(spec, running, t.pullHostOf(spec));
      };
      for (const call of t.setImageCalls()) {
        for (const container of Object.keys(call.images)) {
          const managed = t.config.topology.managed.find(
            (m) => m.workload === call.workload && m.container === container,
          );
          if (managed !== undefined && !ours(call.workload, container, managed.image))
            return `set ${call.workload}/${container}, which ran ${t.record.before.workloads[call.workload]?.images[container]}`;
        }
      }
      for (const write of t.record.outcome.writes.filter((w) => w.kind === 'recordDigests')) {
        for (const image of t.images.filter(
          (i) => write.annotations[i.recordKey] !== undefined && write.annotations[i.recordKey] !== null,
        )) {
          const foreign = t.config.topology.managed.find(
            (m) =>
              m.image === image.name &&
              t.record.before.workloads[m.workload]?.exists === true &&
              !ours(m.workload, m.container, m.image),
          );
          if (foreign !== undefined)
            return `recorded ${image.name} while ${foreign.workload}/${foreign.container} ran another image`;
        }
      }
      return undefined;
    },
  },
  {
    id: 'I46',
    says: 'With MAX_RESOLVE_FAILURE_TICKS on, a tick in which an image it asked the registry for went unanswered (a 429 aside) writes refresh-resolve-failure-streak = previous + 1, and exits 1 when that reaches the ceiling; a tick in which every image it asked for answered leaves no streak behind (but for a failed removal, a WARNING); with off no streak is written.',
    source: '#1964',
    appliesTo: (t) => t.called('resolveDigest') && t.record.outcome.result !== 'interrupted',
    violation: (t) => {
      const key = t.keys.resolveFailureStreak;
      const max = t.config.maxResolveFailureTicks;
      if (max === 'off') {
        return unless(
          !t.called('writeResolveFailureStreak') && !t.called('clearResolveFailureStreak'),
          () => 'wrote a resolve-failure streak with MAX_RESOLVE_FAILURE_TICKS=off',
        );
      }
      // World truth: which images were asked, and which answered a well-formed digest.
      const asked = t.images.filter((image) => t.calls('resolveDigest').some((c) => c.detail === image.repo));
      // MIRROR_MODE=follow-upstream (§3.3): a changed digest the mirror did not serve is silence too.
      const answered = (image: (typeof asked)[number]) =>
        t.calls('resolveDigest').some((c) => c.detail === image.repo && c.outcome === 'ok') &&
        t.record.before.registryFaults[image.repo] !== 'Garbage' &&
        isWellFormedDigest(t.registryDigest(image) ?? '') &&
        t.servedByMirror(image);
      const rateLimited = (image: (typeof asked)[number]) =>
        t.calls('resolveDigest').some((c) => c.detail === image.repo && c.outcome === 'RateLimited');
      const silent = asked.filter((image) => !answered(image) && !rateLimited(image));
      const previous = counterValue(O.fromNullable(t.annotationBefore(key)));
      if (silent.length > 0) {
        const written = t.calls('writeResolveFailureStreak')[0];
        if (written === undefined) return `${silent.map((i) => i.repo).join(', ')} went unanswered, no streak written`;
        if (written.detail !== String(previous + 1)) return `streak ${written.detail} written after ${previous}`;
        if (written.outcome === 'ok' && previous + 1 >= max && t.exitCode !== 1)
          return `streak ${previous + 1} ≥ ${max} exited ${t.exitCode}`;
        return undefined;
      }
      if (t.called('writeResolveFailureStreak'))
        return 'counted a silence when every image asked answered or was rate-limited';
      const recorded = t.annotationBefore(key);
      const everyAnswered = asked.every(answered);
      if (everyAnswered && recorded !== undefined && recorded !== '' && !t.called('clearResolveFailureStreak'))
        return `every image answered and the streak ${recorded} was left behind`;
      if (t.failed('clearResolveFailureStreak'))
        return unless(
          t.record.outcome.events.some((e) => e.code === 'RESOLVE_FAILURE_STREAK_CLEAR_FAILED' && e.level === 'warn'),
          () => 'a failed removal was not a WARNING',
        );
      return undefined;
    },
  },
];
