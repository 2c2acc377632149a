import {
  FLEET_HALT_MEDIA_TYPE,
  type FleetHaltDraft,
  isWellFormedDigest,
  MAX_HALT_MS,
  parseDurationMs,
  parseFleetHalt,
  renderFleetHalt,
} from '@image-refresh/core';
import * as E from 'fp-ts/lib/Either.js';
import type { CommandResult, Output } from './command.js';
import { writeAtomically } from './write-atomically.js';

// `image-refresh halt render`: the fleet halt document (docs/behaviour.md
// §3.4b) written from flags, checked by the very parser every edge reads it
// with, so an operator under pressure cannot publish a halt the fleet would
// refuse. It writes a file and says how to publish, sign and lift it; it
// talks to no registry and no cluster.

export const HALT_HELP = `Usage: image-refresh halt render --reason TEXT --expires DURATION|TIME
         [--digest REPO@sha256:…] [--digest REPO@*] [--pin REPO@sha256:…] [--out FILE]

Writes a fleet halt document (default ./fleet-halt.json): every edge whose
FLEET_HALT_REF names the tag it is published under stops moving containers of
REPO to the halted digests (REPO@* halts every re-image of REPO), and sends a
container that runs one back to the --pin digest of its repository, if given.

  --reason   why, in a line (shown by every edge: FLEET HALT in force: …)
  --expires  a duration from now (24h, 90m) or an RFC 3339 time; at most 30 days
  --digest   REPO@sha256:<hex> or REPO@*, once per halted digest (REPO without
             a registry host, e.g. tracebloc/jobs-manager)
  --pin      REPO@sha256:<hex>: the digest a halted container of REPO goes back to
  --out      the file to write (replaced atomically)

Then publish it and sign its digest with the key (or identity) the edges trust:
  oras push docker.io/tracebloc/fleet-control:stg-halt fleet-halt.json:${FLEET_HALT_MEDIA_TYPE} --artifact-type ${FLEET_HALT_MEDIA_TYPE}
  cosign sign --key cosign.key docker.io/tracebloc/fleet-control@<digest oras printed>
Lift it: delete the tag, or publish a halt with no --digest (it halts nothing).
`;

export interface HaltRenderOptions {
  readonly reason: string | undefined;
  readonly expires: string | undefined;
  readonly digests: readonly string[];
  readonly pins: readonly string[];
  readonly out: string;
  /** The clock; the CLI's own. */
  readonly nowMs: number;
}

const RFC_3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

/** `repo@ref` split at the last `@`, or undefined. */
const splitReference = (text: string): { repo: string; ref: string } | undefined => {
  const at = text.lastIndexOf('@');
  return at <= 0 ? undefined : { repo: text.slice(0, at), ref: text.slice(at + 1) };
};

/** The expiry as an RFC 3339 time in whole seconds, or why not. */
const expiryOf = (text: string, nowMs: number): E.Either<string, string> => {
  const duration = parseDurationMs(text);
  const atMs = duration !== undefined ? nowMs + duration : RFC_3339.test(text) ? Date.parse(text) : Number.NaN;
  if (!Number.isFinite(atMs)) return E.left(`--expires ${text}: neither a duration (24h) nor an RFC 3339 time`);
  if (atMs <= nowMs) return E.left(`--expires ${text}: that is not in the future`);
  if (atMs - nowMs > MAX_HALT_MS) return E.left(`--expires ${text}: a halt holds at most 30 days`);
  return E.right(new Date(Math.floor(atMs / 1_000) * 1_000).toISOString().replace('.000Z', 'Z'));
};

/** The draft the flags describe, or every reason they do not describe one. */
export const haltDraftOf = (options: HaltRenderOptions): E.Either<readonly string[], FleetHaltDraft> => {
  const problems: string[] = [];
  if (options.reason === undefined || options.reason.trim() === '') problems.push('--reason is required');
  const expires =
    options.expires === undefined ? E.left('--expires is required') : expiryOf(options.expires, options.nowMs);
  if (E.isLeft(expires)) problems.push(expires.left);
  const repositories: Record<string, { digests: '*' | string[]; pin?: string }> = {};
  for (const text of options.digests) {
    const reference = splitReference(text);
    if (reference === undefined || (reference.ref !== '*' && !isWellFormedDigest(reference.ref))) {
      problems.push(`--digest ${text}: not REPO@sha256:<64 hex> or REPO@*`);
      continue;
    }
    const entry = repositories[reference.repo] ?? { digests: [] };
    entry.digests =
      reference.ref === '*' || entry.digests === '*' ? '*' : [...new Set([...entry.digests, reference.ref])];
    repositories[reference.repo] = entry;
  }
  for (const text of options.pins) {
    const reference = splitReference(text);
    if (reference === undefined || !isWellFormedDigest(reference.ref)) {
      problems.push(`--pin ${text}: not REPO@sha256:<64 hex>`);
      continue;
    }
    const entry = repositories[reference.repo];
    if (entry === undefined) problems.push(`--pin ${text}: no --digest halts ${reference.repo}`);
    else if (entry.pin !== undefined) problems.push(`--pin ${text}: ${reference.repo} has a pin already`);
    else entry.pin = reference.ref;
  }
  if (problems.length > 0 || E.isLeft(expires)) return E.left(problems);
  return E.right({ reason: options.reason ?? '', expires: expires.right, repositories });
};

export const haltRender = (options: HaltRenderOptions, out: Output): CommandResult => {
  const draft = haltDraftOf(options);
  if (E.isLeft(draft)) {
    for (const problem of draft.left) out.stderr(`[image-refresh] ERROR: halt render: ${problem}`);
    return { exitCode: 2 };
  }
  const text = renderFleetHalt(draft.right);
  // The edges' own parser has the last word: what they would refuse is not written.
  const checked = parseFleetHalt(text, options.nowMs);
  if (E.isLeft(checked)) {
    out.stderr(`[image-refresh] ERROR: halt render: the edges would refuse this halt: ${checked.left}`);
    return { exitCode: 2 };
  }
  const wrote = writeAtomically(options.out, text);
  if (E.isLeft(wrote)) {
    out.stderr(`[image-refresh] ERROR: halt render: ${wrote.left}`);
    return { exitCode: 1 };
  }
  const repos = Object.keys(checked.right.repositories);
  out.stdout(
    repos.length === 0
      ? `wrote ${options.out}: halts nothing (published under the halt's tag, it lifts a halt) (${checked.right.reason})`
      : `wrote ${options.out}: halts ${repos.join(', ')} until ${checked.right.expires} (${checked.right.reason})`,
  );
  return { exitCode: 0 };
};
