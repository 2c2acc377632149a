import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startChartCluster } from '../../k8s-adapter/test/support/fake-api-chart.js';
import { listenLocal } from '../../k8s-adapter/test/support/registry-local-server.js';

// `pnpm bench:cli`: what the CronJob's process costs, measured on the shipped
// bundle (dist/image-refresh.mjs), as the README reports it:
//   - `--version`: median wall time of 15 runs;
//   - a steady-state `tick` (settled, digests recorded, nothing new) against
//     the fake API server and a registry on 127.0.0.1 that asks for a bearer
//     token as Docker Hub does: median wall time and peak RSS of 15 runs.
// Peak RSS is the process's own maxRSS (getrusage), printed at exit by a
// preloaded line; the bench needs no /usr/bin/time.

const RUNS = Number(process.env.BENCH_RUNS ?? 15);
/** The flags the image's ENTRYPOINT passes to node (packages/cli/Dockerfile). */
const NODE_FLAGS = (process.env.BENCH_NODE_FLAGS ?? '--max-semi-space-size=1 --no-opt --no-sparkplug')
  .split(' ')
  .filter((f) => f !== '');
// Run from the repository root (pnpm bench:cli); the bench itself is bundled elsewhere.
const BUNDLE = process.env.BENCH_BUNDLE ?? join(process.cwd(), 'packages/cli/dist/image-refresh.mjs');
const DIGESTS: Record<string, string> = {
  'tracebloc/jobs-manager': `sha256:${'1'.repeat(64)}`,
  'tracebloc/pods-monitor': `sha256:${'2'.repeat(64)}`,
  'tracebloc/resource-monitor': `sha256:${'3'.repeat(64)}`,
};

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
};

const dir = mkdtempSync(join(tmpdir(), 'image-refresh-bench-'));
const preload = join(process.cwd(), 'packages/cli/bench/report-memory.mjs');

const run = (
  args: string[],
  env: Record<string, string>,
): Promise<{ ms: number; rssKb: number; code: number; stderr: string }> =>
  new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, [...NODE_FLAGS, '--import', preload, BUNDLE, ...args], { env });
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
  const repo = /^\/v2\/(.+)\/manifests\/[^/]+$/.exec(url.pathname)?.[1];
  if (request.headers.authorization !== 'Bearer bench-token') {
    response.writeHead(401, {
      'www-authenticate': `Bearer realm="http://127.0.0.1:${registryPort()}/token",service="bench",scope="repository:${repo}:pull"`,
    });
    response.end();
    return;
  }
  response.writeHead(200, {
    'docker-content-digest': DIGESTS[repo ?? ''] ?? '',
    'ratelimit-limit': '100;w=21600',
    'ratelimit-remaining': '97;w=21600',
  });
  response.end();
});
const registryPort = () => registry.port;

const cluster = await startChartCluster({
  annotations: Object.fromEntries(
    Object.entries(DIGESTS).map(([repo, digest]) => [
      `tracebloc.io/last-refreshed-${repo.split('/')[1]}-digest`,
      digest,
    ]),
  ),
});

const env = {
  PATH: process.env.PATH ?? '/usr/bin:/bin',
  // The image sets it (Node >= 22.1 reads and fills the V8 compile cache there).
  ...(process.env.NODE_COMPILE_CACHE === undefined ? {} : { NODE_COMPILE_CACHE: process.env.NODE_COMPILE_CACHE }),
  HOME: dir,
  KUBECONFIG: cluster.kubeconfig.path,
  RELEASE_NAME: 'stg',
  RELEASE_NAMESPACE: 'tracebloc',
  NODE_AGENTS_NAMESPACE: 'tracebloc-node-agents',
  IMAGE_REGISTRY: 'docker.io',
  IMAGE_TAG: 'prod',
  IMAGE_REFRESH_REGISTRY_URL: registry.url,
};

try {
  const version: number[] = [];
  for (let i = 0; i < RUNS; i++) version.push((await run(['--version'], env)).ms);
  const ticks = [];
  for (let i = 0; i < RUNS; i++) {
    const result = await run(['tick'], env);
    if (result.code !== 0 || !result.stderr.includes('outcome=complete exit=0 findings=0 writes=0 re-images=0')) {
      throw new Error(`the tick was not steady (exit ${result.code}):\n${result.stderr}`);
    }
    ticks.push(result);
  }
  console.log(`node ${process.version} ${NODE_FLAGS.join(' ')}, ${RUNS} runs each, bundle ${BUNDLE}`);
  console.log(`--version: median ${median(version).toFixed(0)} ms`);
  console.log(
    `steady-state tick: median ${median(ticks.map((t) => t.ms)).toFixed(0)} ms, peak RSS median ${(median(ticks.map((t) => t.rssKb)) / 1024).toFixed(1)} MiB (max ${(Math.max(...ticks.map((t) => t.rssKb)) / 1024).toFixed(1)} MiB)`,
  );
  console.log(`  ${/at exit: .*/.exec(ticks.at(-1)?.stderr ?? '')?.[0] ?? ''}`);
  console.log(
    `  API requests per tick: ${cluster.server.requests.length / RUNS}, registry requests per tick: ${registry.seen.length / RUNS}`,
  );
} finally {
  await cluster.close();
  await registry.close();
}
