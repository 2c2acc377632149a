// `node tools/profile-by-package.mjs <profile.cpuprofile> <bundle.mjs>`: a
// `node --cpu-prof` profile of an esbuild bundle, its samples summed by the
// package or core folder each sampled function was bundled from (esbuild's
// `// path` comments mark where each module starts), as percentages of the
// profile's time — how README.md's Benchmarks splits a tick between xstate,
// the garbage collector and the core's own code.
import { readFileSync } from 'node:fs';

const [profilePath, bundlePath] = process.argv.slice(2);
if (profilePath === undefined || bundlePath === undefined) {
  console.error('usage: node tools/profile-by-package.mjs <profile.cpuprofile> <bundle.mjs>');
  process.exit(2);
}

/** Where each bundled module starts: its first line and a name for its package or core folder. */
const modulesOf = (bundle) =>
  bundle.split('\n').flatMap((line, i) => {
    const dependency = line.match(/^\/\/ node_modules\/\.pnpm\/(@?[^@/]+(?:\/[^@/]+)?)@/);
    if (dependency !== null) return [{ from: i, name: dependency[1] }];
    const own = line.match(/^\/\/ packages\/([^/]+)\/src\/(?:([^/]+)\/)?/);
    if (own !== null) return [{ from: i, name: `${own[1]}/${own[2] ?? ''}` }];
    const other = line.match(/^\/\/ (packages\/\S+)$/);
    return other === null ? [] : [{ from: i, name: other[1] }];
  });

const modules = modulesOf(readFileSync(bundlePath, 'utf8'));
const bundleUrl = (url) => url.endsWith(bundlePath.split('/').at(-1));
const moduleAt = (line) => {
  let name = '(bundle preamble)';
  for (const m of modules) {
    if (m.from > line) break;
    name = m.name;
  }
  return name;
};

const profile = JSON.parse(readFileSync(profilePath, 'utf8'));
const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
const totals = new Map();
let all = 0;
profile.samples.forEach((id, i) => {
  const { callFrame } = nodes.get(id);
  const where = bundleUrl(callFrame.url)
    ? moduleAt(callFrame.lineNumber)
    : callFrame.url === ''
      ? callFrame.functionName
      : `node: ${callFrame.url.replace(/^node:/, '')}`;
  const dt = profile.timeDeltas[i];
  totals.set(where, (totals.get(where) ?? 0) + dt);
  all += dt;
});
for (const [where, time] of [...totals].sort((a, b) => b[1] - a[1]).filter(([, t]) => t / all >= 0.001))
  console.log(`${((100 * time) / all).toFixed(1).padStart(5)} %  ${where}`);
