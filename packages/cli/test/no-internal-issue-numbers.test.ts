import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { SCENARIOS } from '@image-refresh/core/sim';
import { describe, expect, it } from 'vitest';
import { GENERATED_BLOCKS, ROOT } from './support/generated-docs.js';
import { aWorld, runCli } from './support/sim-connection.js';

// An internal issue number means nothing to an operator and must not reach
// what one reads: `simulate --list`, the metric HELP text (nor an invariant id
// such as "(I10)"), SWAP.md, docs/behaviour.md's source column. Upstream pull
// request numbers of the chart (#563, #1964) stay where they explain a guard;
// invariant ids stay in the documents that define them, not in CLI output.

const ISSUE = /\bissues? \d+/i;
const INVARIANT_ID = /\(I\d+[a-z]?\)/;

const COMMANDS = ['tick', 'status', 'rearm', 'simulate', 'diagram', 'halt', 'promote'];

const offending = (text: string, pattern: RegExp): string[] => text.split('\n').filter((line) => pattern.test(line));

const markdownUnder = (dir: string): string[] =>
  readdirSync(join(ROOT, dir)).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(join(ROOT, path)).isDirectory()) return markdownUnder(path);
    return name.endsWith('.md') || name.endsWith('.yaml') ? [path] : [];
  });

const USER_READ_FILES = [
  'README.md',
  'packages/core/README.md',
  'packages/k8s-adapter/README.md',
  ...markdownUnder('docs'),
  ...markdownUnder('packages/cli/deploy'),
];

describe('no internal issue number in anything a user reads', () => {
  it('the help of every command, and the top-level help', async () => {
    const texts = [
      (await runCli(['--help'], aWorld())).stdout.join('\n'),
      ...(await Promise.all(COMMANDS.map(async (c) => (await runCli(['help', c], aWorld())).stdout.join('\n')))),
    ];
    for (const text of texts) {
      expect(offending(text, ISSUE)).toEqual([]);
      expect(offending(text, INVARIANT_ID)).toEqual([]);
    }
  });

  it('simulate --list, and every scenario with every tick’s lines (--verbose)', async () => {
    const list = await runCli(['simulate', '--list'], aWorld());
    expect(list.stdout).toHaveLength(SCENARIOS.length);
    expect(offending(list.stdout.join('\n'), ISSUE)).toEqual([]);
    for (const scenario of SCENARIOS) {
      const run = await runCli(['simulate', '--scenario', scenario.name, '--verbose'], aWorld());
      expect(run.exitCode).toBe(0);
      expect(offending(run.stdout.join('\n'), ISSUE), scenario.name).toEqual([]);
      expect(offending(run.stdout.join('\n'), INVARIANT_ID), scenario.name).toEqual([]);
    }
  });

  it('the HELP text of every metric a tick pushes', async () => {
    const metrics = GENERATED_BLOCKS.find((b) => b.name === 'metrics');
    const table = (await metrics?.render()) ?? '';
    expect(table).toContain('image_refresh_flap_locked_out');
    expect(offending(table, ISSUE)).toEqual([]);
    expect(offending(table, INVARIANT_ID)).toEqual([]);
  });

  it.each(USER_READ_FILES)('%s', (file) => {
    expect(offending(readFileSync(join(ROOT, file), 'utf8'), ISSUE)).toEqual([]);
  });
});
