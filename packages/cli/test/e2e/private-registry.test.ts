import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  annotationsOf,
  type ChartCluster,
  imagesOf,
  startChartCluster,
} from '../../../k8s-adapter/test/support/fake-api-chart.js';
import {
  type PrivateRegistry,
  privateRegistryMissing,
  startPrivateRegistry,
} from '../../../k8s-adapter/test/support/private-registry.js';
import { REGISTRY_SETUP_TIMEOUT_MS } from '../../../k8s-adapter/test/support/registry-process.js';
import { pushImage } from '../../../k8s-adapter/test/support/registry-push.js';
import { BUILD_TIMEOUT_MS, readyToRunOnKubeconfig } from './support/bundle.js';
import { bundleEnv, STORY_BOUNDS } from './support/chart-env.js';
import { JM, PM, RM } from './support/chart-facts.js';
import { type BundleRun, linesWith, runBundle } from './support/run-bundle.js';

// The bundled CLI on a private registry (docs/configuration.md, "The
// registry"): Debian's docker-registry behind TLS from a test CA and htpasswd,
// reached with REGISTRY_AUTH_FILE and REGISTRY_CA_FILE as a pull Secret and a
// CA bundle would be mounted. Every output of every tick — stdout, stderr,
// the requests the API server received (Events, patches) — is searched for
// the password and its base64: neither is ever there.

if (privateRegistryMissing !== undefined) console.warn(`SKIPPED ${import.meta.url}: ${privateRegistryMissing}`);

describe.skipIf(privateRegistryMissing !== undefined)('the bundled CLI on a private registry', () => {
  let registry: PrivateRegistry;
  let cluster: ChartCluster;
  let home: string;
  const runs: BundleRun[] = [];

  beforeAll(
    async () => {
      await readyToRunOnKubeconfig();
      registry = await startPrivateRegistry();
      cluster = await startChartCluster({ stepMs: 20 });
      home = mkdtempSync(join(tmpdir(), 'image-refresh-e2e-private-'));
      for (const repo of [JM, PM, RM]) await pushImage(registry.pushUrl, repo, 'stg');
    },
    BUILD_TIMEOUT_MS + 2 * REGISTRY_SETUP_TIMEOUT_MS,
  );
  afterAll(async () => {
    await cluster?.close();
    await registry?.stop();
    if (home !== undefined) rmSync(home, { recursive: true, force: true });
  });

  const target = () => ({ registry: { url: registry.url }, cluster, home });
  const tick = async (extra: Record<string, string>, args: readonly string[] = ['tick']) => {
    const run = await runBundle(args, bundleEnv(target(), STORY_BOUNDS, extra));
    runs.push(run);
    return run;
  };
  const access = () => ({ REGISTRY_AUTH_FILE: registry.authFile, REGISTRY_CA_FILE: registry.caFile });
  const secrets = () => [
    registry.password,
    Buffer.from(`${registry.username}:${registry.password}`).toString('base64'),
  ];

  it('records, then re-images from the private registry with the mounted credentials and CA', async () => {
    const first = await tick(access());
    expect(first.exitCode, first.stderr.join('\n')).toBe(0);
    expect(first.stderr.at(-1)).toContain('outcome=complete exit=0');
    expect(first.stderr.at(-1)).toContain('unresolved=0');
    const jm2 = (await pushImage(registry.pushUrl, JM, 'stg')).digest;
    const second = await tick(access());
    expect(second.exitCode, second.stderr.join('\n')).toBe(0);
    expect(second.stderr.at(-1)).toMatch(
      /re-images=2 \(deployment\/stg-jobs-manager, deployment\/stg-requests-proxy\)/,
    );
    expect(imagesOf(cluster.jobsManager()).api).toBe(`docker.io/${JM}@${jm2}`);
    expect(annotationsOf(cluster.jobsManager())['tracebloc.io/last-refreshed-jobs-manager-digest']).toBe(jm2);
  });

  it('without REGISTRY_AUTH_FILE every image is unresolved, and the WARN says no credentials were sent', async () => {
    const run = await tick({ REGISTRY_CA_FILE: registry.caFile });
    expect(run.exitCode).toBe(0);
    expect(run.stderr.at(-1)).toContain('unresolved=3');
    expect(linesWith(run.stderr, 'REGISTRY_AUTH_FILE is not set').length).toBeGreaterThan(0);
    expect(linesWith(run.stderr, 'Unauthorized (HTTP 401)').length).toBeGreaterThan(0);
  });

  it('a REGISTRY_AUTH_FILE that is missing or not a .dockerconfigjson is a configuration error: exit 2, before any call', async () => {
    const broken = join(home, 'broken.json');
    writeFileSync(broken, JSON.stringify({ 'ghcr.io': { auth: 'x' } }));
    const from = cluster.server.requests.length;
    const missing = await tick({ REGISTRY_AUTH_FILE: join(home, 'absent.json') });
    const wrong = await tick({ REGISTRY_AUTH_FILE: broken, REGISTRY_CA_FILE: registry.authFile });
    expect([missing.exitCode, wrong.exitCode]).toEqual([2, 2]);
    expect(linesWith(missing.stderr, 'REGISTRY_AUTH_FILE')).toEqual([
      `[image-refresh] ERROR: configuration: REGISTRY_AUTH_FILE=${JSON.stringify(join(home, 'absent.json'))}: cannot be read (ENOENT)`,
    ]);
    expect(linesWith(wrong.stderr, 'has no "auths" object').length).toBe(1);
    expect(linesWith(wrong.stderr, 'REGISTRY_CA_FILE').length).toBe(1);
    expect(cluster.server.requests.length).toBe(from);
  });

  it('credentials in IMAGE_REFRESH_REGISTRY_URL still work, with a WARN that names REGISTRY_AUTH_FILE, and never show', async () => {
    const withUser = registry.url.replace('https://', `https://${registry.username}:${registry.password}@`);
    const run = await tick({ IMAGE_REFRESH_REGISTRY_URL: withUser, REGISTRY_CA_FILE: registry.caFile });
    expect(run.exitCode, run.stderr.join('\n')).toBe(0);
    expect(run.stderr.at(-1)).toContain('unresolved=0');
    expect(linesWith(run.stderr, 'REGISTRY_URL_CREDENTIALS')).toEqual([]);
    expect(linesWith(run.stderr, 'carries credentials')).toEqual([
      expect.stringContaining(`WARN: IMAGE_REFRESH_REGISTRY_URL carries credentials (https://…@${registry.host})`),
    ]);
  });

  it('no output of any tick, no request the API server received, carries the password or its base64', () => {
    expect(runs.length).toBeGreaterThanOrEqual(5);
    const written = [
      ...runs.flatMap((run) => [...run.stdout, ...run.stderr]),
      ...cluster.server.requests.map((r) => `${r.path} ${JSON.stringify(r.query)} ${r.body}`),
    ].join('\n');
    expect(written.length).toBeGreaterThan(1_000);
    for (const secret of secrets()) expect(written).not.toContain(secret);
  });
});
