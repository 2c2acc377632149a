// `pnpm bench:against <tree> [runs]`: the simulator's throughput of this tree
// and of another checkout (a `git worktree add` of an older commit, with its
// own `pnpm install`), measured in one run, interleaved — this tree, that
// tree, this tree, … — so both see the same machine at the same moments. Each
// run is a fresh process of its tree's own `bench/throughput.ts`; the medians
// and their ratio are printed. On a shared machine the interleaving is what
// makes the ratio mean something; the absolute figures still move with load.
import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';

const [other, runsArg = '7'] = process.argv.slice(2);
if (other === undefined) {
  console.error('usage: pnpm bench:against <path of another checkout> [runs, default 7]');
  process.exit(2);
}
const runs = Number.parseInt(runsArg, 10);
if (!Number.isInteger(runs) || runs < 1) {
  console.error(`runs must be a positive integer, not ${runsArg}`);
  process.exit(2);
}

const here = resolve(import.meta.dirname, '../../..');
const outDir = join(here, 'node_modules/.cache/bench');
mkdirSync(outDir, { recursive: true });

/** Bundle a tree's own benchmark with that tree's own esbuild and dependencies. */
const bundle = (tree, name) => {
  const outfile = join(outDir, `${name}.mjs`);
  execFileSync(
    join(tree, 'node_modules/.bin/esbuild'),
    [
      'packages/core/bench/throughput.ts',
      '--bundle',
      '--platform=node',
      '--format=esm',
      '--log-level=warning',
      `--outfile=${outfile}`,
    ],
    { cwd: tree, stdio: 'inherit' },
  );
  return outfile;
};

const trees = [
  { label: 'this tree', file: bundle(here, 'throughput-this') },
  { label: resolve(other), file: bundle(resolve(other), 'throughput-other') },
];
const results = trees.map(() => new Map());
for (let run = 0; run < runs; run += 1) {
  trees.forEach((tree, i) => {
    const out = execFileSync(process.execPath, [tree.file], { encoding: 'utf8' });
    for (const [, label, perSecond] of out.matchAll(/^(.+): (\d+) ticks\/s$/gm)) {
      const seen = results[i].get(label) ?? [];
      seen.push(Number(perSecond));
      results[i].set(label, seen);
    }
  });
}
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 === 1 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
console.log(`${runs} interleaved runs each, Node ${process.version}`);
for (const label of results[0].keys()) {
  const mine = median(results[0].get(label));
  const theirs = median(results[1].get(label) ?? [Number.NaN]);
  console.log(
    `${label}: this tree ${Math.round(mine)} ticks/s, ${trees[1].label} ${Math.round(theirs)} ticks/s, ratio ${(mine / theirs).toFixed(2)}× (this tree: ${results[0].get(label).join(', ')}; other: ${(results[1].get(label) ?? []).join(', ')})`,
  );
}
