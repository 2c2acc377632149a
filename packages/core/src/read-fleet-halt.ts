import * as E from 'fp-ts/lib/Either.js';
import type { TickConfig } from './config/tick-config.js';
import type { Annotations } from './domain/bookkeeping.js';
import type { RepositoryHalt } from './domain/fleet-halt.js';
import {
  type HaltReading,
  type HaltReport,
  haltDocumentRead,
  haltReportOf,
  haltSignatureJudged,
  judgeHaltAnswer,
} from './domain/fleet-halt-reading.js';
import { transport } from './domain/port-error.js';
import type { FleetHaltPort } from './ports/fleet-halt-port.js';
import type { RegistryPort } from './ports/registry-port.js';
import type { SignaturePort } from './ports/signature-port.js';

// The fleet halt as a tick would judge it now (docs/behaviour.md §3.4b), for
// those who only look — `image-refresh status`: the same steps (the tag's
// HEAD, the kept document, else the document read and its signature
// checked) through the same ports, and nothing written.

/** What `readFleetHalt` says: the tick's report of the halt, and what it halts per repository. */
export interface FleetHaltView extends HaltReport {
  /** What this edge kept of the halt it last verified (`<prefix>/fleet-halt-digest`). */
  readonly recordedDigest: string | null;
  /** Repository → its halted digests (or `*`) and its pin; null where no halt was verified. */
  readonly repositories: Readonly<Record<string, RepositoryHalt>> | null;
}

/**
 * Judge the fleet halt under FLEET_HALT_REF now, as a tick would, writing
 * nothing; undefined when FLEET_HALT_REF is unset. Every registry request is
 * the ports' own (each bounded by REGISTRY_TIMEOUT).
 *
 * @param annotations - the gate's, as read: the halt this edge kept.
 * @param nowMs - the wall clock: the halt's expiry is judged at it.
 */
export const readFleetHalt = async (
  config: TickConfig,
  ports: { readonly registry: RegistryPort; readonly fleetHalt?: FleetHaltPort; readonly signatures?: SignaturePort },
  annotations: Annotations,
  nowMs: number,
): Promise<FleetHaltView | undefined> => {
  const halt = config.fleetHalt;
  if (halt === undefined) return undefined;
  const [answer] = await ports.registry.resolveDigests([{ host: halt.host, repo: halt.repo, tag: halt.tag }])();
  let reading: HaltReading = judgeHaltAnswer(config.topology.keys, answer, annotations, nowMs);
  if (reading._tag === 'Fetching') {
    const target = { host: halt.host, repo: halt.repo, digest: reading.digest };
    const document =
      ports.fleetHalt === undefined
        ? E.left(transport('no fleet halt port to read it with'))
        : await ports.fleetHalt.readDocument(target)();
    reading = haltDocumentRead(reading, document, nowMs);
  }
  if (reading._tag === 'Read') {
    const target = { host: halt.host, repo: halt.repo, digest: reading.digest };
    const verdict =
      ports.signatures === undefined
        ? E.left(transport('no signature port to check it with'))
        : await ports.signatures.verify(target)();
    reading = haltSignatureJudged(reading, verdict);
  }
  const report = haltReportOf(config, reading, nowMs);
  // Stryker disable next-line ConditionalExpression: FLEET_HALT_REF is set here, so a report is always made
  if (report === undefined) return undefined;
  return {
    ...report,
    recordedDigest: annotations[config.topology.keys.fleetHaltDigest] ?? null,
    repositories: reading._tag === 'Verified' ? reading.document.repositories : null,
  };
};
