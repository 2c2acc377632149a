import type { TickConfig } from '../config/tick-config.js';
import { ACTED_ON_NOTHING, type ActContext } from './act/context.js';
import { ADMITTED_NOTHING, type AdmitContext } from './admit/context.js';
import { type FleetHaltContext, NO_FLEET_HALT } from './fleet-halt/context.js';
import { type FleetPromotionContext, NO_FLEET_PROMOTION } from './fleet-promotion/context.js';
import { OBSERVED_NOTHING, type ObserveContext } from './observe/context.js';
import { NOTHING_CHECKED, type OwnershipContext } from './ownership/context.js';
import { RESOLVED_NOTHING, type ResolveContext } from './resolve/context.js';
import type { TickEvent } from './tick-event.js';
import type { AnnotationWrite } from './tick-outcome.js';
import { NO_WAY_BACK, type WayBackContext } from './way-back/context.js';

// The tick's context, one part per phase (each defined beside its phase's
// states). Every part starts as the value that does nothing — no plan to act
// on, no rollback to make — so a reader needs no check for "not yet". An
// action copies the part it changes, never the whole context: xstate copies
// the top level on every assign, so it is kept to the phases.

export interface TickContext {
  readonly config: TickConfig;
  readonly observe: ObserveContext;
  readonly resolve: ResolveContext;
  readonly halt: FleetHaltContext;
  readonly promotion: FleetPromotionContext;
  readonly admit: AdmitContext;
  readonly ownership: OwnershipContext;
  readonly act: ActContext;
  readonly wayBack: WayBackContext;
  /** Everything the operator is told, in order. */
  readonly events: readonly TickEvent[];
  /** Every write the port accepted, in order, exactly as it was handed over. */
  readonly writes: readonly AnnotationWrite[];
}

export const initialContext = (config: TickConfig): TickContext => ({
  config,
  observe: OBSERVED_NOTHING,
  resolve: RESOLVED_NOTHING,
  halt: NO_FLEET_HALT,
  promotion: NO_FLEET_PROMOTION,
  admit: ADMITTED_NOTHING,
  ownership: NOTHING_CHECKED,
  act: ACTED_ON_NOTHING,
  wayBack: NO_WAY_BACK,
  events: [],
  writes: [],
});

/** The events so far and then these: what an action that speaks returns as `events`. */
export const said = (context: TickContext, ...events: readonly TickEvent[]): readonly TickEvent[] => [
  ...context.events,
  ...events,
];

/** What a step's actor input (each phase's inputs.ts) reads: the context. */
export interface InputArgs {
  readonly context: TickContext;
}
