import { parseImageReference } from '../config/profile/image-reference.js';
import { shortDigest } from '../domain/digest.js';
import { describeWorkload } from '../domain/workloads.js';
import type { KubeEvent } from '../ports/events-port.js';
import type { EventCode, TickEvent } from './tick-event.js';
import type { Reimage, TickOutcome } from './tick-outcome.js';

// Which of a tick's events become Kubernetes Events, under which stable
// reason. Every finding and warning does; so do skips (a streak shows its
// count in one Event) and each successful re-image (old → new per container).
// Pure: the publishing happens after the tick and can never change its
// outcome (I18b).

const REASONS: Partial<Record<EventCode, { type: KubeEvent['type']; reason: string }>> = {
  FROZEN: { type: 'Warning', reason: 'RefreshFrozen' },
  NOT_SETTLED_SKIP: { type: 'Normal', reason: 'RefreshSkipped' },
  DEPLOYMENT_UNREADABLE: { type: 'Warning', reason: 'RefreshDeploymentUnreadable' },
  SKIP_STREAK_UNCOUNTABLE: { type: 'Warning', reason: 'RefreshBookkeepingUnreadable' },
  SKIP_STREAK_UNREADABLE: { type: 'Warning', reason: 'RefreshBookkeepingUnreadable' },
  ATTEMPT_UNREADABLE: { type: 'Warning', reason: 'RefreshBookkeepingUnreadable' },
  RECORDED_DIGESTS_UNREADABLE: { type: 'Warning', reason: 'RefreshBookkeepingUnreadable' },
  SKIP_STREAK_WRITE_FAILED: { type: 'Warning', reason: 'RefreshBookkeepingWriteFailed' },
  ATTEMPT_WRITE_FAILED: { type: 'Warning', reason: 'RefreshBookkeepingWriteFailed' },
  FLAP_MARK_FAILED: { type: 'Warning', reason: 'RefreshBookkeepingWriteFailed' },
  SUCCESS_RESET_FAILED: { type: 'Warning', reason: 'RefreshBookkeepingWriteFailed' },
  RECORD_FAILED: { type: 'Warning', reason: 'RefreshBookkeepingWriteFailed' },
  SKIP_STREAK_CLEAR_FAILED: { type: 'Warning', reason: 'RefreshStreakClearFailed' },
  // A registry that never answers (docs/behaviour.md §3.3): the finding, and its own bookkeeping.
  REGISTRY_UNREACHABLE: { type: 'Warning', reason: 'RefreshRegistryUnreachable' },
  RESOLVE_FAILURE_STREAK_WRITE_FAILED: { type: 'Warning', reason: 'RefreshBookkeepingWriteFailed' },
  RESOLVE_FAILURE_STREAK_CLEAR_FAILED: { type: 'Warning', reason: 'RefreshStreakClearFailed' },
  SET_IMAGE_FAILED: { type: 'Warning', reason: 'RefreshRolloutFailed' },
  ROLLOUT_FAILED: { type: 'Warning', reason: 'RefreshRolloutFailed' },
  FLAP_DETECTED: { type: 'Warning', reason: 'RefreshFlapDetected' },
  REGISTRY_BUDGET_LOW: { type: 'Warning', reason: 'RefreshRegistryBudgetLow' },
  LIVE_DRIFT: { type: 'Warning', reason: 'RefreshLiveDrift' },
  PIN_MARKERS_UNREADABLE: { type: 'Warning', reason: 'RefreshBookkeepingUnreadable' },
  LIVE_UNREADABLE: { type: 'Warning', reason: 'RefreshLiveUnreadable' },
  INTERRUPTED: { type: 'Warning', reason: 'RefreshInterrupted' },
  // The way back (§3.6): the quarantine's Event is Normal and said once, when it starts.
  ROLLED_BACK: { type: 'Warning', reason: 'RefreshRolledBack' },
  ROLLBACK_FAILED: { type: 'Warning', reason: 'RefreshRollbackFailed' },
  QUARANTINE_STARTED: { type: 'Normal', reason: 'RefreshQuarantined' },
  QUARANTINE_WRITE_FAILED: { type: 'Warning', reason: 'RefreshBookkeepingWriteFailed' },
  // §3.4a step 3: the contract's reason for a rejection under enforce; under warn, said but not rejected.
  SIGNATURE_REJECTED: { type: 'Warning', reason: 'RefreshSignatureRejected' },
  SIGNATURE_NOT_VERIFIED: { type: 'Warning', reason: 'RefreshSignatureNotVerified' },
  // §3.4a step 2: a soak's start and end, not every tick it waits (DIGEST_SOAKING has no Event).
  DIGEST_SOAK_STARTED: { type: 'Normal', reason: 'RefreshDigestSoakStarted' },
  DIGEST_SOAKED: { type: 'Normal', reason: 'RefreshDigestSoaked' },
  PENDING_DIGEST_UNREADABLE: { type: 'Warning', reason: 'RefreshBookkeepingUnreadable' },
  PENDING_DIGEST_UNPARSABLE: { type: 'Warning', reason: 'RefreshBookkeepingUnreadable' },
  PENDING_DIGEST_WRITE_FAILED: { type: 'Warning', reason: 'RefreshBookkeepingWriteFailed' },
  CLOCK_UNAVAILABLE: { type: 'Warning', reason: 'RefreshClockUnavailable' },
  START_JITTER_FAILED: { type: 'Warning', reason: 'RefreshClockUnavailable' },
  // Maintenance windows (docs/behaviour.md §3.4d): each tick a plan waits for its window, and the finding.
  WINDOW_CLOSED: { type: 'Normal', reason: 'RefreshWindowWait' },
  WINDOW_NO_ROOM: { type: 'Normal', reason: 'RefreshWindowWait' },
  WINDOW_TOO_SHORT: { type: 'Warning', reason: 'RefreshWindowTooShort' },
  // The fleet halt (docs/behaviour.md §3.4b): every tick it holds, and every tick it cannot be verified.
  FLEET_HALT_IN_FORCE: { type: 'Warning', reason: 'RefreshHalted' },
  FLEET_HALT_UNVERIFIED: { type: 'Warning', reason: 'RefreshHaltUnverified' },
  FLEET_HALT_WRITE_FAILED: { type: 'Warning', reason: 'RefreshBookkeepingWriteFailed' },
  FLEET_PROMOTION_UNVERIFIED: { type: 'Warning', reason: 'RefreshPromotionUnverified' },
  FLEET_PROMOTION_WRITE_FAILED: { type: 'Warning', reason: 'RefreshBookkeepingWriteFailed' },
  HALT_NO_PIN: { type: 'Warning', reason: 'RefreshHalted' },
  // What the halt held this tick, in the same Event (a finding under FLEET_HALT_EXIT=1).
  DIGEST_HALTED: { type: 'Warning', reason: 'RefreshHalted' },
  // Stage, then switch. RefreshStaging (Normal) is recorded as staging starts,
  // not here: a 20-minute pull must be visible while it lasts (docs/behaviour.md §3.5a).
  PLATFORM_MISMATCH: { type: 'Warning', reason: 'RefreshPlatformMismatch' },
  STAGING_FAILED: { type: 'Warning', reason: 'RefreshStagingFailed' },
  // A profile of one's own (docs/profiles.md): what it cannot follow, and what it leaves behind.
  FOREIGN_IMAGE: { type: 'Warning', reason: 'RefreshForeignImage' },
  OWNERSHIP_UNCHECKED: { type: 'Warning', reason: 'RefreshLiveUnreadable' },
  TOPOLOGY_FINGERPRINT_UNWRITTEN: { type: 'Warning', reason: 'RefreshBookkeepingWriteFailed' },
  VARIABLES_IGNORED: { type: 'Warning', reason: 'RefreshProfileWarning' },
  ORPHANED_BOOKKEEPING: { type: 'Warning', reason: 'RefreshProfileWarning' },
};

