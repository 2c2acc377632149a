// Past the registry's answers (docs/behaviour.md §3.4b, docs/fleet-promotion.md):
// the fleet halt, then the fleet promotion, each entered only when switched
// on, then admission. A phase switched off is routed past, not entered, so it
// costs a tick no step (README.md, Benchmarks).

/** After the halt: the promotion when it is on, else admission. */
export const toFleetPromotion = [
  { guard: 'isFleetPromotionOn', target: '#tick.judgingFleetPromotion' },
  { target: '#tick.admittingDigests' },
] as const;

/** After the recorded digests (and the live pass): the halt when it is on, else past it. */
export const toFleetHalt = [{ guard: 'isFleetHaltOn', target: '#tick.judgingFleetHalt' }, ...toFleetPromotion] as const;
