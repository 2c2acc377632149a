import {
  hasHaltSignatureToCheck,
  hasHaltToRecord,
  isHaltLifted,
  needsHaltDocument,
} from '../../domain/fleet-halt-reading.js';
import { isFleetHaltOff } from '../../domain/switches.js';
import { resolveGuards } from '../resolve/guards.js';
import type { GuardArgs } from '../tick-assign.js';

// The fleet halt phase's named guards (docs/behaviour.md §3.4b), each one question to domain/.

export const fleetHaltGuards = {
  /** FLEET_HALT_REF unset (the default, the script's behaviour): no request, no annotation, no line (I35). */
  isFleetHaltOff: ({ context }: GuardArgs) => isFleetHaltOff(context.config),
  /** The tag answers a digest this edge has not verified (or whose kept document no longer parses): read it. */
  needsHaltDocument: ({ context }: GuardArgs) => needsHaltDocument(context.halt.reading),
  /** Its document read and parsed: check the signature of its manifest digest. */
  hasHaltSignatureToCheck: ({ context }: GuardArgs) => hasHaltSignatureToCheck(context.halt.reading),
  /** Verified this tick: keep it beside its digest, so that the next tick costs only the HEAD (I39). */
  hasHaltToRecord: ({ context }: GuardArgs) => hasHaltToRecord(context.halt.reading),
  /** 404 where a halt was recorded: the halt is lifted; remove its record. */
  isHaltLifted: ({ context }: GuardArgs) => isHaltLifted(context.halt.reading),
  // Nothing resolved: the halt is said, and there is nothing to admit (§3.3).
  isNothingResolved: resolveGuards.isNothingResolved,
};
