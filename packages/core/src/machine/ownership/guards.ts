import { admitGuards } from '../admit/guards.js';
import type { GuardArgs } from '../tick-assign.js';
import { topologyChanged } from './inputs.js';

// The ownership check's named guards (docs/behaviour.md §3.4c).

export const ownershipGuards = {
  // Whether the check runs at all: admit's question, asked again past the lockout.
  needsOwnershipCheck: admitGuards.needsOwnershipCheck,
  /** A workload the check needs could not be read: what it runs is unknown (fail closed, nothing is written). */
  hasUnreadOwnedWorkloads: ({ context }: GuardArgs) => context.ownership.unread.length > 0,
  /** Every mapped container checked after the topology changed, none foreign: its fingerprint is recorded (§3.4c). */
  hasTopologyFingerprintToRecord: ({ context }: GuardArgs) => topologyChanged(context),
  /** A staked container runs another image than the one it follows, or is not there: nothing is written. */
  hasForeignContainers: ({ context }: GuardArgs) => context.ownership.findings.length > 0,
  // Past the check, the plan goes on as comparingDigests would have sent it.
  hasWorkloadsToReimage: admitGuards.hasWorkloadsToReimage,
  hasDigestsToRecord: admitGuards.hasDigestsToRecord,
};
