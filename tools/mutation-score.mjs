// `node tools/mutation-score.mjs <report.json>...`: the mutation score of one
// or more Stryker JSON reports taken together, as Stryker computes it —
// detected (Killed, Timeout) over detected plus undetected (Survived,
// NoCoverage); Ignored, CompileError and RuntimeError count on neither side.
// Reports of disjoint `--mutate` scopes of one tree sum to the score of the
// whole (tools/mutation-in-parts.sh; packages/core/test/spec/README.md).
import { readFileSync } from 'node:fs';

const paths = process.argv.slice(2);
if (paths.length === 0) {
  console.error('usage: node tools/mutation-score.mjs <report.json>...');
  process.exit(2);
}

const STATUSES = ['Killed', 'Timeout', 'Survived', 'NoCoverage', 'Ignored', 'CompileError', 'RuntimeError'];
const totals = Object.fromEntries(STATUSES.map((s) => [s, 0]));
const seen = new Set();
for (const path of paths) {
  const report = JSON.parse(readFileSync(path, 'utf8'));
  for (const [file, { mutants }] of Object.entries(report.files)) {
    // Two reports that mutate the same file would count its mutants twice.
    if (seen.has(file)) {
      console.error(`${file} is in more than one report: the scopes overlap`);
      process.exit(1);
    }
    seen.add(file);
    for (const mutant of mutants) {
      if (!(mutant.status in totals)) {
        console.error(`${file}: mutant ${mutant.id} has an unknown status ${mutant.status}`);
        process.exit(1);
      }
      totals[mutant.status] += 1;
    }
  }
}

const detected = totals.Killed + totals.Timeout;
const undetected = totals.Survived + totals.NoCoverage;
const percent = (n, d) => (d === 0 ? 'n/a' : `${((100 * n) / d).toFixed(2)} %`);
console.log(
  `${seen.size} files, ${detected + undetected} scored mutants (${totals.Ignored} ignored, ${totals.CompileError + totals.RuntimeError} errors)`,
);
console.log(STATUSES.map((s) => `${s} ${totals[s]}`).join(', '));
console.log(
  `score ${percent(detected, detected + undetected)}, of covered ${percent(detected, detected + totals.Survived)}`,
);
