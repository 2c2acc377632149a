// What an operator sees, as data. The CLI prints one `[image-refresh]` line per
// event (hints as continuation lines) or one JSON object per event; codes are
// stable for machines, messages keep the reference's phrases for humans who
// grep (docs/behaviour.md §3: "operators grep for the phrases quoted above").

/** `error` is a finding (exit 1, I18); `warn` is said loudly but the tick goes on; `info` narrates. */
export type EventLevel = 'info' | 'warn' | 'error';

/**
 * What happened, as a stable machine-readable code (the message may be
 * reworded; the code is not). New codes may be added in a minor version:
 * match with a default branch.
 */
export type EventCode =
  | 'TICK_START'
  | 'VARIABLES_IGNORED'
  | 'CONFIG_INVALID'
  | 'MIRROR_INERT'
  | 'DEPLOYMENT_UNREADABLE'
  | 'NOT_SETTLED_SKIP'
  | 'SKIP_STREAK_UNCOUNTABLE'
  | 'SKIP_STREAK_WRITE_FAILED'
  | 'FROZEN'
  | 'SETTLED_AGAIN'
  | 'SKIP_STREAK_UNREADABLE'
  | 'SKIP_STREAK_CLEAR_FAILED'
  | 'CHECKING_IMAGE'
  | 'IMAGE_PINNED'
  | 'RESOLVE_FAILED'
  | 'RECORDED_DIGESTS_UNREADABLE'
  // A registry that never answers is a finding (docs/behaviour.md §3.3, I46).
  | 'REGISTRY_SILENT'
  // MIRROR_MODE=follow-upstream (docs/behaviour.md §3.3): a digest the mirror has not served, or served as another.
  | 'MIRROR_NOT_SERVING'
  | 'MIRROR_MISMATCH'
  | 'REGISTRY_UNREACHABLE'
  | 'REGISTRY_ANSWERING'
  | 'RESOLVE_FAILURE_STREAK_WRITE_FAILED'
  | 'RESOLVE_FAILURE_STREAK_CLEAR_FAILED'
  | 'ORPHANED_BOOKKEEPING'
  | 'FIRST_OBSERVATION'
  | 'DIGEST_UNCHANGED'
  | 'DIGEST_CHANGED'
  | 'WORKLOAD_PINNED'
  | 'REGISTRY_BUDGET_LOW'
  | 'ATTEMPT_UNREADABLE'
  | 'FLAP_DETECTED'
  | 'FLAP_MARK_FAILED'
  | 'ATTEMPT_WRITE_FAILED'
  | 'REIMAGING'
  | 'SET_IMAGE'
  | 'ALREADY_ON_TARGET'
  | 'SET_IMAGE_FAILED'
  | 'ROLLOUT_COMPLETE'
  | 'ROLLOUT_FAILED'
  | 'REIMAGE_COMPLETE'
  | 'SUCCESS_RESET_FAILED'
  | 'ATTEMPT_KEPT'
  | 'RECORDING_DIGESTS'
  | 'RECORD_FAILED'
  // Never overwrite what is not ours (OWNERSHIP_CHECK, docs/behaviour.md §3.4c).
  | 'FOREIGN_IMAGE'
  | 'OWNERSHIP_UNCHECKED'
  | 'TOPOLOGY_CHECKED'
  | 'TOPOLOGY_FINGERPRINT_UNWRITTEN'
  // Fleet-safe rollout (docs/behaviour.md §3.4a step 2, §3.3).
  | 'DIGEST_SOAK_STARTED'
  | 'DIGEST_SOAKING'
  | 'DIGEST_SOAKED'
  | 'PENDING_DIGEST_UNREADABLE'
  | 'PENDING_DIGEST_UNPARSABLE'
  | 'PENDING_DIGEST_WRITE_FAILED'
  | 'CLOCK_UNAVAILABLE'
  // Maintenance windows (docs/behaviour.md §3.4d).
  | 'WINDOW_CLOSED'
  | 'WINDOW_NO_ROOM'
  | 'WINDOW_TOO_SHORT'
  | 'WINDOW_ROOM'
  | 'START_JITTER'
  | 'START_JITTER_FAILED'
  | 'LIVE_DRIFT'
  | 'PIN_MARKERS_UNREADABLE'
  | 'LIVE_UNREADABLE'
  | 'DECOUPLED_REFRESH'
  | 'DECOUPLED_NOT_SETTLED'
  | 'TICK_COMPLETE'
  | 'EVENT_NOT_RECORDED'
  | 'INTERRUPTED'
  // The way back (docs/behaviour.md §3.6).
  | 'STABILITY_WATCH'
  | 'REVERT_READY'
  | 'ROLLING_BACK'
  | 'ROLLED_BACK'
  | 'ROLLBACK_FAILED'
  | 'QUARANTINE_STARTED'
  | 'QUARANTINE_WRITE_FAILED'
  | 'DIGEST_QUARANTINED'
  | 'SIGNATURE_VERIFIED'
  | 'SIGNATURE_REJECTED'
  | 'SIGNATURE_NOT_VERIFIED'
  | 'SIGNATURE_CHECK_FAILED'
  | 'SIGNATURE_BASELINE'
  // The fleet halt (docs/behaviour.md §3.4b).
  | 'FLEET_HALT_NONE'
  | 'FLEET_HALT_READ'
  | 'FLEET_HALT_IN_FORCE'
  | 'FLEET_HALT_EXPIRED'
  | 'FLEET_HALT_UNVERIFIED'
  | 'FLEET_HALT_LIFTED'
  | 'FLEET_HALT_WRITE_FAILED'
  | 'FLEET_PROMOTION_NONE'
  | 'RECORD_TIME_UNREAD'
  | 'FLEET_PROMOTION_READ'
  | 'FLEET_PROMOTION_VERIFIED'
  | 'FLEET_PROMOTION_UNVERIFIED'
  | 'FLEET_PROMOTION_WITHDRAWN'
  | 'FLEET_PROMOTION_WRITE_FAILED'
  | 'DIGEST_HALTED'
  | 'HALT_PIN'
  | 'HALT_NO_PIN'
  // Stage, then switch (docs/behaviour.md §3.4a step 4, §3.5a).
  | 'PLATFORMS_CHECKED'
  | 'PLATFORM_MISMATCH'
  | 'PLATFORM_CHECK_FAILED'
  | 'STAGING'
  | 'STAGED'
  | 'STAGING_FAILED';

