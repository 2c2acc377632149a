import { execFileSync, spawn } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { renderFleetHalt, renderFleetPromotion, topologyFingerprint } from '../../core/src/index.js';
import { SIM_ENVIRONMENT, simConfig } from '../../core/src/sim/index.js';
import { startChartCluster } from '../../k8s-adapter/test/support/fake-api-chart.js';
import { listenLocal } from '../../k8s-adapter/test/support/registry-local-server.js';
import { referenceScript } from './reference-script.js';

// `pnpm bench:cli`: what the CronJob's process costs, measured on the shipped
// bundle (dist/image-refresh.mjs), as the README reports it (BENCH_NODE and
// BENCH_COMPILE_CACHE=1 reproduce the image's Node 24 with its compile cache):
//   - `--version`: median wall time of 15 runs;
//   - a steady-state `tick` (settled, digests recorded, nothing new) against
//     the fake API server and a registry on 127.0.0.1 that asks for a bearer
//     token as Docker Hub does: median wall time and peak RSS of 15 runs.
// Peak RSS is the process's own maxRSS (getrusage), printed at exit by a
// preloaded line; the bench needs no /usr/bin/time.
//
// BENCH_WINDOW=1 (docs/behaviour.md §3.4d): the same steady tick with
// MAINTENANCE_WINDOW unset and set, interleaved, requests counted.
//
// BENCH_FLEET_HALT=1 (docs/behaviour.md §3.4b): the same steady tick three
// ways, interleaved run for run — FLEET_HALT_REF unset; set, the halt tag
// answering 404; set, a halt in force that this edge verified before (its
// digest and document kept on the Deployment, halting a digest no image has)
// — and each one's requests counted, so that "one HEAD more, nothing else"
// is measured, not assumed.
//
// BENCH_PROMOTION=1 (docs/fleet-promotion.md): the steady tick of a ring-1
// edge three ways, interleaved the same way — FLEET_PROMOTION_REF unset (the
// clock's rings); set, the promotion tag answering 404; set, a promotion this
// edge verified before (its digest and document kept on the Deployment,
// naming the build it runs for ring 1) — requests counted: the gate's steady
// cost is meant to be the one HEAD of the tag.
//
// BENCH_AGAINST names another build of the bundle (an older tree's
// dist/image-refresh.mjs, built by that tree): `--version` and the same steady
// tick of both, interleaved run for run, with their medians and ratios — the
// comparison beside an earlier tree in one run, on the same machine at the
// same moments.
//
// Side by side with the script: BENCH_REFERENCE names the chart's
// client/templates/image-refresh-cronjob.yaml, which the operator fetches
// (never committed here, README "Benchmarks"). Its shell script then runs
// against the same fake API server and registry, interleaved run for run with
// the bundle's tick, through the real kubectl and curl behind two shims that
// reach only 127.0.0.1 (reference-script.ts).

const RUNS = Number(process.env.BENCH_RUNS ?? 15);
/** The node that runs the bundle: BENCH_NODE (e.g. the image's Node 24), else the bench's own. */
const NODE = process.env.BENCH_NODE ?? process.execPath;
/** The flags the image's ENTRYPOINT passes to node (packages/cli/Dockerfile). */
const NODE_FLAGS = (
  process.env.BENCH_NODE_FLAGS ?? '--max-semi-space-size=1 --no-opt --no-maglev --no-sparkplug --single-threaded-gc'
)
  .split(' ')
  .filter((f) => f !== '');
// Run from the repository root (pnpm bench:cli); the bench itself is bundled elsewhere.
const BUNDLE = process.env.BENCH_BUNDLE ?? join(process.cwd(), 'packages/cli/dist/image-refresh.mjs');
/** BENCH_AGAINST: another build to run beside this one, interleaved. */
const AGAINST = process.env.BENCH_AGAINST;
const DIGESTS: Record<string, string> = {
  'tracebloc/jobs-manager': `sha256:${'1'.repeat(64)}`,
  'tracebloc/pods-monitor': `sha256:${'2'.repeat(64)}`,
  'tracebloc/resource-monitor': `sha256:${'3'.repeat(64)}`,
};

