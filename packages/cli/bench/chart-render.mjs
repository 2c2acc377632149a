// `pnpm bench:chart`: what rendering the chart costs (charts/image-refresh,
// docs/helm.md), as the README reports it — `helm template` with the helm of
// tools/helm, for the default (the chart tracebloc/client's topology, three
// workloads) and a six-workload profile in three namespaces
// (ci/six-workloads-values.yaml): median wall time of BENCH_RUNS runs (default
// 15), interleaved, and the objects each renders. Needs a built helm
// (`node tools/helm/build.mjs`).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { binDir, helmPath, isBuilt } from '../../../tools/helm/binaries.mjs';

const CHART = new URL('../../../charts/image-refresh/', import.meta.url).pathname;
const RUNS = Number(process.env.BENCH_RUNS ?? 15);
const IMAGE = [
  '--set',
  'image.repository=registry.example/image-refresh',
  '--set',
  `image.digest=sha256:${'a'.repeat(64)}`,
];
const CASES = {
  'default (3 workloads, 2 namespaces)': ['--namespace', 'tracebloc', '--set', 'imageTag=prod'],
  'six workloads, 3 namespaces, PREPULL=on': ['--namespace', 'apps', '-f', `${CHART}ci/six-workloads-values.yaml`],
};

if (process.env.IMAGE_REFRESH_HELM_BIN === undefined && !isBuilt(binDir())) {
  console.error('bench:chart: helm is not built; run node tools/helm/build.mjs first');
  process.exit(1);
}
const home = mkdtempSync(join(tmpdir(), 'image-refresh-bench-chart-'));
const env = {
  PATH: process.env.PATH ?? '',
  HOME: home,
  HELM_CACHE_HOME: home,
  HELM_CONFIG_HOME: home,
  HELM_DATA_HOME: home,
};

const once = (args) => {
  const began = process.hrtime.bigint();
  const run = spawnSync(helmPath(), ['template', 'stg', CHART, ...IMAGE, ...args], { env, encoding: 'utf8' });
  const ms = Number(process.hrtime.bigint() - began) / 1e6;
  if (run.status !== 0) throw new Error(run.stderr);
  return { ms, objects: run.stdout.split(/^---$/m).filter((d) => /^kind:/m.test(d)).length };
};

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
};

try {
  const times = Object.fromEntries(Object.keys(CASES).map((name) => [name, []]));
  const objects = {};
  for (let i = 0; i < RUNS; i += 1) {
    for (const [name, args] of Object.entries(CASES)) {
      const run = once(args);
      times[name].push(run.ms);
      objects[name] = run.objects;
    }
  }
  console.log(`helm template, median of ${RUNS} (${process.platform}/${process.arch}):`);
  for (const name of Object.keys(CASES)) {
    console.log(`  ${name}: ${median(times[name]).toFixed(0)} ms, ${objects[name]} objects`);
  }
} finally {
  rmSync(home, { recursive: true, force: true });
}
