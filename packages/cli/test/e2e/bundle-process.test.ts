import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUILD_TIMEOUT_MS, ensureBundle } from './support/bundle.js';
import { BUNDLE_NODE, runBundle } from './support/run-bundle.js';

// Operators grep the CronJob's log and read its last line as the summary, so
// the bundle must print nothing of Node's own there. The image runs Node 24,
// where a `require("punycode")` deep in client-node's dependencies (node-fetch
// → whatwg-url → tr46) printed a DEP0040 DeprecationWarning at every run,
// after the summary. Node 20 (CI) prints that warning only under
// --pending-deprecation, so these runs ask for it. Mutation that reddens it:
// dropping the whatwg-url alias from build/bundle.mjs.

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

/** Lines Node itself writes: `(node:123) DeprecationWarning: …` and the hint after it. */
const nodeWarnings = (stderr: readonly string[]): string[] =>
  stderr.filter((line) => /^\(node:\d+\)|Warning: |--trace-(deprecation|warnings)/.test(line));

let home = '';
const env = () => ({
  HOME: home,
  NODE_OPTIONS: '--pending-deprecation',
  RELEASE_NAME: 'stg',
  RELEASE_NAMESPACE: 'tracebloc',
  DEPLOYMENT_NAME: 'stg-jobs-manager',
  REQUESTS_PROXY_DEPLOYMENT: 'stg-requests-proxy',
  RESOURCE_MONITOR_DAEMONSET: 'stg-resource-monitor',
  IMAGE_TAG: 'stg',
  // No credentials at all: a configuration error (a case below points it at a cluster that is not there).
  KUBECONFIG: join(tmpdir(), 'image-refresh-no-such-kubeconfig'),
});

/** A kubeconfig for an API server nothing listens for: the tick loads the Kubernetes client and fails to read. */
const unreachableKubeconfig = (): string => {
  const path = join(home, 'unreachable-kubeconfig');
  writeFileSync(
    path,
    [
      'apiVersion: v1',
      'kind: Config',
      'clusters: [{ name: nowhere, cluster: { server: "https://127.0.0.1:1" } }]',
      'users: [{ name: nobody, user: { token: "not-a-secret" } }]',
      'contexts: [{ name: nowhere, context: { cluster: nowhere, user: nobody } }]',
      'current-context: nowhere',
    ].join('\n'),
  );
  return path;
};

beforeAll(async () => {
  home = mkdtempSync(join(tmpdir(), 'image-refresh-process-home-'));
  await ensureBundle();
}, BUILD_TIMEOUT_MS);

afterAll(() => {
  rmSync(home, { recursive: true, force: true });
});

describe("the bundle's stderr holds only image-refresh's own lines, the summary last", () => {
  it(`runs on the Node this project names (${process.env.IMAGE_REFRESH_BUNDLE_NODE === undefined ? 'this process' : 'IMAGE_REFRESH_BUNDLE_NODE'})`, () => {
    const version = execFileSync(BUNDLE_NODE, ['--version'], { encoding: 'utf8' }).trim();
    // The cli@node24 project (vitest.workspace.ts) must really be Node 24.
    if (process.env.IMAGE_REFRESH_BUNDLE_NODE !== undefined) expect(version).toMatch(/^v24\./);
    else expect(version).toBe(process.version);
  });

  it('tick, having loaded the Kubernetes client and failed to reach a cluster', async () => {
    const run = await runBundle(['tick'], { ...env(), KUBECONFIG: unreachableKubeconfig() });
    expect(run.exitCode).toBe(1);
    expect(nodeWarnings(run.stderr)).toEqual([]);
    expect(run.stderr.at(-1)).toMatch(/^\[image-refresh\] summary: outcome=deploymentUnreadable exit=1 /);
  });

  it('tick without credentials for any cluster (exit 2, a configuration error)', async () => {
    const run = await runBundle(['tick'], env());
    expect(run.exitCode).toBe(2);
    expect(nodeWarnings(run.stderr)).toEqual([]);
    expect(run.stderr.at(-1)).toMatch(/^\[image-refresh\] summary: outcome=configInvalid exit=2 /);
  });

  it('tick on a malformed environment (exit 2)', async () => {
    const run = await runBundle(['tick'], { ...env(), MAX_SKIP_TICKS: 'eight' });
    expect(run.exitCode).toBe(2);
    expect(nodeWarnings(run.stderr)).toEqual([]);
    expect(run.stderr.at(-1)).toMatch(/^\[image-refresh\] summary: outcome=configInvalid exit=2 /);
  });

  it('status and simulate', async () => {
    for (const args of [['status', '--no-registry'], ['simulate']]) {
      const run = await runBundle(args, env());
      expect(nodeWarnings(run.stderr), args.join(' ')).toEqual([]);
    }
  });
});

const builtinsLoadedBy = async (args: string[], env: Record<string, string> = {}): Promise<string[]> => {
  const run = await runBundle(args, { HOME: home, NODE_OPTIONS: `--import=${PRELOAD}`, ...env });
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

  // A tick on the chart's topology reads no file of its own: node:fs/promises,
  // loaded at start, cost every steady tick (README.md, Benchmarks).
  it('a tick that names no file loads no fs/promises; one that names a profile does', async () => {
    expect(await builtinsLoadedBy(['tick'])).not.toContain('fs/promises');
    const profile = join(home, 'profile.yaml');
    writeFileSync(profile, 'annotationPrefix: shop.example.com\n');
    expect(await builtinsLoadedBy(['tick'], { IMAGE_REFRESH_PROFILE: profile })).toContain('fs/promises');
  });
});
