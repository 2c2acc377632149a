import {
  hasHaltSignatureToCheck,
  hasHaltToRecord,
  isHaltLifted,
  needsHaltDocument,
} from '../../domain/fleet-halt-reading.js';
import { resolveGuards } from '../resolve/guards.js';
import type { GuardArgs } from '../tick-assign.js';

// The fleet halt phase's named guards (docs/behaviour.md §3.4b), each one question to domain/.

export const fleetHaltGuards = {
  // Past the halt, the promotion when it is on (fleet-routes.ts): resolve's question, asked again.
  isFleetPromotionOn: resolveGuards.isFleetPromotionOn,
  /** The tag answers a digest this edge has not verified (or whose kept document no longer parses): read it. */
  needsHaltDocument: ({ context }: GuardArgs) => needsHaltDocument(context.halt.reading),
  /** decidingHaltSignature: on to verifyingHaltSignature. */
  hasHaltSignatureToCheck: ({ context }: GuardArgs) => hasHaltSignatureToCheck(context.halt.reading),
  /** decidingHaltRecord: on to recordingHalt before the verdict is said. */
  hasHaltToRecord: ({ context }: GuardArgs) => hasHaltToRecord(context.halt.reading),
  /** decidingHaltDocument: on to liftingHalt. */
  isHaltLifted: ({ context }: GuardArgs) => isHaltLifted(context.halt.reading),
  // Nothing resolved: the halt is said, and there is nothing to admit (§3.3).
  isNothingResolved: resolveGuards.isNothingResolved,
};
