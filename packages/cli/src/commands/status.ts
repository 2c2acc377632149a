import { shortDigest, type TickConfig } from '@image-refresh/core';
import type { Connect } from '../connection.js';
import { liveOf } from '../render/digests.js';
import { pendingLine } from '../render/pending-digests.js';
import { windowStatusLines } from '../render/window-status.js';
import type { CommandResult, Output } from './command.js';
import { haltLines } from './status-halt.js';
import { promotionLines } from './status-promotion.js';
import {
  type CounterFacts,
  type ImageFacts,
  type StatusOptions,
  type StatusReport,
  statusReport,
  type WorkloadFacts,
} from './status-report.js';
import { signatureText } from './status-signatures.js';

export const STATUS_HELP = `Usage: image-refresh status [--no-registry] [--json]

What the guards think right now, for a human: is the gate settled, the
skip streak and attempt counter against their ceilings, the flap marker, any
quarantined digest (ON_ROLLOUT_FAILURE=revert), per image the recorded,
registry and live digests, and the fleet halt (FLEET_HALT_REF) as a tick would
judge it now. Reads only.

  --no-registry  do not ask the registry (one manifest HEAD per unpinned image otherwise)
  --json         the same facts as one JSON object on stdout (every field always present, null where unknown)
`;

/** One column for every workload and counter name: `resource-monitor` is 16 wide and must not run into its object. */
const NAME_COLUMN = 17;
const named = (name: string): string => name.padEnd(NAME_COLUMN);
/** The images table's first column. */
const imageColumn = (name: string): string => name.padEnd(18);

const workloadText = (w: WorkloadFacts): string =>
  w.settled === null
    ? `${w.workload}: cannot read it (${w.error?.message ?? 'unknown'})`
    : `${w.workload}: ${w.settled === 'settled' ? 'settled' : w.settled === 'waiting' ? 'NOT settled' : 'FAILED'}: ${w.message}`;

const counter = (c: CounterFacts): string =>
  c.annotation === null
    ? `0/${c.max} (not set)`
    : `${c.value}/${c.max}${/^[0-9]+$/.test(c.annotation) ? '' : ` (holds ${JSON.stringify(c.annotation)}, counts as 0)`}`;

const registryText = (i: ImageFacts): string => {
  const r = i.registry;
  switch (r.state) {
    case 'pinned':
      return 'pinned (not resolved)';
    case 'notAsked':
      return 'not asked';
    case 'unknown':
      return `unknown (${r.error?.tag})`;
    case 'malformed':
      return 'malformed answer';
    case 'resolved':
      return `${shortDigest(r.digest ?? '')}${r.drift === true ? ' DRIFT' : ''}`;
  }
};

/** The report as lines for a human: the same facts `status --json` prints. */
export const statusLines = (config: TickConfig, report: StatusReport): string[] => {
  const { gate } = config.topology;
  const where =
    report.release === null
      ? `${report.workloads[gate.id]?.workload ?? gate.id} in ${report.namespace}`
      : `release ${report.release} in ${report.namespace}`;
  const lines = [`image-refresh status: ${where} (cluster: ${report.cluster})`];
  const gateFacts = report.workloads[gate.id];
  if (gateFacts !== undefined) lines.push(`${named(gate.id)}${workloadText(gateFacts)}`);
  if (report.images === null || report.skipStreak === null || report.refreshAttempt === null) return lines;
  for (const [id, facts] of Object.entries(report.workloads)) {
    if (id !== gate.id) lines.push(`${named(id)}${workloadText(facts)}`);
  }
  lines.push(`${named('skip streak')}${counter(report.skipStreak)}`);
  lines.push(`${named('attempts')}${counter(report.refreshAttempt)}`);
  if (report.resolveFailureStreak) lines.push(`${named('registry silent')}${counter(report.resolveFailureStreak)}`);
  lines.push(
    `${named('flap marker')}${report.flapDetected === null ? 'none' : `FLAP DETECTED after ${report.flapDetected} failed attempt(s) — run 'image-refresh rearm' once fixed`}`,
  );
  // A quarantine is said only where one is set (ON_ROLLOUT_FAILURE=revert wrote it; docs/behaviour.md §3.6).
  for (const image of report.images) {
    const bad = report.quarantined?.[image.image];
    if (bad !== null && bad !== undefined) {
      lines.push(
        `${named('quarantined')}${image.repo}@${bad} — its rollout failed and was rolled back; not re-applied while the registry answers it ('image-refresh rearm' lifts it)`,
      );
    }
  }
  lines.push(`${imageColumn('image')}${'recorded'.padEnd(24)}${'registry'.padEnd(30)}live`);
  for (const image of report.images) {
    const live = Object.entries(image.live)
      .map(([container, runs]) => `${container}=${runs === null ? '?' : liveOf(runs)}`)
      .join(' ');
    lines.push(
      `${imageColumn(image.image)}${(image.recorded === null ? '-' : shortDigest(image.recorded)).padEnd(24)}${registryText(image).padEnd(30)}${live}`,
    );
  }
  if (report.signaturesChecked) {
    lines.push(`signatures (VERIFY_SIGNATURES=${config.signatures?.mode}, of the registry's digest):`);
    for (const image of report.images) lines.push(`${imageColumn(image.image)}${signatureText(image.signature)}`);
  }
  // Each digest soaking on this edge, and when it becomes due (said only when there is one; §3.4a step 2).
  for (const pending of report.pending ?? []) lines.push(`${named('pending')}${pendingLine(config, pending)}`);
  // docs/behaviour.md §3.4d: the maintenance window now, and what each rollout is expected to take here.
  if (report.window !== undefined && report.window !== null) {
    for (const [i, line] of windowStatusLines(report.window).entries())
      lines.push(`${named(i === 0 ? 'window' : '')}${line}`);
  }
  // docs/behaviour.md §3.4b: the fleet halt as a tick would judge it now (said only with FLEET_HALT_REF set).
  if (report.halt !== undefined) {
    for (const [i, line] of haltLines(report.halt).entries())
      lines.push(`${named(i === 0 ? 'fleet halt' : '')}${line}`);
  }
  // docs/fleet-promotion.md: the promotion as a tick of this ring would judge it now (FLEET_PROMOTION_REF on ring ≥ 1).
  if (report.promotion !== undefined) {
    for (const [i, line] of promotionLines(report.promotion).entries())
      lines.push(`${named(i === 0 ? 'promotion' : '')}${line}`);
  }
  return lines;
};

export const status = async (
  options: StatusOptions,
  config: TickConfig,
  connect: Connect,
  out: Output,
): Promise<CommandResult> => {
  for (const line of statusLines(config, await statusReport(options, config, connect(config)))) out.stdout(line);
  // Status is a report for a human and exits 0 once it has said what it sees.
  return { exitCode: 0 };
};
