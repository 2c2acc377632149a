import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseTickConfig, type TickConfig } from '@image-refresh/core';
import * as E from 'fp-ts/lib/Either.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { imagesOf } from '../../../k8s-adapter/test/support/fake-api-chart.js';
import { startTopologyCluster, type TopologyCluster } from '../../../k8s-adapter/test/support/fake-api-topology.js';
import {
  type PrivateRegistry,
  privateRegistryMissing,
  startPrivateRegistry,
} from '../../../k8s-adapter/test/support/private-registry.js';
import {
  REGISTRY_SETUP_TIMEOUT_MS,
  type RegistryProcess,
  startRegistry,
} from '../../../k8s-adapter/test/support/registry-process.js';
import { pushImage } from '../../../k8s-adapter/test/support/registry-push.js';
import { BUILD_TIMEOUT_MS, readyToRunOnKubeconfig } from './support/bundle.js';
import { STORY_BOUNDS } from './support/chart-env.js';
import { type BundleRun, linesWith, runBundle } from './support/run-bundle.js';

// A profile whose images live on registries of their own (docs/configuration.md,
// "The registry"): web and log on a private registry (Debian's docker-registry
// behind TLS from a test CA, htpasswd), the agent on a plain-http one that
// REGISTRY_PLAIN_HTTP lists. Each image is asked on its own host and pinned
// there — never as docker.io/… — with the pull Secret's credentials sent to
// the private host only.

if (privateRegistryMissing !== undefined) console.warn(`SKIPPED ${import.meta.url}: ${privateRegistryMissing}`);

