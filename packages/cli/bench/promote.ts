import { execFileSync, spawn } from 'node:child_process';
import { join } from 'node:path';
import { expositionOf, startStack } from '../test/promote/support/prometheus.js';

// `pnpm bench:promote`: what `image-refresh promote` costs on a fleet of
// 1,000 edges (docs/fleet-promotion.md, "The queries"): a real Pushgateway
// holding 1,000 groupings (rings 0 and 1, three images each), a real
// Prometheus scraping it every second with honor_labels, and the shipped
// bundle (packages/cli/dist/image-refresh.mjs) timed from spawn to exit —
// the median wall time of BENCH_RUNS runs (default 7). BENCH_NODE runs the
// bundle on another Node (the image's Node 24).

const RUNS = Number(process.env.BENCH_RUNS ?? 7);
const EDGES = Number(process.env.BENCH_EDGES ?? 1_000);
const NODE = process.env.BENCH_NODE ?? process.execPath;
const BUNDLE = process.env.BENCH_BUNDLE ?? join(process.cwd(), 'packages/cli/dist/image-refresh.mjs');
const D = `sha256:${'d'.repeat(64)}`;
const OLD = `sha256:${'0'.repeat(64)}`;
const HOUR = 3_600;

const run = (args: readonly string[]): Promise<{ exitCode: number; ms: number; stdout: string }> =>
  new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const child = spawn(NODE, [BUNDLE, ...args], { env: { PATH: process.env.PATH ?? '/usr/bin:/bin' } });
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
    });
    child.on('error', reject);
    child.on('close', (code) =>
      resolve({ exitCode: code ?? -1, ms: Number(process.hrtime.bigint() - started) / 1e6, stdout }),
    );
  });

const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[middle] ?? 0) : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
};

const stack = await startStack();
try {
  const now = Math.floor(Date.now() / 1_000);
  const pushes = Array.from({ length: EDGES }, (_, i) => {
    const ring = i % 10 === 0 ? 0 : 1;
    return {
      grouping: `/job/image-refresh/namespace/shop/edge/edge-${String(i).padStart(4, '0')}`,
      text: expositionOf(
        {
          ring,
          recorded: {
            web: { digest: ring === 0 ? D : OLD, sinceSeconds: now - (ring === 0 ? 3 : 30) * HOUR },
            api: { digest: OLD, sinceSeconds: now - 30 * HOUR },
            jobs: { digest: OLD, sinceSeconds: now - 30 * HOUR },
          },
        },
        now,
      ),
    };
  });
  // Twenty at a time: the gateway takes them quickly, and the bench does not time this.
  for (let at = 0; at < pushes.length; at += 20)
    await Promise.all(pushes.slice(at, at + 20).map((p) => stack.push(p.grouping, p.text)));
  await stack.scraped();
  await stack.scraped();
  const args = ['promote', '--prometheus', stack.prometheusUrl, '--image', 'web', '--digest', D, '--ring', '1'];
  const times: number[] = [];
  let verdict = '';
  for (let i = 0; i < RUNS; i += 1) {
    const result = await run([...args, '--for', '2h', '--json']);
    if (result.exitCode !== 0) throw new Error(`promote exited ${result.exitCode}: ${result.stdout.slice(0, 2_000)}`);
    const json = JSON.parse(result.stdout) as { verdict: string; edgesCounted: number; higherRings: number };
    verdict = `${json.verdict}, ${json.edgesCounted} edges counted, ${json.higherRings} groupings of ring 1 not asked`;
    times.push(result.ms);
  }
  const version = await run(['--version']);
  console.log(
    `bench:promote: ${EDGES} edges, node ${execFileSync(NODE, ['--version']).toString().trim()}: median ${median(times).toFixed(0)} ms wall of ${RUNS} runs (min ${Math.min(...times).toFixed(0)}, max ${Math.max(...times).toFixed(0)}; --version alone ${version.ms.toFixed(0)} ms) — ${verdict}`,
  );
} finally {
  await stack.stop();
}
