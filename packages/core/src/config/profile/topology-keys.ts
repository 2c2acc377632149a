// The bookkeeping keys a profile creates on its gate (docs/profiles.md,
// "Bookkeeping"): the script's own names under the profile's annotation
// prefix, so the chart's profile writes exactly the keys the script did
// (docs/behaviour.md §2).

/** The name part of an image's record key: `last-refreshed-<image>-digest`, the longest key an image gets. */
export const recordKeyName = (image: string): string => `last-refreshed-${image}-digest`;

/** How many characters of an annotation name's 63 `last-refreshed-…-digest` takes around the image name. */
export const RECORD_KEY_NAME_ROOM = recordKeyName('').length;

/**
 * MAINTENANCE_WINDOW (docs/behaviour.md §3.4d): the key of one workload's
 * last rollout durations on the gate, `<prefix>/rollout-seconds-<workload id>`.
 */
export const rolloutSecondsKeyOf = (prefix: string, workload: string): string =>
  `${prefix}/${rolloutSecondsKeyName(workload)}`;

/** The name part of a workload's rollout-seconds key: at most 63 characters, as every annotation name. */
export const rolloutSecondsKeyName = (workload: string): string => `rollout-seconds-${workload}`;

/** The keys of one image's bookkeeping. */
export interface ImageKeys {
  /** The digest last recorded for it (docs/behaviour.md §3.8). */
  readonly recordKey: string;
  /** RECONCILE_LIVE: image-refresh itself pinned its containers to this digest (I23). */
  readonly pinKey: string;
  /** ON_ROLLOUT_FAILURE=revert: the digest that failed a rollout here and was rolled back (I30). */
  readonly quarantineKey: string;
  /** MIN_DIGEST_AGE, ROLLOUT_RING: `<digest> <RFC 3339 time first seen>` of a changed digest soaking (I32). */
  readonly pendingKey: string;
  /**
   * PUSHGATEWAY_URL set: when the recorded digest was recorded (RFC 3339),
   * written with it — the canaries' evidence a promotion is judged on (docs/fleet-promotion.md).
   */
  readonly recordedAtKey: string;
}

export const imageKeysOf = (prefix: string, image: string): ImageKeys => ({
  recordKey: `${prefix}/${recordKeyName(image)}`,
  pinKey: `${prefix}/pinned-${image}-digest`,
  quarantineKey: `${prefix}/quarantined-${image}-digest`,
  pendingKey: `${prefix}/pending-${image}-digest`,
  recordedAtKey: `${prefix}/last-refreshed-${image}-at`,
});

/** The tick-wide keys on the gate. A counter absent, empty or not a decimal integer counts as 0. */
export interface TickKeys {
  /** Consecutive ticks skipped because the gate was unsettled (I3). */
  readonly skipStreak: string;
  /** Re-image attempts since the last fully successful one (I9). */
  readonly refreshAttempt: string;
  /** The attempt count when the ceiling locked refresh out (I10). */
  readonly flapDetected: string;
  /** Consecutive ticks in which some image could not be resolved (MAX_RESOLVE_FAILURE_TICKS, I46). */
  readonly resolveFailureStreak: string;
  /** The topology's fingerprint when the ownership check last found every mapped container the followed image's (§3.4c). */
  readonly topologyFingerprint: string;
  /** FLEET_HALT_REF (docs/behaviour.md §3.4b): the manifest digest of the halt this edge last verified. */
  readonly fleetHaltDigest: string;
  /** Beside it, that halt's verified document, so that a halt seen before costs no request but its HEAD (I39). */
  readonly fleetHaltDocument: string;
  /** FLEET_PROMOTION_REF (docs/fleet-promotion.md): the manifest digest of the promotion this edge last verified. */
  readonly fleetPromotionDigest: string;
  /** Beside it, that promotion's verified document: one seen before costs no request but its HEAD. */
  readonly fleetPromotionDocument: string;
}

export const tickKeysOf = (prefix: string): TickKeys => ({
  skipStreak: `${prefix}/refresh-skip-streak`,
  refreshAttempt: `${prefix}/refresh-attempt`,
  flapDetected: `${prefix}/refresh-flap-detected`,
  resolveFailureStreak: `${prefix}/refresh-resolve-failure-streak`,
  topologyFingerprint: `${prefix}/topology-fingerprint`,
  fleetHaltDigest: `${prefix}/fleet-halt-digest`,
  fleetHaltDocument: `${prefix}/fleet-halt-document`,
  fleetPromotionDigest: `${prefix}/fleet-promotion-digest`,
  fleetPromotionDocument: `${prefix}/fleet-promotion-document`,
});

const PER_IMAGE = /^(?:last-refreshed|pinned|quarantined|pending)-(.+)-digest$/;

/**
 * The images whose bookkeeping keys `annotations` holds under `prefix`, in
 * the order found: a profile that renamed an image or its prefix leaves the
 * old keys behind (docs/profiles.md), and a tick says which.
 */
export const imagesWithBookkeeping = (prefix: string, keys: readonly string[]): readonly string[] => {
  const images = new Set<string>();
  for (const key of keys) {
    if (!key.startsWith(`${prefix}/`)) continue;
    const image = PER_IMAGE.exec(key.slice(prefix.length + 1))?.[1];
    if (image !== undefined) images.add(image);
  }
  return [...images];
};
