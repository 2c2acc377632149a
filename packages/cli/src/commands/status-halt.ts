import { type FleetHaltView, readFleetHalt, shortDigest, type TickConfig } from '@image-refresh/core';
import type { Connection } from '../connection.js';
import type { SignatureTrust } from '../wiring/signature-trust.js';

// `status` and `status --json` on the fleet halt (FLEET_HALT_REF,
// docs/behaviour.md §3.4b): judged now as a tick would — the tag's HEAD, the
// document this edge kept, else the document read and its signature checked
// — and nothing written. Unset, nothing is asked and nothing said.

export type StatusHalt =
  | FleetHaltView
  | { readonly state: 'notAsked'; readonly reference: string; readonly recordedDigest: string | null };

/** The halt now; undefined with FLEET_HALT_REF unset; `notAsked` under --no-registry. */
export const readHaltForStatus = async (
  connection: Connection,
  config: TickConfig,
  trust: SignatureTrust | undefined,
  annotations: Readonly<Record<string, string>>,
  noRegistry: boolean,
  nowMs: number,
): Promise<StatusHalt | undefined> => {
  if (config.fleetHalt === undefined) return undefined;
  if (noRegistry) {
    return {
      state: 'notAsked',
      reference: config.fleetHalt.reference,
      recordedDigest: annotations[config.topology.keys.fleetHaltDigest] ?? null,
    };
  }
  const ports = connection.ports({
    onProgress: () => undefined,
    onRateLimit: () => undefined,
    ...(trust === undefined ? {} : { signatureTrust: trust }),
  });
  return readFleetHalt(config, ports, annotations, nowMs);
};

/** `status`'s lines of the halt: its state, then what it halts per repository. */
export const haltLines = (halt: StatusHalt): string[] => {
  const at = `${halt.reference}`;
  switch (halt.state) {
    case 'notAsked':
      return [
        `${at}: not asked (--no-registry)${halt.recordedDigest === null ? '' : `; last verified here: ${shortDigest(halt.recordedDigest)}`}`,
      ];
    case 'none':
      return [`${at}: none published (404): nothing is halted`];
    case 'lifted':
      return [`${at}: none published (404); the next tick removes the record of ${shortDigest(halt.digest ?? '')}`];
    case 'unverified':
      return [`${at}: UNVERIFIED: ${halt.why}; a tick re-images nothing while this holds`];
    case 'expired':
      return [`${at}@${shortDigest(halt.digest ?? '')}: expired at ${halt.expires}, ignored: ${halt.reason}`];
    case 'inForce': {
      const repos = Object.entries(halt.repositories ?? {});
      return [
        `${at}@${shortDigest(halt.digest ?? '')}: IN FORCE until ${halt.expires}: ${halt.reason}${halt.digest === halt.recordedDigest ? '' : ' (verified now; a tick keeps it)'}`,
        ...(repos.length === 0
          ? ['  it names no repository: nothing is held']
          : repos.map(
              ([repo, r]) =>
                `  ${repo}: ${r.digests === '*' ? 'every digest' : r.digests.map(shortDigest).join(', ')}${r.pin === undefined ? ' (no pin)' : `; pin ${r.pin}`}`,
            )),
      ];
    }
  }
};

/** `status --json`'s `halt`: null with FLEET_HALT_REF unset; pins spelled out, absent ones null. */
export const haltJson = (halt: StatusHalt | undefined) => {
  if (halt === undefined) return null;
  if (halt.state === 'notAsked') {
    return { ...halt, digest: null, reason: null, expires: null, why: null, repositories: null };
  }
  return {
    ...halt,
    repositories:
      halt.repositories === null
        ? null
        : Object.fromEntries(
            Object.entries(halt.repositories).map(([repo, r]) => [repo, { digests: r.digests, pin: r.pin ?? null }]),
          ),
  };
};