/** BENCH_FLEET_HALT=1: the halt's repository, and the digest of the halt every "known" tick finds kept. */
const FLEET_HALT = process.env.BENCH_FLEET_HALT === '1';
const HALT_REPO = 'tracebloc/fleet-control';
const HALT_DIGEST = `sha256:${'4'.repeat(64)}`;
/** BENCH_PROMOTION=1: the promotion's tag (beside the halt's, as a fleet publishes both) and its kept digest. */
const PROMOTION = process.env.BENCH_PROMOTION === '1';
const PROMOTION_TAG = 'stg-promotion';
const PROMOTION_DIGEST = `sha256:${'6'.repeat(64)}`;
/** What the halt's (or the promotion's) tag answers for the tick being run: 404, or the kept document's digest. */
let haltTag: 'absent' | 'known' = 'absent';

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
};

const dir = mkdtempSync(join(tmpdir(), 'image-refresh-bench-'));

/**
 * BENCH_COMPILE_CACHE=1: a fresh V8 compile cache filled as the Dockerfile
 * fills the image's (`--version`, then `diagram`, with the same flags; Node
 * >= 22.1 reads it at every start). Otherwise NODE_COMPILE_CACHE as given.
 */
const fillCompileCache = (): string => {
  const cache = join(dir, 'compile-cache');
  for (const bundle of [BUNDLE, ...(AGAINST === undefined ? [] : [AGAINST])]) {
    for (const args of [['--version'], ['diagram']]) {
      execFileSync(NODE, [...NODE_FLAGS, bundle, ...args], {
        env: { PATH: process.env.PATH ?? '/usr/bin:/bin', NODE_COMPILE_CACHE: cache },
        stdio: 'ignore',
      });
    }
  }
  return cache;
};
const compileCache = process.env.BENCH_COMPILE_CACHE === '1' ? fillCompileCache() : process.env.NODE_COMPILE_CACHE;
const preload = join(process.cwd(), 'packages/cli/bench/report-memory.mjs');

const run = (
  args: string[],
  env: Record<string, string>,
  bundle = BUNDLE,
): Promise<{ ms: number; rssKb: number; code: number; stderr: string }> =>
  new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(NODE, [...NODE_FLAGS, '--import', preload, bundle, ...args], { env });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.stdout.resume();
    child.on('error', reject);
    child.on('close', (code) => {
      const ms = performance.now() - started;
      const rss = /maxrss-kb (\d+)/.exec(stderr)?.[1];
      resolve({ ms, rssKb: Number(rss), code: code ?? -1, stderr });
    });
  });

// A registry that behaves like Docker Hub for a HEAD: 401 with a Bearer
// challenge, a token endpoint, then the digest and the rate-limit headers.
const registry = await listenLocal((request, response) => {
  const url = new URL(request.url ?? '/', 'http://127.0.0.1');
  if (url.pathname === '/token') {
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ token: 'bench-token' }));
    return;
  }
  const [, repo, tag] = /^\/v2\/(.+)\/manifests\/([^/]+)$/.exec(url.pathname) ?? [];
  if (repo === HALT_REPO && request.headers.authorization === 'Bearer bench-token' && haltTag === 'absent') {
    response.writeHead(404);
    response.end();
    return;
  }
  if (request.headers.authorization !== 'Bearer bench-token') {
    response.writeHead(401, {
      'www-authenticate': `Bearer realm="http://127.0.0.1:${registryPort()}/token",service="bench",scope="repository:${repo}:pull"`,
    });
    response.end();
    return;
  }
  response.writeHead(200, {
    'docker-content-digest':
      repo === HALT_REPO ? (tag === PROMOTION_TAG ? PROMOTION_DIGEST : HALT_DIGEST) : (DIGESTS[repo ?? ''] ?? ''),
    'ratelimit-limit': '100;w=21600',
    'ratelimit-remaining': '97;w=21600',
  });
  response.end();
});
const registryPort = () => registry.port;

/** The tag the fake release runs, and the bookkeeping a first tick on it leaves: its digests and its topology's fingerprint. */
const TAG = 'stg';
const steadyBookkeeping = (): Record<string, string> => {
  const { topology } = simConfig({ IMAGE_TAG: TAG });
  return {
    ...Object.fromEntries(
      Object.entries(DIGESTS).map(([repo, digest]) => [
        `tracebloc.io/last-refreshed-${repo.split('/')[1]}-digest`,
        digest,
      ]),
    ),
    [topology.keys.topologyFingerprint]: topologyFingerprint(topology),
  };
};

const cluster = await startChartCluster({
  // kubectl sends no token over plain http (fake-api-server.ts): the script needs an open door.
  anonymous: process.env.BENCH_REFERENCE !== undefined,
  annotations: steadyBookkeeping(),
});

