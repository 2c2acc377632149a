import { ENV, type Environment } from './environment.js';
import { parseFleetHaltReference } from './fleet-halt-config.js';
import type { ConfigError } from './tick-config.js';

// FLEET_PROMOTION_REF (docs/fleet-promotion.md): where the fleet's signed
// promotion is published. Unset (the default) the rings wait on the clock,
// ROLLOUT_RING × RING_DELAY, and nothing is read; set, an edge of ring ≥ 1
// acts on a changed digest only once the promotion names it for its ring.

/** The highest ring a promotion may name (docs/fleet-promotion.md): rings are small numbers. */
export const MAX_PROMOTION_RING = 100;

/** FLEET_PROMOTION_REF, parsed: the promotion's tag on its registry. */
export interface FleetPromotionConfig {
  /** As the operator wrote it, for lines: `docker.io/acme/fleet-control:stg-promotion`. */
  readonly reference: string;
  /** Its registry host: `docker.io` for Docker Hub (a reference without a host), else `host[:port]`. */
  readonly host: string;
  readonly repo: string;
  readonly tag: string;
}

const read = (env: Environment, name: string): string | undefined => {
  const value = env[name]?.trim();
  return value === '' ? undefined : value;
};

/**
 * Parse FLEET_PROMOTION_REF. The trust the promotion is verified with is
 * VERIFY_SIGNATURES's, as the halt's (parse-config.ts, parseTrustConfig):
 * its absence is named there, with this variable.
 */
export const parseFleetPromotionConfig = (
  env: Environment,
): { readonly config: FleetPromotionConfig | undefined; readonly problems: readonly ConfigError[] } => {
  const reference = read(env, ENV.fleetPromotionRef);
  if (reference === undefined) return { config: undefined, problems: [] };
  const parsed = parseFleetHaltReference(reference, { noun: 'a promotion', exampleTag: 'stg-promotion' });
  if ('problem' in parsed) {
    return {
      config: undefined,
      problems: [{ variable: ENV.fleetPromotionRef, value: reference, problem: parsed.problem }],
    };
  }
  // A ring no promotion can name would wait forever, exit 0, unseen.
  const ring = read(env, ENV.rolloutRing);
  if (ring !== undefined && /^\d+$/.test(ring) && Number(ring) > MAX_PROMOTION_RING) {
    const problem = `must be at most ${MAX_PROMOTION_RING} with FLEET_PROMOTION_REF set: no promotion names a higher ring`;
    return { config: undefined, problems: [{ variable: ENV.rolloutRing, value: ring, problem }] };
  }
  return { config: { reference, ...parsed }, problems: [] };
};
