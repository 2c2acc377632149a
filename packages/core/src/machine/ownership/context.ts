import type { OwnershipFinding } from '../../domain/ownership.js';
import type { LiveWorkload } from '../../domain/workloads.js';

/** What the ownership check reads and finds (docs/behaviour.md §3.4c). */
export interface OwnershipContext {
  /** The workloads it reads, in the profile's order: those the plan stakes that no earlier step read this tick. */
  readonly toRead: readonly string[];
  /** What each of them runs now, as read. */
  readonly read: Readonly<Record<string, LiveWorkload>>;
  /** Every staked container that runs another image than it follows, or is missing. */
  readonly findings: readonly OwnershipFinding[];
}

export const NOTHING_CHECKED: OwnershipContext = { toRead: [], read: {}, findings: [] };