/** A halt in force this edge verified before: it halts a digest no image has, so the tick stays steady. */
const keptHalt = renderFleetHalt({
  reason: 'bench: a halt in force that holds nothing this edge runs',
  expires: new Date(Date.now() + 24 * 3_600_000).toISOString().replace(/\.\d{3}Z$/, 'Z'),
  repositories: { 'tracebloc/jobs-manager': { digests: [`sha256:${'5'.repeat(64)}`] } },
});
const haltCluster = FLEET_HALT
  ? await startChartCluster({
      annotations: {
        ...steadyBookkeeping(),
        [simConfig().topology.keys.fleetHaltDigest]: HALT_DIGEST,
        [simConfig().topology.keys.fleetHaltDocument]: JSON.stringify(JSON.parse(keptHalt)),
      },
    })
  : undefined;
/** A promotion this ring-1 edge verified before: it opens ring 1 to the build jobs-manager runs, so the tick stays steady. */
const keptPromotion = renderFleetPromotion([
  {
    image: 'jobs-manager',
    digest: DIGESTS['tracebloc/jobs-manager'] ?? '',
    ring: 1,
    expires: new Date(Date.now() + 24 * 3_600_000).toISOString().replace(/\.\d{3}Z$/, 'Z'),
    evidence: 'bench: 1 edge(s) of rings < 1 ran it for >= 2h clean (min 1)',
  },
]);
const promotionCluster = PROMOTION
  ? await startChartCluster({
      annotations: {
        ...steadyBookkeeping(),
        [simConfig().topology.keys.fleetPromotionDigest]: PROMOTION_DIGEST,
        [simConfig().topology.keys.fleetPromotionDocument]: JSON.stringify(JSON.parse(keptPromotion)),
      },
    })
  : undefined;
const haltKey = join(dir, 'fleet.pub');
writeFileSync(
  haltKey,
  generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey.export({ type: 'spki', format: 'pem' }),
);

const env = {
  PATH: process.env.PATH ?? '/usr/bin:/bin',
  // glibc's malloc raises its mmap and trim thresholds each time it frees a
  // large mmap'd chunk, so later large blocks come from its heap and stay
  // resident once freed: on this Debian host two bundles 1.9 KB apart
  // measured 59.7 and 69.8 MiB of peak RSS for the same steady tick, the
  // difference all in the malloc heap ([heap] in /proc/self/smaps, 4 vs 18
  // MiB), gone with any fixed threshold (2026-12-06). Setting one turns that
  // adjustment off (its starting value here, glibc's default), so the bench
  // measures the tick, not where glibc's thresholds drifted; the image runs
  // on Alpine, whose musl has no such thresholds. BENCH_MALLOC_TRIM= (empty)
  // leaves glibc's dynamic thresholds on, to see the drift.
  ...(process.env.BENCH_MALLOC_TRIM === ''
    ? {}
    : { MALLOC_TRIM_THRESHOLD_: process.env.BENCH_MALLOC_TRIM ?? '131072' }),
  // The image sets it (Node >= 22.1 reads and fills the V8 compile cache there).
  ...(compileCache === undefined ? {} : { NODE_COMPILE_CACHE: compileCache }),
  HOME: dir,
  KUBECONFIG: cluster.kubeconfig.path,
  // Every variable the chart's CronJob sets (the script reads them all).
  ...Object.fromEntries(Object.entries(SIM_ENVIRONMENT).flatMap(([k, v]) => (v === undefined ? [] : [[k, v]]))),
  // The fake release runs the :stg images (fake-api-chart.ts).
  IMAGE_TAG: TAG,
  IMAGE_REFRESH_REGISTRY_URL: registry.url,
  // Docker Hub's realm is known without asking (the script's auth.docker.io);
  // here the bench's own token endpoint stands in for it.
  IMAGE_REFRESH_AUTH_URL: `${registry.url}/token?service=bench`,
};
const reference =
  process.env.BENCH_REFERENCE === undefined
    ? undefined
    : referenceScript(process.env.BENCH_REFERENCE, dir, {
        registryUrl: registry.url,
        kubeconfig: cluster.kubeconfig.path,
      });

interface SteadyCase {
  readonly name: string;
  readonly tag: 'absent' | 'known';
  readonly extra: Readonly<Record<string, string>>;
  readonly cluster: typeof cluster;
}

