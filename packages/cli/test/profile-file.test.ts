import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DEFAULT_PROFILE } from '@image-refresh/core';
import { SHOP_PROFILE, SimWorld, simConfig, simDigest } from '@image-refresh/core/sim';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import schema from '../../core/profile.schema.json' with { type: 'json' };
import { MAX_PROFILE_BYTES } from '../src/wiring/read-profile.js';
import { aWorld, runCli, theLine } from './support/sim-connection.js';

// IMAGE_REFRESH_PROFILE as the CronJob gives it: a file mounted from a
// ConfigMap, read by the CLI, checked by core (docs/profiles.md). What a tick
// prints and exits with, and what the cluster received.

const dir = mkdtempSync(join(tmpdir(), 'image-refresh-profile-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const file = (name: string, text: string): string => {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
};

/** The chart's topology for release `stg` in `tracebloc`, written as a profile file. */
const CHART_YAML = file(
  'chart.yaml',
  stringify(
    DEFAULT_PROFILE({
      releaseName: 'stg',
      releaseNamespace: 'tracebloc',
      deploymentName: 'stg-jobs-manager',
      requestsProxyDeployment: 'stg-requests-proxy',
      resourceMonitorDaemonSet: 'stg-resource-monitor',
      nodeAgentsNamespace: 'tracebloc-node-agents',
    }),
  ),
);

/** The shop as an operator writes it, comments and flow mappings included. */
const SHOP_YAML = file(
  'shop.yaml',
  `# the shop's topology
annotationPrefix: shop.example.com   # bookkeeping keys live under it
gate: web
frozenHint: "check the web pod's readiness probe:\\n  kubectl -n shop describe pods -l app=web"
images:
  - name: web
    repository: shop/web
    pinnedBy: WEB_PINNED
  - { name: log, repository: shop/log }
  - { name: agent, repository: shop/agent }
workloads:
  - { id: web, kind: Deployment, namespace: shop, name: web, containers: { web: web, log: log } }
  - { id: worker, kind: Deployment, namespace: shop, name: worker, containers: { worker: web }, decoupled: true }
  - { id: agent, kind: DaemonSet, namespace: shop-nodes, name: agent, containers: { agent: agent }, decoupled: true }
`,
);

/** A smaller shop, in flow style, for the documents that go wrong. */
const SMALL_SHOP = `annotationPrefix: shop.example.com
gate: web
images:
  - { name: web, repository: shop/web }
  - { name: log, repository: shop/log }
workloads:
  - { id: web, kind: Deployment, namespace: shop, name: web, containers: { web: web, log: log } }
  - { id: worker, kind: Deployment, namespace: shop, name: worker, containers: { worker: web } }
`;

const PROFILE_ONLY = { IMAGE_TAG: 'stg' };
const JM = 'tracebloc/jobs-manager';

/** The same world, twice: once for the chart's variables, once for its profile file. */
const twoWorlds = (arrange: (world: SimWorld) => void) => {
  const worlds = [aWorld(), aWorld()] as const;
  for (const world of worlds) arrange(world);
  return worlds;
};

describe("the chart's topology as a profile file", () => {
  it.each([
    {
      story: 'a new build is re-imaged and recorded',
      arrange: (world: SimWorld) => {
        world.annotations = { 'tracebloc.io/last-refreshed-jobs-manager-digest': simDigest(`${JM}#1`) };
        world.publish(JM, simDigest(`${JM}#2`));
      },
    },
    {
      story: 'a gate that never settles is frozen at the ceiling, with the hint',
      arrange: (world: SimWorld) => {
        world.setBehaviour('jobs-manager', 'neverReady');
        world.annotations = { 'tracebloc.io/refresh-skip-streak': '7' };
      },
    },
    { story: 'a first observation records every digest', arrange: () => undefined },
  ])('$story: the same lines, exit code and requests as the built-in default', async ({ arrange }) => {
    const [builtIn, fromFile] = twoWorlds(arrange);
    const chart = await runCli(['tick'], builtIn);
    const profile = await runCli(['tick'], fromFile, { IMAGE_REFRESH_PROFILE: CHART_YAML }, PROFILE_ONLY);
    expect(chart.stderr.length).toBeGreaterThan(3);
    expect(profile.stderr).toEqual(chart.stderr);
    expect(profile.exitCode).toBe(chart.exitCode);
    expect(fromFile.calls).toEqual(builtIn.calls);
    expect(fromFile.annotations).toEqual(builtIn.annotations);
  });

  it("the chart's variables set beside it are ignored, each named in one WARN and a Warning Event", async () => {
    const world = aWorld();
    const { exitCode, stderr } = await runCli(['tick'], world, {
      IMAGE_REFRESH_PROFILE: CHART_YAML,
      DEPLOYMENT_NAME: 'elsewhere',
    });
    expect(exitCode).toBe(0);
    expect(theLine(stderr, 'set but ignored')).toBe(
      '[image-refresh] WARN: RELEASE_NAME, RELEASE_NAMESPACE, DEPLOYMENT_NAME, NODE_AGENTS_NAMESPACE, IMAGE_REGISTRY are set but ignored: IMAGE_REFRESH_PROFILE names the workloads, their namespaces and pins',
    );
    const warnings = world.calls.filter((c) => c.op === 'recordEvent' && c.detail.includes('RefreshProfileWarning'));
    expect(warnings).toHaveLength(1);
    // Nothing read or written went to the object DEPLOYMENT_NAME names.
    expect(world.calls.some((c) => c.detail.includes('elsewhere'))).toBe(false);
  });
});

describe('the example profile the README points at', () => {
  it("is valid to the JSON Schema editors use and to the tick, and is the simulator's shop", async () => {
    const example = fileURLToPath(new URL('../examples/shop.yaml', import.meta.url));
    const document: unknown = parse(readFileSync(example, 'utf8'));
    const validate = new Ajv2020({ strict: true }).compile(schema);
    expect(validate(document), JSON.stringify(validate.errors)).toBe(true);
    expect(document).toEqual(SHOP_PROFILE);
    const { exitCode } = await runCli(
      ['tick', '--dry-run'],
      shopWorld(),
      { IMAGE_REFRESH_PROFILE: example },
      PROFILE_ONLY,
    );
    expect(exitCode).toBe(0);
  });
});

/** A simulated edge of the shop's topology. */
const shopWorld = () => new SimWorld(simConfig({}, SHOP_PROFILE));

describe('a profile of your own', () => {
  it('--dry-run shows the profile it understood: images, pins, workloads, the gate and where the bookkeeping goes', async () => {
    const world = shopWorld();
    const { exitCode, stderr } = await runCli(
      ['tick', '--dry-run'],
      world,
      { IMAGE_REFRESH_PROFILE: SHOP_YAML, WEB_PINNED: '0' },
      PROFILE_ONLY,
    );
    expect(exitCode).toBe(0);
    const from = stderr.findIndex((l) => l.includes(`dry-run: profile ${SHOP_YAML}`));
    expect(stderr.slice(from, from + 7)).toEqual([
      `[image-refresh] dry-run: profile ${SHOP_YAML}: bookkeeping under shop.example.com/ on deployment/web in shop`,
      '[image-refresh] dry-run:   image web: docker.io/shop/web:stg, pinned when WEB_PINNED=1',
      '[image-refresh] dry-run:   image log: docker.io/shop/log:stg',
      '[image-refresh] dry-run:   image agent: docker.io/shop/agent:stg',
      '[image-refresh] dry-run:   deployment/web in shop (the gate): web runs web, log runs log',
      '[image-refresh] dry-run:   deployment/worker in shop (decoupled): worker runs web',
      '[image-refresh] dry-run:   daemonset/agent in shop-nodes (decoupled): agent runs agent',
    ]);
    // Each write went to the API server as a dry run; none persisted.
    expect(
      world.calls.filter(
        (c) => /^(set|write|patch)/.test(c.op) && c.outcome !== 'dry run' && c.outcome !== 'unchanged',
      ),
    ).toEqual([]);
    expect(Object.keys(world.annotations)).toEqual([]);
  });

  it('a pinned image is said pinned in the dry run, and no other line says it is followed', async () => {
    const { stderr } = await runCli(
      ['tick', '--dry-run'],
      shopWorld(),
      { IMAGE_REFRESH_PROFILE: SHOP_YAML, WEB_PINNED: '1' },
      PROFILE_ONLY,
    );
    expect(theLine(stderr, 'image web:')).toBe(
      '[image-refresh] dry-run:   image web: docker.io/shop/web:stg, pinned by WEB_PINNED=1',
    );
  });

  it('a first observation records the shop under its own prefix, on its gate', async () => {
    const world = shopWorld();
    const { exitCode, stderr } = await runCli(['tick'], world, { IMAGE_REFRESH_PROFILE: SHOP_YAML }, PROFILE_ONLY);
    expect(exitCode).toBe(0);
    expect(stderr[1]).toBe('[image-refresh] namespace=shop deployment=web');
    expect(Object.keys(world.annotations).sort()).toEqual([
      'shop.example.com/last-refreshed-agent-digest',
      'shop.example.com/last-refreshed-log-digest',
      'shop.example.com/last-refreshed-web-digest',
      'shop.example.com/topology-fingerprint',
    ]);
  });
});

describe('a profile file that cannot be followed is exit 2 before any call, with every other problem', () => {
  const refused = async (env: Record<string, string>) => {
    const world = aWorld();
    const run = await runCli(['tick'], world, env, { ...PROFILE_ONLY, MAX_REFRESH_ATTEMPTS: 'three' });
    expect(run.exitCode).toBe(2);
    expect(run.connected).toBe(0);
    expect(world.calls).toEqual([]);
    // The environment's other problem is named in the same run.
    theLine(run.stderr, 'MAX_REFRESH_ATTEMPTS="three"');
    return run.stderr;
  };

  it('a missing file names the variable and the path', async () => {
    const stderr = await refused({ IMAGE_REFRESH_PROFILE: join(dir, 'absent.yaml') });
    expect(theLine(stderr, 'IMAGE_REFRESH_PROFILE')).toContain(
      `IMAGE_REFRESH_PROFILE="${join(dir, 'absent.yaml')}": no such file`,
    );
  });

  it('a directory is not a profile', async () => {
    const stderr = await refused({ IMAGE_REFRESH_PROFILE: dir });
    expect(theLine(stderr, 'IMAGE_REFRESH_PROFILE')).toContain('is a directory, not a profile file');
  });

  it('YAML that does not parse says where', async () => {
    const broken = file('broken.yaml', 'annotationPrefix: shop.example.com\ngate: [web\nimages: []\n');
    const stderr = await refused({ IMAGE_REFRESH_PROFILE: broken });
    expect(stderr.filter((l) => l.includes('IMAGE_REFRESH_PROFILE')).join('\n')).toMatch(
      /is not YAML or JSON at line \d+, column \d+: /,
    );
  });

  it('a key given twice is refused, not last-one-wins', async () => {
    const twice = file('twice.yaml', 'gate: web\ngate: worker\n');
    const stderr = await refused({ IMAGE_REFRESH_PROFILE: twice });
    expect(stderr.filter((l) => l.includes('IMAGE_REFRESH_PROFILE')).join('\n')).toMatch(
      /is not YAML or JSON at line 2, column 1: Map keys must be unique/,
    );
  });

  it('an empty file is an empty profile', async () => {
    const stderr = await refused({ IMAGE_REFRESH_PROFILE: file('empty.yaml', '') });
    expect(theLine(stderr, 'IMAGE_REFRESH_PROFILE')).toContain('profile: is empty');
  });

  it('a file larger than any profile is not read', async () => {
    const large = file('large.yaml', `# ${'x'.repeat(MAX_PROFILE_BYTES)}\n`);
    const stderr = await refused({ IMAGE_REFRESH_PROFILE: large });
    expect(theLine(stderr, 'IMAGE_REFRESH_PROFILE')).toContain(`more than a profile's ${MAX_PROFILE_BYTES}: not read`);
  });

  it("every problem of the document is named with its path, beside the environment's", async () => {
    const wrong = file(
      'wrong.yaml',
      SMALL_SHOP.replace('containers: { worker: web }', 'containers: { worker: shop-web }').replace(
        'gate: web',
        'gate: front',
      ),
    );
    const stderr = await refused({ IMAGE_REFRESH_PROFILE: wrong });
    const lines = stderr.filter((l) => l.includes('IMAGE_REFRESH_PROFILE'));
    expect(lines.join('\n')).toContain('workloads[1].containers.worker: image "shop-web" is not declared');
    expect(lines.join('\n')).toContain('gate: "front" is not a declared workload');
  });

  it('without IMAGE_TAG, a profile whose images all name their tag needs none; one that does not says so', async () => {
    const untagged = await runCli(['tick', '--dry-run'], shopWorld(), { IMAGE_REFRESH_PROFILE: SHOP_YAML }, {});
    expect(untagged.exitCode).toBe(2);
    expect(theLine(untagged.stderr, 'IMAGE_TAG')).toContain('IMAGE_TAG');
    const tagged = file(
      'tagged.yaml',
      SMALL_SHOP.replace('repository: shop/web }', 'repository: shop/web, tag: v2 }').replace(
        'repository: shop/log }',
        'repository: shop/log, tag: stable }',
      ),
    );
    const run = await runCli(['tick', '--dry-run'], shopWorld(), { IMAGE_REFRESH_PROFILE: tagged }, {});
    expect(run.exitCode).toBe(0);
    expect(theLine(run.stderr, 'image log:')).toBe('[image-refresh] dry-run:   image log: docker.io/shop/log:stable');
  });
});
