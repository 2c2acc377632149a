import { haltTargetOf, haltWriteOf } from '../../domain/fleet-halt-reading.js';
import { write } from '../step-params.js';
import type { InputArgs } from '../tick-context.js';

// What the fleet halt phase's steps hand their actors.

/** The halt artifact the tag answered: its repository and manifest digest (a step taken only while Fetching or Read). */
const target = ({ context }: InputArgs) => haltTargetOf(context.config, context.halt.reading);

/** The document the digest names, read from the registry. */
export const haltDocumentTarget = (args: InputArgs) => ({ target: target(args) });

/** The halt's manifest digest, checked with VERIFY_SIGNATURES's trust. */
export const haltSignatureTargets = (args: InputArgs) => ({ targets: [target(args)] });

/** A halt verified this tick recorded beside its digest, or a lifted one's record removed: one write. */
export const haltRecordWrite = ({ context }: InputArgs) =>
  write(
    'recordFleetHalt',
    haltWriteOf(context.config.topology.keys, context.halt.reading, context.resolve.bookkeeping),
  );

export const haltLiftWrite = ({ context }: InputArgs) =>
  write('liftFleetHalt', haltWriteOf(context.config.topology.keys, context.halt.reading, context.resolve.bookkeeping));
