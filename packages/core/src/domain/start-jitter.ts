// START_JITTER (docs/behaviour.md §3.3): every edge runs the same
// schedule, so without a spread they all spend a shared NAT's registry budget
// in the same minute. The delay comes from the gate's uid —
// unique per install, where every edge shares the names — so one edge waits
// the same every tick and different edges spread out. Pure: no Node API.

/** FNV-1a, 32 bits: small, stable across platforms, and spreads short strings well enough for a delay. */
const fnv1a32 = (text: string): number => {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i += 1) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash >>> 0;
};

/** The delay in [0, jitterMs), whole milliseconds, from the uid alone; 0 when jitter is off. */
export const startJitterDelayMs = (uid: string, jitterMs: number): number =>
  jitterMs <= 0 ? 0 : Math.floor((fnv1a32(uid) / 2 ** 32) * Math.floor(jitterMs));

/** §3.3 — START_JITTER=0s (the default), or this edge's delay is 0: no wait, no port call. */
export const hasNoStartJitter = (uid: string, jitterMs: number): boolean => startJitterDelayMs(uid, jitterMs) === 0;
