import {
  ANNOTATION,
  counterValue,
  describePortError,
  describeWorkload,
  IMAGES,
  isWellFormedDigest,
  shortDigest,
  type TickConfig,
  workloadRef,
} from '@image-refresh/core';
import * as E from 'fp-ts/lib/Either.js';
import * as O from 'fp-ts/lib/Option.js';
import type { Connect, WorkloadInspection } from '../connection.js';
import { liveOf } from '../render/digests.js';
import { pendingDigests, pendingLine } from '../render/pending-digests.js';
import type { SignatureTrust } from '../wiring/signature-trust.js';
import type { CommandResult, Output } from './command.js';
import { haltLines, readHaltForStatus } from './status-halt.js';
import { inspectRelease, LIVE, resolveForStatus } from './status-reads.js';
import { checkSignaturesForStatus, signatureText } from './status-signatures.js';

export const STATUS_HELP = `Usage: image-refresh status [--no-registry] [--json]

What the guards think right now, for a human: is jobs-manager settled, the
skip streak and attempt counter against their ceilings, the flap marker, any
quarantined digest (ON_ROLLOUT_FAILURE=revert), per image the recorded,
registry and live digests, and the fleet halt (FLEET_HALT_REF) as a tick would
judge it now. Reads only.

  --no-registry  do not ask the registry (one manifest HEAD per unpinned image otherwise)
  --json         the same facts as one JSON object on stdout (every field always present, null where unknown)
`;

/** One column for every workload and counter name: `resource-monitor` is 16 wide and was run into its object (issue 13). */
const NAME_COLUMN = 17;
const named = (name: string): string => name.padEnd(NAME_COLUMN);
/** The images table's first column. */
const imageColumn = (name: string): string => name.padEnd(18);

const settledText = (i: WorkloadInspection): string =>
  `${i.settledness._tag === 'Settled' ? 'settled' : i.settledness._tag === 'Waiting' ? 'NOT settled' : 'FAILED'}: ${
    i.settledness._tag === 'Settled' ? i.settledness.message : i.settledness.reason
  }`;

const counter = (raw: string | undefined, max: number): string =>
  raw === undefined
    ? `0/${max} (not set)`
    : `${counterValue(O.some(raw))}/${max}${/^[0-9]+$/.test(raw) ? '' : ` (holds ${JSON.stringify(raw)}, counts as 0)`}`;

export const status = async (
  options: {
    noRegistry?: boolean | undefined;
    signatureTrust?: SignatureTrust | undefined;
    /** The wall clock the halt's expiry is judged at; now by default. */
    nowMs?: number | undefined;
  },
  config: TickConfig,
  connect: Connect,
  out: Output,
): Promise<CommandResult> => {
  const connection = connect(config);
  out.stdout(
    `image-refresh status: release ${config.releaseName} in ${config.releaseNamespace} (cluster: ${connection.source})`,
  );
  const inspected = await inspectRelease(connection, config);
  const jm = inspected['jobs-manager'];
  if (E.isLeft(jm)) {
    out.stdout(
      `${named('jobs-manager')}${describeWorkload(workloadRef(config, 'jobs-manager'))}: cannot read it (${describePortError(jm.left)})`,
    );
    // Issue 5: status is a report for a human and exits 0 once it has said
    // what it sees, an unreadable Deployment included; judging the release
    // is the tick's exit code (and its Event), not this command's.
    return { exitCode: 0 };
  }
  const a = jm.right.annotations;
  out.stdout(
    `${named('jobs-manager')}${describeWorkload(workloadRef(config, 'jobs-manager'))}: ${settledText(jm.right)}`,
  );
  for (const id of ['requests-proxy', 'resource-monitor'] as const) {
    const inspection = inspected[id];
    out.stdout(
      `${named(id)}${describeWorkload(workloadRef(config, id))}: ${E.isRight(inspection) ? settledText(inspection.right) : `cannot read it (${describePortError(inspection.left)})`}`,
    );
  }
  out.stdout(`${named('skip streak')}${counter(a[ANNOTATION.skipStreak], config.maxSkipTicks)}`);
  out.stdout(`${named('attempts')}${counter(a[ANNOTATION.refreshAttempt], config.maxRefreshAttempts)}`);
  out.stdout(
    `${named('flap marker')}${a[ANNOTATION.flapDetected] === undefined ? 'none' : `FLAP DETECTED after ${a[ANNOTATION.flapDetected]} failed attempt(s) — run 'image-refresh rearm' once fixed`}`,
  );
  // Issue 16: a quarantine is said only where one is set (ON_ROLLOUT_FAILURE=revert wrote it).
  for (const image of IMAGES.filter((i) => a[i.quarantineKey] !== undefined)) {
    out.stdout(
      `${named('quarantined')}${image.repo}@${a[image.quarantineKey]} — its rollout failed and was rolled back; not re-applied while the registry answers it ('image-refresh rearm' lifts it)`,
    );
  }

  const answerFor = await resolveForStatus(connection, config, options.noRegistry === true);
  out.stdout(`${imageColumn('image')}${'recorded'.padEnd(24)}${'registry'.padEnd(30)}live`);
  for (const image of IMAGES) {
    const recorded = a[image.recordKey];
    let registry = 'not asked';
    if (config.pins[image.pin]) registry = 'pinned (not resolved)';
    else {
      const answer = answerFor(image);
      if (answer !== undefined) {
        registry = E.isLeft(answer)
          ? `unknown (${answer.left._tag})`
          : isWellFormedDigest(answer.right.digest)
            ? `${shortDigest(answer.right.digest)}${recorded !== undefined && recorded !== answer.right.digest ? ' DRIFT' : ''}`
            : 'malformed answer';
      }
    }
    const live = LIVE[image.name]
      .map(({ workload, container }) => {
        const inspection = inspected[workload];
        return `${container}=${E.isRight(inspection) ? liveOf(inspection.right.images[container]) : '?'}`;
      })
      .join(' ');
    out.stdout(
      `${imageColumn(image.name)}${(recorded === undefined ? '-' : shortDigest(recorded)).padEnd(24)}${registry.padEnd(30)}${live}`,
    );
  }
  const signatureOf = await checkSignaturesForStatus(connection, config, options.signatureTrust, IMAGES, answerFor);
  if (signatureOf !== undefined) {
    out.stdout(`signatures (VERIFY_SIGNATURES=${config.signatures?.mode}, of the registry's digest):`);
    for (const image of IMAGES) out.stdout(`${imageColumn(image.name)}${signatureText(signatureOf(image))}`);
  }
  // Issue 17: each digest soaking on this edge, and when it becomes due (said only when there is one).
  for (const pending of pendingDigests(config, a)) out.stdout(`${named('pending')}${pendingLine(config, pending)}`);
  // docs/behaviour.md §3.4b: the fleet halt as a tick would judge it now (said only with FLEET_HALT_REF set).
  const halt = await readHaltForStatus(
    connection,
    config,
    options.signatureTrust,
    a,
    options.noRegistry === true,
    options.nowMs ?? Date.now(),
  );
  if (halt !== undefined)
    for (const [i, line] of haltLines(halt).entries()) out.stdout(`${named(i === 0 ? 'fleet halt' : '')}${line}`);
  return { exitCode: 0 };
};
