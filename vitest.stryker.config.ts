import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

// The vitest configuration Stryker runs (stryker.config.mjs, `pnpm mutation`):
// only the core project, whose src is what is mutated. The other projects need
// a docker-registry and a fake API server and test code that is not mutated;
// the require-tests reporter would fail runs in which Stryker filters a
// project down to no test on purpose.

/**
 * Stryker bails at a mutant's first failing test, and vitest runs the slowest
 * file first. The example scenarios kill most mutants in milliseconds; the
 * property suite, slowest even at Stryker's small sample, goes last.
 */
class ExamplesFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const last = (file: TestSpecification) => (/\/test\/spec\/[\w-]*properties\.test\.ts$/.test(file.moduleId) ? 1 : 0);
    return (await super.sort(files)).sort((a, b) => last(a) - last(b));
  }
}

export default defineConfig({
  test: {
    sequence: { sequencer: ExamplesFirst },
    // A mutant that makes a port call never end hangs the example that awaits
    // it. Stryker's own timeout (~1.5 × the covering tests' time + 5 s) then
    // restarts the worker, which costs more than the mutant itself. Examples
    // take well under a second: at 3 s a hang fails the test and the mutant is
    // simply killed. The property suite sets its own timeout.
    testTimeout: 3_000,
    projects: [
      {
        test: {
          name: 'core',
          root: 'packages/core',
          include: ['test/**/*.test.ts'],
          // Fixes the property suite's seed and sample size under Stryker.
          setupFiles: ['test/support/under-stryker.ts'],
          // One module graph for all files of a run, not one per file. With
          // isolation each file re-imported xstate, fp-ts and the instrumented
          // core: the whole suite took 58 s in Stryker's single worker, 16 s
          // without (2026-12-03), and a mutant covered by tests in many files
          // paid that import once per file. Each run of Stryker's starts its
          // worker afresh, so a static mutant is still loaded with its mutant
          // active (a scoped run of config/staging-config.ts kills its 32
          // static mutants either way); the suite passes unisolated, so no
          // file leans on another's module state.
          isolate: false,
        },
      },
    ],
  },
});
