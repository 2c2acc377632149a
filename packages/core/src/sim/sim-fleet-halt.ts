import { renderFleetHalt } from '../domain/fleet-halt.js';
import { rfc3339 } from '../domain/pending-digest.js';
import { SIM_SIGNING_KEY } from './sim-world.js';

// The fleet halt in the simulator (docs/behaviour.md §3.4b): where it is
// published, the environment an edge watching it runs under, and documents
// to publish — as `image-refresh halt render` would write them.

/** The halt's repository on the simulated registry. */
export const SIM_HALT_REPO = 'tracebloc/fleet-control';
/** The tag the simulated fleet's FLEET_HALT_REF watches, in SIM_HALT_REPO. */
export const SIM_HALT_TAG = 'stg-halt';

/** FLEET_HALT_REF and the trust it is verified with (the simulated signing key). */
export const SIM_HALT_ENVIRONMENT = {
  FLEET_HALT_REF: `docker.io/${SIM_HALT_REPO}:${SIM_HALT_TAG}`,
  SIGNATURE_PUBLIC_KEYS: SIM_SIGNING_KEY,
} as const;

/**
 * A halt document of the digests given, per repository (`*` halts all of
 * it), each with an optional pin; expiring `expiresAtMs` (the simulated wall
 * clock's ms since the epoch).
 */
export const simHaltDocument = (
  reason: string,
  expiresAtMs: number,
  repositories: Readonly<Record<string, { readonly digests: '*' | readonly string[]; readonly pin?: string }>>,
): string => renderFleetHalt({ reason, expires: rfc3339(expiresAtMs), repositories });
