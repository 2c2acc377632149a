import { renderFleetPromotion } from '../domain/fleet-promotion.js';
import { rfc3339 } from '../domain/pending-digest.js';
import { SIM_HALT_REPO } from './sim-fleet-halt.js';
import { SIM_SIGNING_KEY } from './sim-world.js';

// The fleet promotion in the simulator (docs/fleet-promotion.md): where it is
// published (beside the halt, under its own tag), the environment a ring-1
// edge watching it runs under, and documents to publish — as
// `image-refresh promote --out` would write them.

/** The tag the simulated fleet's FLEET_PROMOTION_REF watches, in the halt's repository. */
export const SIM_PROMOTION_TAG = 'stg-promotion';

/** A ring-1 edge under FLEET_PROMOTION_REF, with the trust it is verified with (the simulated signing key). */
export const SIM_PROMOTION_ENVIRONMENT = {
  FLEET_PROMOTION_REF: `docker.io/${SIM_HALT_REPO}:${SIM_PROMOTION_TAG}`,
  SIGNATURE_PUBLIC_KEYS: SIM_SIGNING_KEY,
  ROLLOUT_RING: '1',
} as const;

/** A promotion document of the entries given, each expiring `expiresAtMs` (the simulated clock's ms since the epoch). */
export const simPromotionDocument = (
  entries: readonly { readonly image: string; readonly digest: string; readonly ring: number }[],
  expiresAtMs: number,
): string =>
  renderFleetPromotion(
    entries.map((e) => ({ ...e, expires: rfc3339(expiresAtMs), evidence: 'simulated canaries ran it' })),
  );