describe.skipIf(privateRegistryMissing !== undefined)('a profile on registries of its own', () => {
  let secured: PrivateRegistry;
  let plain: RegistryProcess;
  let cluster: TopologyCluster;
  let config: TickConfig;
  let home: string;
  let profileFile: string;
  const runs: BundleRun[] = [];

  const profileOf = (securedHost: string, plainHost: string) => ({
    annotationPrefix: 'shop.example.com',
    gate: 'web',
    images: [
      { name: 'web', repository: `${securedHost}/shop/web` },
      { name: 'log', repository: `${securedHost}/shop/log` },
      { name: 'agent', repository: `${plainHost}/shop/agent` },
    ],
    workloads: [
      { id: 'web', kind: 'Deployment', namespace: 'shop', name: 'web', containers: { web: 'web', log: 'log' } },
      { id: 'agent', kind: 'DaemonSet', namespace: 'shop-nodes', name: 'agent', containers: { agent: 'agent' } },
    ],
  });

  beforeAll(
    async () => {
      await readyToRunOnKubeconfig();
      secured = await startPrivateRegistry();
      plain = await startRegistry();
      home = mkdtempSync(join(tmpdir(), 'image-refresh-e2e-own-registries-'));
      const plainHost = new URL(plain.url).host;
      const profile = profileOf(secured.host, plainHost);
      profileFile = join(home, 'profile.json');
      writeFileSync(profileFile, JSON.stringify(profile));
      const parsed = parseTickConfig({ IMAGE_REFRESH_PROFILE: profileFile, IMAGE_TAG: 'stable' }, profile);
      if (E.isLeft(parsed)) throw new Error(JSON.stringify(parsed.left));
      config = parsed.right;
      cluster = await startTopologyCluster(config, { stepMs: 20 });
      for (const repo of ['shop/web', 'shop/log']) await pushImage(secured.pushUrl, repo, 'stable');
      await pushImage(plain.url, 'shop/agent', 'stable');
    },
    BUILD_TIMEOUT_MS + 3 * REGISTRY_SETUP_TIMEOUT_MS,
  );
  afterAll(async () => {
    await cluster?.close();
    await secured?.stop();
    await plain?.stop();
    if (home !== undefined) rmSync(home, { recursive: true, force: true });
  });

  const tick = async (extra: Record<string, string> = {}) => {
    const run = await runBundle(['tick'], {
      HOME: home,
      KUBECONFIG: cluster.kubeconfig.path,
      HOSTNAME: 'shop-image-refresh-e2e',
      IMAGE_REFRESH_PROFILE: profileFile,
      IMAGE_TAG: 'stable',
      ...STORY_BOUNDS,
      REGISTRY_AUTH_FILE: secured.authFile,
      REGISTRY_CA_FILE: secured.caFile,
      REGISTRY_PLAIN_HTTP: new URL(plain.url).host,
      ...extra,
    });
    runs.push(run);
    return run;
  };

  it('records each image from its own host, then pins a new build there, not on docker.io', async () => {
    const first = await tick();
    expect(first.exitCode, first.stderr.join('\n')).toBe(0);
    expect(first.stderr.at(-1)).toContain('unresolved=0');
    expect(linesWith(first.stderr, 'reached over plain http')).toEqual([
      expect.stringContaining(`registry ${new URL(plain.url).host} reached over plain http (REGISTRY_PLAIN_HTTP)`),
    ]);
    const web2 = (await pushImage(secured.pushUrl, 'shop/web', 'stable')).digest;
    const agent2 = (await pushImage(plain.url, 'shop/agent', 'stable')).digest;
    const second = await tick();
    expect(second.exitCode, second.stderr.join('\n')).toBe(0);
    expect(second.stderr.at(-1)).toMatch(/re-images=2 \(deployment\/web, daemonset\/agent\)/);
    expect(imagesOf(cluster.workload('web')).web).toBe(`${secured.host}/shop/web@${web2}`);
    expect(imagesOf(cluster.workload('web')).log).toBe(`${secured.host}/shop/log:stable`);
    expect(imagesOf(cluster.workload('agent')).agent).toBe(`${new URL(plain.url).host}/shop/agent@${agent2}`);
  });

  it('a private host left out of REGISTRY_PLAIN_HTTP is asked over https: its images go unresolved, the rest go on', async () => {
    const run = await tick({ REGISTRY_PLAIN_HTTP: '' });
    expect(run.exitCode, run.stderr.join('\n')).toBe(0);
    expect(run.stderr.at(-1)).toContain('unresolved=1');
    expect(linesWith(run.stderr, 'could not resolve latest digest of shop/agent:stable')).toHaveLength(1);
  });

  it('a REGISTRY_PLAIN_HTTP that names no host, or Docker Hub, is a configuration error before any call', async () => {
    const from = cluster.server.requests.length;
    const wrong = await tick({ REGISTRY_PLAIN_HTTP: 'http://registry.local:5000' });
    const hub = await tick({ REGISTRY_PLAIN_HTTP: 'docker.io' });
    expect([wrong.exitCode, hub.exitCode]).toEqual([2, 2]);
    expect(linesWith(wrong.stderr, 'REGISTRY_PLAIN_HTTP')).toEqual([
      expect.stringContaining('"http://registry.local:5000" is no host[:port]'),
    ]);
    expect(linesWith(hub.stderr, 'REGISTRY_PLAIN_HTTP')).toEqual([expect.stringContaining('docker.io is Docker Hub')]);
    expect(cluster.server.requests.length).toBe(from);
  });

  it('a listed host no image lives on is said, not silently ignored', async () => {
    const run = await tick({ REGISTRY_PLAIN_HTTP: `${new URL(plain.url).host},registry.local:5000` });
    expect(run.exitCode, run.stderr.join('\n')).toBe(0);
    expect(linesWith(run.stderr, 'REGISTRY_PLAIN_HTTP lists')).toEqual([
      expect.stringContaining('lists registry.local:5000, where no followed image (nor the fleet halt) lives'),
    ]);
  });

  it('no output of any tick, no request the API server received, carries the password or its base64', () => {
    const written = [
      ...runs.flatMap((run) => [...run.stdout, ...run.stderr]),
      ...cluster.server.requests.map((r) => `${r.path} ${JSON.stringify(r.query)} ${r.body}`),
    ].join('\n');
    expect(written.length).toBeGreaterThan(1_000);
    for (const secret of [secured.password, Buffer.from(`${secured.username}:${secured.password}`).toString('base64')])
      expect(written).not.toContain(secret);
  });
});
