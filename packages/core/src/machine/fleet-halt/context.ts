import { HALT_OFF, type HaltReading } from '../../domain/fleet-halt-reading.js';

/** What the fleet halt phase learns (docs/behaviour.md §3.4b): where reading the halt got to, and when. */
export interface FleetHaltContext {
  /** Off until FLEET_HALT_REF's halt is read; then the verdict, step by step. */
  readonly reading: HaltReading;
  /** The tick's clock read, ms since the epoch: what the halt's expiry is judged at; undefined until read. */
  readonly nowMs: number | undefined;
}

export const NO_FLEET_HALT: FleetHaltContext = { reading: HALT_OFF, nowMs: undefined };
