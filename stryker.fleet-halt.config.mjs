// @ts-check
// The fleet halt's scoped mutation run (docs/behaviour.md §3.4b): the base
// configuration (stryker.config.mjs), its tests narrowed to the fleet halt's
// own (vitest.stryker.fleet-halt.config.ts), and every test of them run
// against every mutant (no per-test coverage): many of the halt's mutants sit
// in code that runs while a module loads (the document's grammar, exported
// arrow functions, FLEET_HALT_REF's parser run by every `simConfig()` at a
// test file's top), which per-test coverage runs against the one test it
// first saw reach them — and counts as survived. Usage:
//   npx stryker run stryker.fleet-halt.config.mjs --mutate <files and line ranges>
// (packages/core/test/spec/README.md names the scope it was last run with.)

import base from './stryker.config.mjs';

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  ...base,
  vitest: { configFile: 'vitest.stryker.fleet-halt.config.ts' },
  coverageAnalysis: 'off',
  htmlReporter: { fileName: 'reports/mutation/fleet-halt.html' },
  jsonReporter: { fileName: 'reports/mutation/fleet-halt.json' },
};