/** The same steady tick under each case, interleaved run for run, each one's requests counted. */
const benchCases = async (title: string, cases: readonly SteadyCase[]): Promise<void> => {
  const results = cases.map(() => ({ ms: [] as number[], rssKb: [] as number[], api: 0, registry: 0 }));
  for (let i = 0; i < RUNS; i++) {
    for (const [index, c] of cases.entries()) {
      haltTag = c.tag;
      const before = { api: c.cluster.server.requests.length, registry: registry.seen.length };
      const result = await run(['tick'], { ...env, KUBECONFIG: c.cluster.kubeconfig.path, ...c.extra });
      if (result.code !== 0 || !result.stderr.includes('outcome=complete exit=0 findings=0 writes=0 re-images=0')) {
        throw new Error(`${c.name}: the tick was not steady (exit ${result.code}):\n${result.stderr}`);
      }
      const r = results[index];
      if (r === undefined) continue;
      r.ms.push(result.ms);
      r.rssKb.push(result.rssKb);
      r.api += c.cluster.server.requests.length - before.api;
      r.registry += registry.seen.length - before.registry;
    }
  }
  console.log(
    `node ${execFileSync(NODE, ['--version'], { encoding: 'utf8' }).trim()} ${NODE_FLAGS.join(' ')}; ${title}, ${RUNS} interleaved runs each:`,
  );
  for (const [index, c] of cases.entries()) {
    const r = results[index];
    if (r === undefined) continue;
    console.log(
      `  ${c.name}: median ${median(r.ms).toFixed(0)} ms, peak RSS median ${(median(r.rssKb) / 1024).toFixed(1)} MiB; per tick ${r.api / RUNS} Kubernetes requests (Events included), ${r.registry / RUNS} registry requests`,
    );
  }
};

/** BENCH_FLEET_HALT=1: the steady tick unset, with a 404, with a kept halt in force. */
const benchFleetHalt = (): Promise<void> => {
  const withHalt = { FLEET_HALT_REF: `docker.io/${HALT_REPO}:stg-halt`, SIGNATURE_PUBLIC_KEYS: haltKey };
  return benchCases('fleet halt (docs/behaviour.md §3.4b)', [
    { name: 'FLEET_HALT_REF unset', tag: 'absent', extra: {}, cluster },
    { name: 'FLEET_HALT_REF set, no halt (404)', tag: 'absent', extra: withHalt, cluster },
    {
      name: 'FLEET_HALT_REF set, a halt in force seen before',
      tag: 'known',
      extra: withHalt,
      cluster: haltCluster ?? cluster,
    },
  ]);
};

/** BENCH_PROMOTION=1: a ring-1 edge's steady tick unset, with a 404, with a kept promotion. */
const benchPromotion = (): Promise<void> => {
  const ring1 = { ROLLOUT_RING: '1' };
  const withPromotion = {
    ...ring1,
    FLEET_PROMOTION_REF: `docker.io/${HALT_REPO}:${PROMOTION_TAG}`,
    SIGNATURE_PUBLIC_KEYS: haltKey,
  };
  return benchCases('fleet promotion on a ring-1 edge (docs/fleet-promotion.md)', [
    { name: 'FLEET_PROMOTION_REF unset', tag: 'absent', extra: ring1, cluster },
    { name: 'FLEET_PROMOTION_REF set, none published (404)', tag: 'absent', extra: withPromotion, cluster },
    {
      name: 'FLEET_PROMOTION_REF set, a promotion seen before',
      tag: 'known',
      extra: withPromotion,
      cluster: promotionCluster ?? cluster,
    },
  ]);
};

/** BENCH_WINDOW=1: the steady tick with MAINTENANCE_WINDOW unset and set — it reads no clock either way. */
const benchWindow = (): Promise<void> =>
  benchCases('maintenance window (docs/behaviour.md §3.4d)', [
    { name: 'MAINTENANCE_WINDOW unset', tag: 'absent', extra: {}, cluster },
    {
      name: 'MAINTENANCE_WINDOW set',
      tag: 'absent',
      extra: { MAINTENANCE_WINDOW: 'Mon-Fri 01:00-04:00 Europe/Berlin; Sat,Sun 00:00-06:00 Europe/Berlin' },
      cluster,
    },
  ]);

