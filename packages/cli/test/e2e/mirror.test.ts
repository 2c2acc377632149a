import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
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
  type ProxyRegistry,
  startProxyRegistry,
  startTokenUpstream,
  type TokenUpstream,
} from '../../../k8s-adapter/test/support/proxy-registry.js';
import { REGISTRY_SETUP_TIMEOUT_MS } from '../../../k8s-adapter/test/support/registry-process.js';
import { pushImage } from '../../../k8s-adapter/test/support/registry-push.js';
import { BUILD_TIMEOUT_MS, readyToRunOnKubeconfig } from './support/bundle.js';
import { STORY_BOUNDS } from './support/chart-env.js';
import { type BundleRun, linesWith, runBundle } from './support/run-bundle.js';

// Follow upstream, pull through the mirror (MIRROR_MODE=follow-upstream,
// docs/behaviour.md §3.3), with real parts on 127.0.0.1: the upstream is a
// private registry behind TLS from a test CA and real signed tokens (as
// Harbor's), reached with the pull Secret's credentials; the mirror is
// Debian's docker-registry in proxy mode in front of it, a real pull-through
// cache. The tick resolves the tag upstream, asks the mirror for the new
// digest — which makes the cache fetch it — and pins <mirror>/<path>@<digest>.

if (privateRegistryMissing !== undefined) console.warn(`SKIPPED ${import.meta.url}: ${privateRegistryMissing}`);

describe.skipIf(privateRegistryMissing !== undefined)('an edge that pulls through a mirror', () => {
  let registry: PrivateRegistry;
  let upstream: TokenUpstream;
  let mirror: ProxyRegistry;
  let cluster: TopologyCluster;
  let config: TickConfig;
  let home: string;
  let profileFile: string;
  let authFile: string;
  const runs: BundleRun[] = [];

  beforeAll(
    async () => {
      await readyToRunOnKubeconfig();
      registry = await startPrivateRegistry();
      upstream = await startTokenUpstream(registry);
      mirror = await startProxyRegistry(upstream);
      home = mkdtempSync(join(tmpdir(), 'image-refresh-e2e-mirror-'));
      const upstreamHost = new URL(upstream.url).host;
      const profile = {
        annotationPrefix: 'shop.example.com',
        gate: 'web',
        mirror: mirror.host,
        images: [
          { name: 'web', repository: `${upstreamHost}/shop/web` },
          { name: 'log', repository: `${upstreamHost}/shop/log` },
        ],
        workloads: [
          { id: 'web', kind: 'Deployment', namespace: 'shop', name: 'web', containers: { web: 'web', log: 'log' } },
        ],
      };
      profileFile = join(home, 'profile.json');
      writeFileSync(profileFile, JSON.stringify(profile));
      const auth = Buffer.from(`${upstream.username}:${upstream.password}`).toString('base64');
      authFile = join(home, 'config.json');
      writeFileSync(authFile, JSON.stringify({ auths: { [upstreamHost]: { auth } } }));
      const parsed = parseTickConfig(
        { IMAGE_REFRESH_PROFILE: profileFile, IMAGE_TAG: 'stable', MIRROR_MODE: 'follow-upstream' },
        profile,
      );
      if (E.isLeft(parsed)) throw new Error(JSON.stringify(parsed.left));
      config = parsed.right;
      cluster = await startTopologyCluster(config, { stepMs: 20 });
      for (const repo of ['shop/web', 'shop/log']) await pushImage(registry.pushUrl, repo, 'stable');
    },
    BUILD_TIMEOUT_MS + 4 * REGISTRY_SETUP_TIMEOUT_MS,
  );
  afterAll(async () => {
    await cluster?.close();
    await mirror?.stop();
    await upstream?.stop();
    await registry?.stop();
    if (home !== undefined) rmSync(home, { recursive: true, force: true });
  });

  const tick = async (extra: Record<string, string> = {}) => {
    const run = await runBundle(['tick'], {
      HOME: home,
      KUBECONFIG: cluster.kubeconfig.path,
      HOSTNAME: 'shop-image-refresh-e2e',
      IMAGE_REFRESH_PROFILE: profileFile,
      IMAGE_TAG: 'stable',
      MIRROR_MODE: 'follow-upstream',
      ...STORY_BOUNDS,
      REGISTRY_AUTH_FILE: authFile,
      REGISTRY_CA_FILE: registry.caFile,
      REGISTRY_PLAIN_HTTP: mirror.host,
      ...extra,
    });
    runs.push(run);
    return run;
  };
  const cached = (digest: string) =>
    existsSync(
      join(
        mirror.storage,
        `docker/registry/v2/repositories/shop/web/_manifests/revisions/sha256/${digest.slice('sha256:'.length)}/link`,
      ),
    );

  it('upstream moves; the tick pins the mirror’s reference, and the mirror now holds that manifest', async () => {
    const first = await tick();
    expect(first.exitCode, first.stderr.join('\n')).toBe(0);
    expect(first.stderr.at(-1)).toContain('unresolved=0');
    expect(linesWith(first.stderr, `pulled through mirror ${mirror.host}`)).toHaveLength(1);
    const web2 = (await pushImage(registry.pushUrl, 'shop/web', 'stable')).digest;
    expect(cached(web2)).toBe(false);
    const second = await tick();
    expect(second.exitCode, second.stderr.join('\n')).toBe(0);
    expect(second.stderr.at(-1)).toMatch(/re-images=1 \(deployment\/web\)/);
    expect(imagesOf(cluster.workload('web')).web).toBe(`${mirror.host}/shop/web@${web2}`);
    expect(imagesOf(cluster.workload('web')).log).toBe(`${mirror.host}/shop/log:stable`);
    expect(cached(web2)).toBe(true);
  });

  it('unset, the same edge is inert behind its mirror (I14): no request at all', async () => {
    const from = cluster.server.requests.length;
    const run = await tick({ MIRROR_MODE: '' });
    expect(run.exitCode, run.stderr.join('\n')).toBe(0);
    expect(run.stderr.at(-1)).toContain('outcome=mirrorInert');
    expect(cluster.server.requests.length).toBe(from);
  });

  it('no output carries the password or its base64', () => {
    const written = runs.flatMap((run) => [...run.stdout, ...run.stderr]).join('\n');
    expect(written.length).toBeGreaterThan(500);
    for (const secret of [
      upstream.password,
      Buffer.from(`${upstream.username}:${upstream.password}`).toString('base64'),
    ])
      expect(written).not.toContain(secret);
  });
});