/** One Kubernetes Event reason a tick records, with its type and what it is recorded for. */
export interface EventReason {
  readonly reason: string;
  readonly type: KubeEvent['type'];
  /** The tick's event codes (the `code` of `tick --json`) recorded under it; empty for RefreshReimaged. */
  readonly codes: readonly EventCode[];
}

/**
 * Every reason, in the table's order, each once: what docs/events.md lists
 * (a test holds it there). RefreshReimaged is made per re-imaged workload,
 * not from an event code.
 */
export const EVENT_REASONS: readonly EventReason[] = [
  ...Object.entries(REASONS)
    .reduce((byReason, [code, r]) => {
      if (r === undefined) return byReason;
      const key = `${r.type} ${r.reason}`;
      const seen = byReason.get(key);
      byReason.set(key, { reason: r.reason, type: r.type, codes: [...(seen?.codes ?? []), code as EventCode] });
      return byReason;
    }, new Map<string, EventReason>())
    .values(),
  { reason: 'RefreshReimaged', type: 'Normal', codes: [] },
];

/**
 * The apiserver refuses a note over 1024 bytes (Go's len: UTF-8 bytes, so
 * `→` and `…` count 3 each), answering 422 and recording nothing.
 */
export const MAX_NOTE_BYTES = 1024;
const ELLIPSIS = '…';

