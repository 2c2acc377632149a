import type { TickOutcome } from '@image-refresh/core';

// One phrase per tick for timelines and the closing summary line: what the
// tick decided, in an operator's words.

const names = (outcome: TickOutcome): string =>
  outcome.reimages.map((r) => `${r.workload.id}${r.rolledOut ? '' : ' (rollout failed)'}`).join(', ');

const recorded = (outcome: TickOutcome): number =>
  outcome.writes
    .filter((w) => w.kind === 'recordDigests')
    // A pending record the write removes (issue 17) is not a digest recorded.
    .reduce((n, w) => n + Object.values(w.annotations).filter((v) => v !== null).length, 0);

/** Issue 17: the images whose changed digest waits on this edge (MIN_DIGEST_AGE, ROLLOUT_RING). */
const soaking = (outcome: TickOutcome): string[] =>
  outcome.events
    .filter((e) => e.code === 'DIGEST_SOAK_STARTED' || e.code === 'DIGEST_SOAKING')
    .map((e) => e.message.slice(0, e.message.indexOf('@')).replace('tracebloc/', ''));

export const decisionOf = (outcome: TickOutcome): string => {
  switch (outcome.result) {
    case 'configInvalid':
      return 'configuration error';
    case 'mirrorInert':
      return 'inert behind a private mirror';
    case 'deploymentUnreadable':
      return 'jobs-manager unreadable: not a benign skip';
    case 'skipStreakUncountable':
      return 'not settled, streak unreadable: failed';
    case 'skipStreakWriteFailed':
      return 'not settled, streak unwritable: failed';
    case 'skipped':
      return 'not settled: skip';
    case 'frozen':
      return 'IMAGE REFRESH IS FROZEN';
    case 'recordedDigestsUnreadable':
      return 'recorded digests unreadable: nothing done';
    case 'attemptUnreadable':
      return 'attempt counter unreadable: no re-image';
    case 'flapLockout':
      return 'FLAP DETECTED: no re-image';
    case 'flapMarkFailed':
      return 'flap detected, marker unwritable';
    case 'attemptWriteFailed':
      return 'attempt unwritable: no re-image';
    case 'reimageFailed':
      return `re-image failed: ${names(outcome)}`;
    case 'rolledBack':
      return `ROLLED BACK: ${(outcome.reverts ?? []).map((r) => r.workload.id).join(', ')}`;
    case 'rollbackFailed':
      return 'ROLLBACK FAILED';
    case 'recordFailed':
      return outcome.reimages.length > 0 ? `re-imaged ${names(outcome)}; record failed` : 'record failed';
    case 'interrupted':
      return 'interrupted by a signal';
    case 'complete': {
      // docs/behaviour.md §3.4b: a fleet halt that could not be verified holds everything back.
      if (outcome.halt?.state === 'unverified') return 'FLEET HALT UNVERIFIED: nothing re-imaged';
      if (outcome.reimages.length > 0)
        return `re-imaged ${names(outcome)}${outcome.events.some((e) => e.code === 'HALT_PIN') ? " (the halt's pin)" : ''}`;
      if (soaking(outcome).length > 0) return `soaking ${soaking(outcome).join(', ')}`;
      const n = recorded(outcome);
      if (n > 0) return `first observation: recorded ${n} digest(s)`;
      // Issue 16: a quarantined digest held is said, not passed off as no change.
      const held = outcome.events.filter((e) => e.code === 'DIGEST_QUARANTINED').length;
      if (held > 0) return `quarantined digest held (${held} image(s))`;
      const halted = outcome.events.filter((e) => e.code === 'DIGEST_HALTED').length;
      return halted > 0 ? `FLEET HALT holds ${halted} image(s)` : 'no change';
    }
  }
};

export const jobsManagerState = (outcome: TickOutcome): string => {
  if (outcome.result === 'deploymentUnreadable') return 'unreadable';
  if (outcome.settledness === undefined) return 'not checked';
  return outcome.settledness._tag === 'Settled' ? 'settled' : 'not settled';
};
