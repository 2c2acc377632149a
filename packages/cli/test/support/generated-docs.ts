import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CONFIG_VARIABLES, runTick, VARIABLE_SECTIONS, type VariableSection } from '@image-refresh/core';
import { SCENARIOS, SimWorld, simConfig, simDigest, simPorts } from '@image-refresh/core/sim';
import { EVENT_REASONS } from '../../../core/src/machine/kubernetes-events.js';
import { IMAGES } from '../../../core/test/support/chart.js';
import { emptyObservations, observePorts } from '../../src/metrics/observations.js';
import { tickMetrics } from '../../src/metrics/tick-metrics.js';

// The lists the documentation holds, generated from the tables the code runs
// on — the config's variables, the simulator's scenarios, the tick's Event
// reasons, the gauges a tick pushes — so a row added there (a variable, an
// Event, a metric) shows up in every list, and a copy that fell behind fails
// generated-docs.test.ts. `npx -y pnpm@10.34.9 docs:update` rewrites them.

export const ROOT = new URL('../../../../', import.meta.url).pathname;

/** One generated block: `<!-- name:begin … -->`, its content, `<!-- name:end -->`, in `file`. */
export interface GeneratedBlock {
  readonly file: string;
  readonly name: string;
  readonly render: () => string | Promise<string>;
}

/** A Markdown table as biome formats it: every column padded to its widest cell, at least three wide. */
export const markdownTable = (header: readonly string[], rows: readonly (readonly string[])[]): string => {
  const cells = [header, ...rows].map((row) => row.map((cell) => cell.replaceAll('|', '\\|')));
  const widths = header.map((_, i) => Math.max(3, ...cells.map((row) => (row[i] ?? '').length)));
  const line = (row: readonly string[]) => `| ${row.map((cell, i) => cell.padEnd(widths[i] ?? 3)).join(' | ')} |`;
  const [head, ...body] = cells;
  return [line(head ?? []), `| ${widths.map((w) => '-'.repeat(w)).join(' | ')} |`, ...body.map(line)].join('\n');
};

const code = (text: string): string => `\`${text}\``;

const sections = Object.keys(VARIABLE_SECTIONS) as VariableSection[];

/** docs/configuration.md: every variable, by section, as a table. */
const variableTables = (): string =>
  sections
    .map((section) =>
      [
        `### ${VARIABLE_SECTIONS[section]}`,
        '',
        markdownTable(
          ['variable', 'default', 'meaning'],
          CONFIG_VARIABLES.filter((v) => v.section === section).map((v) => [code(v.name), v.default, v.meaning]),
        ),
      ].join('\n'),
    )
    .join('\n\n');

/** SWAP.md: the variables beyond the chart's, one line each. */
const variablesBeyondTheChart = (): string =>
  CONFIG_VARIABLES.filter((v) => v.section !== 'chart')
    .map((v) => `- ${code(v.name)} (${v.default}): ${v.meaning}`)
    .join('\n');

/** README.md: the simulator's scenarios, as `simulate --list` prints them. */
const scenarioList = (): string => SCENARIOS.map((s) => `- ${code(s.name)} — ${s.summary}`).join('\n');

/** docs/events.md: every Event reason, its type and what it is recorded for. */
const eventReasons = (): string =>
  markdownTable(
    ['reason', 'type', "recorded for (the line's `code` under `tick --json`)"],
    EVENT_REASONS.map((r) => [
      code(r.reason),
      r.type,
      r.codes.length > 0 ? r.codes.map(code).join(', ') : 'each workload a tick re-imaged: old → new per container',
    ]),
  );

/** docs/metrics.md: every gauge a tick pushes, its labels and its HELP text, from a real (simulated) re-image tick. */
const metricsTable = async (): Promise<string> => {
  const config = simConfig({});
  const world = new SimWorld(config);
  for (const image of IMAGES) {
    world.setAnnotation(image.recordKey, simDigest(`${image.repo}#1`));
    // When each was recorded, as a tick that pushes writes it beside the digest (docs/metrics.md).
    world.setAnnotation(image.recordedAtKey, `${simDigest(`${image.repo}#1`)} 2026-01-01T00:00:00Z`);
  }
  world.publish('tracebloc/jobs-manager', simDigest('tracebloc/jobs-manager#2'));
  const observed = emptyObservations();
  const outcome = await runTick(config, observePorts(simPorts(world), observed, config.topology));
  const requests = { kubernetes: 1, events: 0, registry: 0, token: 0 };
  const gauges = tickMetrics({ outcome, observed, requests, startedAtMs: 0, endedAtMs: 1 }, config);
  return markdownTable(
    ['metric', 'labels', 'meaning'],
    gauges.map((g) => [
      code(g.name),
      [...new Set(g.samples.flatMap((s) => Object.keys(s.labels ?? {})))].map(code).join(', '),
      // HELP is plain text; in Markdown a `<image>` would be taken for an HTML tag.
      g.help.replaceAll('<', '&lt;'),
    ]),
  );
};

export const GENERATED_BLOCKS: readonly GeneratedBlock[] = [
  { file: 'README.md', name: 'scenarios', render: scenarioList },
  { file: 'docs/configuration.md', name: 'variables', render: variableTables },
  { file: 'packages/cli/deploy/SWAP.md', name: 'variables', render: variablesBeyondTheChart },
  { file: 'docs/events.md', name: 'event-reasons', render: eventReasons },
  { file: 'docs/metrics.md', name: 'metrics', render: metricsTable },
];

/** Where a block's content starts and ends in its file's text. */
const bounds = (text: string, block: GeneratedBlock): { start: number; end: number } => {
  const begin = text.indexOf(`<!-- ${block.name}:begin`);
  const endMarker = `<!-- ${block.name}:end -->`;
  const end = text.indexOf(endMarker);
  if (begin < 0 || end < begin) throw new Error(`${block.file} has no <!-- ${block.name}:begin … ${endMarker} block`);
  return { start: text.indexOf('\n', begin) + 1, end };
};

/** The block's content as the file holds it now. */
export const currentContent = (block: GeneratedBlock): string => {
  const text = readFileSync(join(ROOT, block.file), 'utf8');
  const { start, end } = bounds(text, block);
  return text.slice(start, end);
};

/** Rewrite the block's content in its file. */
export const writeContent = (block: GeneratedBlock, content: string): void => {
  const path = join(ROOT, block.file);
  const text = readFileSync(path, 'utf8');
  const { start, end } = bounds(text, block);
  writeFileSync(path, `${text.slice(0, start)}${content}${text.slice(end)}`);
};
