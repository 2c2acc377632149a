import type { FailedReimageWhy, HeldReason, TickOutcome } from '@image-refresh/core';

// One phrase per tick for timelines and the closing summary line: what the
// tick decided, in an operator's words.

const names = (outcome: TickOutcome): string =>
  outcome.reimages.map((r) => `${r.workload.id}${r.rolledOut ? '' : ' (rollout failed)'}`).join(', ');

const recorded = (outcome: TickOutcome): number =>
  outcome.writes
    .filter((w) => w.kind === 'recordDigests')
    // A pending record the write removes is not a digest recorded.
    .reduce((n, w) => n + Object.values(w.annotations).filter((v) => v !== null).length, 0);

/** The images held back for `reason` this tick. */
const heldFor = (outcome: TickOutcome, reason: HeldReason): string[] =>
  (outcome.held ?? []).filter((h) => h.reason === reason).map((h) => h.image);

const FAILED_WORDS: Readonly<Record<FailedReimageWhy, string>> = {
  setImageRefused: 'set image refused',
  rolloutFailed: 'rollout failed',
  rolloutTimedOut: 'rollout timed out',
  rolloutUnreadable: 'unreadable in its rollout',
  notStable: 'did not stay complete',
};

/**
 * Why the re-image failed, naming the workload: a retry tick patches nothing
 * (the workload already runs the target), so the list of re-images alone is
 * empty there and said nothing.
 */
const failedWords = (outcome: TickOutcome): string => {
  const failed = outcome.failedReimage;
  if (failed === undefined) return `re-image failed: ${names(outcome)}`;
  return `${failed.alreadyOnTarget ? 'retry' : 're-image'} failed: ${failed.workload.id} ${FAILED_WORDS[failed.why]}`;
};

/** A re-image to a fleet halt's pin says so: it moves a workload back, not forward. */
const pinnedBack = (outcome: TickOutcome): string =>
  outcome.events.some((e) => e.code === 'HALT_PIN') ? " (the halt's pin)" : '';

/** The tick's decision in a phrase; `gateId` names the workload whose read gates the tick. */
export const decisionOf = (outcome: TickOutcome, gateId: string): string => {
  switch (outcome.result) {
    case 'configInvalid':
      return 'configuration error';
    case 'mirrorInert':
      return 'inert behind a private mirror';
    case 'deploymentUnreadable':
      return `${gateId} unreadable: not a benign skip`;
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
    case 'resolveFailureStreakWriteFailed':
      return 'registry silent, streak unwritable: failed';
    case 'mirrorMismatch':
      return outcome.reimages.length > 0 ? `MIRROR MISMATCH; re-imaged ${names(outcome)}` : 'MIRROR MISMATCH';
    case 'registryUnreachable':
      return outcome.reimages.length > 0 ? `REGISTRY UNREACHABLE; re-imaged ${names(outcome)}` : 'REGISTRY UNREACHABLE';
    case 'attemptUnreadable':
      return 'attempt counter unreadable: no re-image';
    case 'flapLockout':
      return 'FLAP DETECTED: no re-image';
    case 'flapMarkFailed':
      return 'flap detected, marker unwritable';
    case 'attemptWriteFailed':
      return 'attempt unwritable: no re-image';
    case 'reimageFailed':
      return failedWords(outcome);
    case 'rolledBack':
      return `ROLLED BACK: ${(outcome.reverts ?? []).map((r) => r.workload.id).join(', ')}`;
    case 'rollbackFailed':
      return 'ROLLBACK FAILED';
    case 'foreignImage':
      return `FOREIGN IMAGE: ${outcome.findings.filter((f) => f.code === 'FOREIGN_IMAGE').length} container(s); nothing written`;
    case 'ownershipUnchecked':
      return 'a workload unreadable: ownership unchecked, nothing written';
    case 'recordFailed':
      return outcome.reimages.length > 0 ? `re-imaged ${names(outcome)}; record failed` : 'record failed';
    case 'interrupted':
      return 'interrupted by a signal';
    case 'haltUnverified':
      // docs/behaviour.md §3.4b: a fleet halt that could not be verified holds every change back.
      return 'FLEET HALT UNVERIFIED: nothing re-imaged';
    case 'halted': {
      // The re-image to the halt's pin first: it is what moved (a timeline cuts the column).
      const holds = `FLEET HALT holds ${heldFor(outcome, 'halted').join(', ')}`;
      return outcome.reimages.length > 0 ? `re-imaged ${names(outcome)}${pinnedBack(outcome)}; ${holds}` : holds;
    }
    case 'signatureRejected':
      return `SIGNATURE NOT VERIFIED: ${heldFor(outcome, 'signatureRejected').join(', ')}`;
    case 'platformMismatch':
      return `PLATFORM MISMATCH: ${heldFor(outcome, 'platformMismatch').join(', ')}`;
    case 'notStaged': {
      const reimaged = outcome.reimages.length > 0 ? `re-imaged ${names(outcome)}; ` : '';
      return `${reimaged}not staged: ${heldFor(outcome, 'notStaged').join(', ')}`;
    }
    case 'outsideWindow': {
      // docs/behaviour.md §3.4d: a fleet halt's pin-back is never held, so something may have moved.
      const reimaged = outcome.reimages.length > 0 ? `re-imaged ${names(outcome)}${pinnedBack(outcome)}; ` : '';
      return `${reimaged}waiting for the window: ${heldFor(outcome, 'outsideWindow').join(', ')}`;
    }
    case 'windowTooShort':
      return `WINDOW TOO SHORT: ${heldFor(outcome, 'windowTooShort').join(', ')}`;
    case 'promotionUnverified': {
      // docs/fleet-promotion.md: it opens no ring, but a halt's pin-back or a live re-pin to the record still runs.
      const reimaged = outcome.reimages.length > 0 ? `re-imaged ${names(outcome)}${pinnedBack(outcome)}; ` : '';
      return `${reimaged}PROMOTION UNVERIFIED: no change acted on`;
    }
    case 'awaitingPromotion': {
      // A halt's pin-back is never held by the promotion, so something may have moved.
      const reimaged = outcome.reimages.length > 0 ? `re-imaged ${names(outcome)}${pinnedBack(outcome)}; ` : '';
      return `${reimaged}waiting for promotion: ${heldFor(outcome, 'awaitingPromotion').join(', ')}`;
    }
    case 'quarantineHeld':
      return `quarantined digest held (${heldFor(outcome, 'quarantined').join(', ')})`;
    case 'soaking':
      return `soaking ${heldFor(outcome, 'soaking').join(', ')}`;
    case 'complete': {
      if (outcome.reimages.length > 0) return `re-imaged ${names(outcome)}${pinnedBack(outcome)}`;
      const n = recorded(outcome);
      if (n > 0) return `first observation: recorded ${n} digest(s)`;
      // An image the registry (or the mirror, MIRROR_MODE) did not answer waits: say which, not "no change".
      const waiting = outcome.unresolved ?? [];
      return waiting.length > 0 ? `waiting: ${waiting.join(', ')} unresolved` : 'no change';
    }
  }
};

/** What the settled guard saw of the gate this tick. */
export const gateState = (outcome: TickOutcome): string => {
  if (outcome.result === 'deploymentUnreadable') return 'unreadable';
  if (outcome.settledness === undefined) return 'not checked';
  return outcome.settledness._tag === 'Settled' ? 'settled' : 'not settled';
};
