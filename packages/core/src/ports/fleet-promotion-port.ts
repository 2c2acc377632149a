import type { TaskEither } from 'fp-ts/lib/TaskEither.js';
import type { FleetHaltDocument, FleetHaltTarget } from '../domain/fleet-halt.js';
import type { RegistryError } from '../domain/port-error.js';

// Where a tick reads the fleet promotion document (FLEET_PROMOTION_REF,
// docs/fleet-promotion.md) once the registry has answered a digest for the
// promotion's tag that this edge has not verified yet — as the fleet halt is
// read (ports/fleet-halt-port.ts): the manifest that digest names and its
// one document layer of the promotion's media type, each capped and checked
// against its digest. Its signature is checked by the SignaturePort.

/** Reads the promotion document a tag's digest names; built with the k8s-adapter's createFleetPromotionReader. */
export interface FleetPromotionPort {
  /** A `Left` is a registry failure (5xx, timeout, 401/403, 429): the promotion could not be read. */
  readonly readDocument: (target: FleetHaltTarget) => TaskEither<RegistryError, FleetHaltDocument>;
}