const benchTick = async (): Promise<void> => {
  const version: number[] = [];
  for (let i = 0; i < RUNS; i++) version.push((await run(['--version'], env)).ms);
  const ticks = [];
  const scripts: number[] = [];
  const requests = { api: 0, registry: 0, scriptApi: 0, scriptRegistry: 0 };
  const counted = () => ({ api: cluster.server.requests.length, registry: registry.seen.length });
  for (let i = 0; i < RUNS; i++) {
    const before = counted();
    const result = await run(['tick'], env);
    if (result.code !== 0 || !result.stderr.includes('outcome=complete exit=0 findings=0 writes=0 re-images=0')) {
      throw new Error(`the tick was not steady (exit ${result.code}):\n${result.stderr}`);
    }
    ticks.push(result);
    requests.api += counted().api - before.api;
    requests.registry += counted().registry - before.registry;
    if (reference !== undefined) {
      const beforeScript = counted();
      scripts.push(await reference.run(env));
      requests.scriptApi += counted().api - beforeScript.api;
      requests.scriptRegistry += counted().registry - beforeScript.registry;
    }
  }
  console.log(
    `node ${execFileSync(NODE, ['--version'], { encoding: 'utf8' }).trim()} ${NODE_FLAGS.join(' ')}, ${RUNS} runs each, bundle ${BUNDLE}${compileCache === undefined ? '' : `, compile cache ${compileCache}`}`,
  );
  console.log(`--version: median ${median(version).toFixed(0)} ms`);
  console.log(
    `steady-state tick: median ${median(ticks.map((t) => t.ms)).toFixed(0)} ms, peak RSS median ${(median(ticks.map((t) => t.rssKb)) / 1024).toFixed(1)} MiB (max ${(Math.max(...ticks.map((t) => t.rssKb)) / 1024).toFixed(1)} MiB)`,
  );
  console.log(`  ${/at exit: .*/.exec(ticks.at(-1)?.stderr ?? '')?.[0] ?? ''}`);
  console.log(
    `  API requests per tick: ${requests.api / RUNS}, registry requests per tick: ${requests.registry / RUNS}`,
  );
  if (reference !== undefined) {
    const ours = median(ticks.map((t) => t.ms));
    const theirs = median(scripts);
    console.log(
      `the script (${reference.path}), interleaved: median ${theirs.toFixed(0)} ms; the tick takes ${(ours / theirs).toFixed(2)}× the script's wall time`,
    );
    console.log(
      `  the script's API requests per tick: ${requests.scriptApi / RUNS}, registry requests per tick: ${requests.scriptRegistry / RUNS}`,
    );
  }
};

/** BENCH_AGAINST: `--version` and the steady tick of both bundles, interleaved run for run. */
const benchAgainst = async (other: string): Promise<void> => {
  const bundles = [BUNDLE, other];
  const results = bundles.map(() => ({ version: [] as number[], ms: [] as number[], rssKb: [] as number[] }));
  for (let i = 0; i < RUNS; i++) {
    for (const [index, bundle] of bundles.entries()) {
      const r = results[index];
      if (r === undefined) continue;
      r.version.push((await run(['--version'], env, bundle)).ms);
      const result = await run(['tick'], env, bundle);
      if (result.code !== 0 || !result.stderr.includes('outcome=complete exit=0 findings=0 writes=0 re-images=0')) {
        throw new Error(`${bundle}: the tick was not steady (exit ${result.code}):\n${result.stderr}`);
      }
      r.ms.push(result.ms);
      r.rssKb.push(result.rssKb);
    }
  }
  console.log(
    `node ${execFileSync(NODE, ['--version'], { encoding: 'utf8' }).trim()} ${NODE_FLAGS.join(' ')}, ${RUNS} interleaved runs each${compileCache === undefined ? '' : `, compile cache ${compileCache}`}`,
  );
  const [mine, theirs] = results.map((r) => ({
    version: median(r.version),
    ms: median(r.ms),
    mib: median(r.rssKb) / 1024,
  }));
  if (mine === undefined || theirs === undefined) return;
  for (const [label, m] of [
    [BUNDLE, mine],
    [other, theirs],
  ] as const) {
    console.log(
      `${label}: --version median ${m.version.toFixed(0)} ms; steady-state tick median ${m.ms.toFixed(0)} ms, peak RSS median ${m.mib.toFixed(1)} MiB`,
    );
  }
  console.log(
    `ratio (this bundle / the other): --version ${(mine.version / theirs.version).toFixed(2)}×, tick ${(mine.ms / theirs.ms).toFixed(2)}×, peak RSS ${(mine.mib / theirs.mib).toFixed(2)}×`,
  );
};

try {
  await (AGAINST !== undefined
    ? benchAgainst(AGAINST)
    : FLEET_HALT
      ? benchFleetHalt()
      : PROMOTION
        ? benchPromotion()
        : process.env.BENCH_WINDOW === '1'
          ? benchWindow()
          : benchTick());
} finally {
  await promotionCluster?.close();
  await haltCluster?.close();
  await cluster.close();
  await registry.close();
}
