// `node tools/mutation-overlay.mjs <part.json> <scoped.json> <out.json>`: a
// part's report with the verdicts of a later scoped run laid over it — each
// mutant of the scoped run replaces the part's mutant of the same file,
// mutator, replacement and place. For tests written after a part started:
// Stryker reads the tree once, so a part never sees them, and re-running only
// the lines they test costs minutes where the part costs hours
// (packages/core/test/spec/README.md says which figures are overlays). The
// files' code must be the same in both runs: a mutant of the scoped run with
// no twin in the part stops the overlay instead of being added.
//
// `--whole`: the scoped run mutated each of its files whole, on code that
// changed since the part (a defensive branch that went, a line that moved);
// each of its files then replaces the part's file of that name entirely,
// every mutant of it judged on the new code.
import { readFileSync, writeFileSync } from 'node:fs';

const args = process.argv.slice(2);
const whole = args[0] === '--whole';
const [partPath, scopedPath, outPath] = whole ? args.slice(1) : args;
if (outPath === undefined) {
  console.error('usage: node tools/mutation-overlay.mjs [--whole] <part.json> <scoped.json> <out.json>');
  process.exit(2);
}

const read = (path) => JSON.parse(readFileSync(path, 'utf8'));
const part = read(partPath);
const scoped = read(scopedPath);
const place = ({ location: { start, end } }) => `${start.line}:${start.column}-${end.line}:${end.column}`;
const keyOf = (mutant) => `${mutant.mutatorName}|${mutant.replacement}|${place(mutant)}`;

let replaced = 0;
const changed = {};
for (const [file, { mutants }] of Object.entries(scoped.files)) {
  const target = part.files[file];
  if (target === undefined) {
    console.error(`${file} is not in ${partPath}: nothing to lay the scoped run over`);
    process.exit(1);
  }
  if (whole) {
    console.log(`${file}: the part's ${target.mutants.length} mutants replaced by the scoped run's ${mutants.length}`);
    part.files[file] = scoped.files[file];
    replaced += mutants.length;
    continue;
  }
  const index = new Map(target.mutants.map((m, i) => [keyOf(m), i]));
  for (const mutant of mutants) {
    const at = index.get(keyOf(mutant));
    if (at === undefined) {
      console.error(`${file}: ${keyOf(mutant)} has no twin in ${partPath}: the code differs between the runs`);
      process.exit(1);
    }
    const move = `${target.mutants[at].status} → ${mutant.status}`;
    if (target.mutants[at].status !== mutant.status) changed[move] = (changed[move] ?? 0) + 1;
    target.mutants[at] = {
      ...target.mutants[at],
      status: mutant.status,
      killedBy: mutant.killedBy,
      coveredBy: mutant.coveredBy,
    };
    replaced += 1;
  }
}
writeFileSync(outPath, JSON.stringify(part));
console.log(`${replaced} mutants laid over ${partPath}; verdicts changed: ${JSON.stringify(changed)}`);