/**
 * One thing a tick tells its operator, in order. The CLI prints each as an
 * `[image-refresh]` line; messages keep the reference's phrases ("IMAGE
 * REFRESH IS FROZEN", "skipping this refresh tick N/MAX", "MANUAL ATTENTION
 * NEEDED") because operators grep for them.
 */
export interface TickEvent {
  /** `error` makes it a finding. */
  readonly level: EventLevel;
  /** Stable across versions; match on this, not on the message. */
  readonly code: EventCode;
  /** The line for a human, with the real cause and numbers. */
  readonly message: string;
  /** Continuation lines: commands to run, likely causes. */
  readonly hints?: readonly string[];
  /**
   * The tag of the error behind the event, where one is (`RateLimited`,
   * `Timeout`, …): what decides the Kubernetes Event reason, never the
   * message text.
   */
  readonly cause?: string;
}

/** A finding is an event an operator must see; any finding makes the tick exit 1 (I18). */
export const isFinding = (event: TickEvent): boolean => event.level === 'error';

/** One event as the message modules make it: hints only when there are some. */
export const tickEvent = (
  level: TickEvent['level'],
  code: TickEvent['code'],
  message: string,
  hints?: readonly string[],
): TickEvent => (hints === undefined ? { level, code, message } : { level, code, message, hints });
