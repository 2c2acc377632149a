import type { OwnershipFinding } from '../../domain/ownership.js';
import type { PortError } from '../../domain/port-error.js';
import type { LiveWorkload, WorkloadRef } from '../../domain/workloads.js';

/** A workload the check could not read, and why: what it runs is unknown, so nothing is written. */
export interface UnreadWorkload {
  readonly workload: WorkloadRef;
  readonly error: PortError;
}

/** What the ownership check reads and finds (docs/behaviour.md §3.4c). */
export interface OwnershipContext {
  /** The workloads it reads, in the profile's order: those the plan stakes that no earlier step read this tick. */
  readonly toRead: readonly string[];
  /** What each of them runs now, as read. */
  readonly read: Readonly<Record<string, LiveWorkload>>;
  /** Those that could not be read (fail closed: none is judged, nothing is written). */
  readonly unread: readonly UnreadWorkload[];
  /** Every staked container that runs another image than it follows, or is missing. */
  readonly findings: readonly OwnershipFinding[];
}

export const NOTHING_CHECKED: OwnershipContext = { toRead: [], read: {}, unread: [], findings: [] };