const utf8Bytes = (codePoint: number): number =>
  codePoint < 0x80 ? 1 : codePoint < 0x800 ? 2 : codePoint < 0x10000 ? 3 : 4;

/** The message in at most {@link MAX_NOTE_BYTES} UTF-8 bytes, cut between code points and marked `…`. */
export const clipNote = (message: string): string => {
  const budget = MAX_NOTE_BYTES - utf8Bytes(ELLIPSIS.codePointAt(0) ?? 0);
  let used = 0;
  /** Where the message stops fitting with the ellipsis after it (UTF-16 index). */
  let cut: number | undefined;
  let index = 0;
  for (const char of message) {
    used += utf8Bytes(char.codePointAt(0) ?? 0);
    if (cut === undefined && used > budget) cut = index;
    if (used > MAX_NOTE_BYTES) return `${message.slice(0, cut)}${ELLIPSIS}`;
    index += char.length;
  }
  return message;
};

const reasonOf = (event: TickEvent): { type: KubeEvent['type']; reason: string } | undefined => {
  // A registry failure on the signature fetch or the platform check is a resolution failure of that image (§3.4a).
  if (
    event.code === 'RESOLVE_FAILED' ||
    event.code === 'SIGNATURE_CHECK_FAILED' ||
    event.code === 'PLATFORM_CHECK_FAILED'
  ) {
    return event.cause === 'RateLimited'
      ? { type: 'Warning', reason: 'RefreshRegistryRateLimited' }
      : { type: 'Warning', reason: 'RefreshResolveFailed' };
  }
  return REASONS[event.code];
};

/**
 * What a container ran before: the recorded digest the drift moved from, else
 * the live image the tick read (a decoupled pass records no digest of an
 * image the gate runs; a live re-pin moves a container off Helm's `repo:tag`), else `?`.
 */
const movedFrom = (outcome: TickOutcome, reimage: Reimage, container: string, digest: string): string => {
  const recorded = outcome.digestChanges.find((c) => c.to === digest)?.from;
  if (recorded !== undefined) return shortDigest(recorded);
  const live = reimage.previous?.[container];
  if (live === undefined) return '?';
  const before = parseImageReference(live).digest;
  return before === undefined ? live : shortDigest(before);
};

/** The re-image Event names the key or identity that verified the digest, where one did. */
const signedBy = (outcome: TickOutcome, digest: string): string => {
  const check = outcome.signatureChecks?.find((c) => c.digest === digest && c.result._tag === 'Verified');
  return check?.result._tag === 'Verified' ? ` (signature verified by ${check.result.by})` : '';
};

/** One Kubernetes Event per reason per tick (several messages of one reason are joined). */
export const kubernetesEventsFor = (outcome: TickOutcome): KubeEvent[] => {
  const byReason = new Map<string, { type: KubeEvent['type']; messages: string[] }>();
  const add = (type: KubeEvent['type'], reason: string, message: string) => {
    const entry = byReason.get(reason) ?? { type, messages: [] };
    entry.messages.push(message);
    byReason.set(reason, entry);
  };
  for (const event of outcome.events) {
    const mapped = reasonOf(event);
    if (mapped !== undefined) add(mapped.type, mapped.reason, event.message);
  }
  // A workload the rollback set back (§3.6) was not re-imaged, whatever its first rollout did.
  const rolledBack = new Set((outcome.reverts ?? []).map((r) => r.workload.id));
  for (const reimage of outcome.reimages.filter((r) => r.rolledOut && !rolledBack.has(r.workload.id))) {
    const moves = reimage.images.map(({ container, image }) => {
      const digest = image.slice(image.indexOf('@') + 1);
      return `${container} ${movedFrom(outcome, reimage, container, digest)} → ${shortDigest(digest)}${signedBy(outcome, digest)}`;
    });
    add('Normal', 'RefreshReimaged', `${describeWorkload(reimage.workload)} re-imaged: ${moves.join(', ')}`);
  }
  return [...byReason].map(([reason, { type, messages }]) => ({
    type,
    reason,
    message: clipNote(messages.join(' | ')),
  }));
};
