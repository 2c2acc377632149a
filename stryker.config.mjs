// @ts-check
// Mutation proof (the seeds' practice, automated): every guard of the tick must
// be load-bearing — removing it reddens a test. `pnpm mutation` runs this and
// prints the score; packages/core/test/spec/README.md records the result, and
// EQUIVALENT_MUTANTS.md beside it lists the survivors that cannot be killed.

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  packageManager: 'pnpm',
  // pnpm does not hoist the runner where Stryker's plugin discovery looks.
  plugins: ['@stryker-mutator/vitest-runner'],
  testRunner: 'vitest',
  vitest: { configFile: 'vitest.stryker.config.ts' },
  // The tick and everything it decides with. Not mutated:
  // - src/sim/**: the simulated cluster is test equipment (the world the
  //   property suite and the examples run against), not the product; a mutant
  //   there measures the tests' scaffolding, not the tick.
  // - src/index.ts: only re-exports, no code a mutant could change.
  // - src/machine/diagram.ts: renders the machine as Mermaid for the README and
  //   decides nothing; its test is packages/cli/test/diagram.test.ts (the
  //   README block must equal its output), which this core-only run cannot
  //   see: every mutant there would count as uncovered.
  mutate: [
    'packages/core/src/**/*.ts',
    '!packages/core/src/sim/**',
    '!packages/core/src/index.ts',
    '!packages/core/src/machine/diagram.ts',
  ],
  coverageAnalysis: 'perTest',
  // `pnpm mutation` fails below 85 %: the last full run scored 96.04 %
  // (test/spec/README.md), so a drop of ten points means guards lost their
  // tests. A full run of the 4,243 scored mutants takes about 80 minutes on two
  // cores, so CI (15 minutes) does not run it. Score it with a full run: an
  // incremental re-test of static mutants once counted killed ones surviving
  // (test/spec/README.md, "Static mutants").
  thresholds: { high: 90, low: 85, break: 85 },
  // Two cores here and in CI.
  concurrency: 2,
  reporters: ['clear-text', 'progress', 'html', 'json'],
  clearTextReporter: { allowColor: false, logTests: false, reportMutants: true, reportScoreTable: true },
  htmlReporter: { fileName: 'reports/mutation/mutation.html' },
  jsonReporter: { fileName: 'reports/mutation/mutation.json' },
  tempDirName: '.stryker-tmp',
  cleanTempDir: true,
};
