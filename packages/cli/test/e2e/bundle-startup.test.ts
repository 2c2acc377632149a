import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUILD_TIMEOUT_MS, ensureBundle } from './support/bundle.js';
import { runBundle } from './support/run-bundle.js';

// Start-up is most of what `--version` and a steady tick cost (README,
// benchmarks). esbuild hoists every `import … from 'node:http'` of the bundled
// ES modules to the top of the file, so the bundle loaded Node's network,
// process and crypto modules before looking at its arguments; the build's
// lazy-builtins plugin (build/bundle.mjs) defers each to its first use. A
// preload reports which public builtins the process loaded. Mutation that
// reddens it: removing the plugin from build/bundle.mjs.

const PRELOAD = new URL('./support/report-builtins.mjs', import.meta.url).pathname;
// Not `net`: Node itself loads it for a process.stdout that is a pipe.
const HEAVY = ['http', 'https', 'tls', 'child_process', 'crypto', 'readline', 'vm'];

let home = '';
beforeAll(async () => {
  home = mkdtempSync(join(tmpdir(), 'image-refresh-startup-home-'));
  await ensureBundle();
}, BUILD_TIMEOUT_MS);
afterAll(() => {
  rmSync(home, { recursive: true, force: true });
});

const builtinsLoadedBy = async (args: string[]): Promise<string[]> => {
  const run = await runBundle(args, { HOME: home, NODE_OPTIONS: `--import=${PRELOAD}` });
  const line = run.stderr.find((l) => l.startsWith('builtins-loaded '));
  if (line === undefined) throw new Error(`no builtins report:\n${run.stderr.join('\n')}`);
  return JSON.parse(line.slice('builtins-loaded '.length)) as string[];
};

describe('the bundle loads what a command needs, when it needs it', () => {
  it('--version loads none of http, https, tls, child_process, crypto, readline, vm', async () => {
    const loaded = await builtinsLoadedBy(['--version']);
    expect(loaded.filter((name) => HEAVY.includes(name))).toEqual([]);
  });

  it('the control: a tick, which talks HTTP, is seen loading http and https', async () => {
    const loaded = await builtinsLoadedBy(['tick']);
    expect(loaded).toEqual(expect.arrayContaining(['http', 'https']));
  });
});
