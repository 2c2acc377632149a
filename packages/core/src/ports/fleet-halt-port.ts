import type { TaskEither } from 'fp-ts/lib/TaskEither.js';
import type { FleetHaltDocument, FleetHaltTarget } from '../domain/fleet-halt.js';
import type { RegistryError } from '../domain/port-error.js';

// Where a tick reads the fleet halt document (FLEET_HALT_REF, docs/behaviour.md
// §3.4b) once the registry has answered a digest for the halt's tag that this
// edge has not verified yet. The tag's HEAD is part of the tick's one resolve
// batch (the same token where the realm is the same); this port GETs the
// manifest that digest names and its one document layer, each capped and
// checked against its digest. Its signature is checked by the SignaturePort,
// with the same trust as VERIFY_SIGNATURES.

export type { FleetHaltDocument, FleetHaltTarget } from '../domain/fleet-halt.js';

/** Reads the fleet halt document a halt tag's digest names (FLEET_HALT_REF); built with the k8s-adapter's createFleetHaltReader. */
export interface FleetHaltPort {
  /** A `Left` is a registry failure (5xx, timeout, 401/403, 429): the halt could not be read. */
  readonly readDocument: (target: FleetHaltTarget) => TaskEither<RegistryError, FleetHaltDocument>;
}
