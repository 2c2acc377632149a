import { defineConfig } from 'vitest/config';

// The vitest configuration of the fleet halt's static mutants
// (docs/behaviour.md §3.4b): those Stryker reaches while modules load — the
// document's grammar, FLEET_HALT_REF's parser run by every `simConfig()` at
// a test file's top — which `pnpm mutation` runs against every test of core.
// Here they run against the fleet halt's own tests only, so a scoped run
// takes minutes:
//   npx stryker run --vitest.configFile vitest.stryker.fleet-halt.config.ts \
//     --mutate packages/core/src/domain/fleet-halt.ts,packages/core/src/config/fleet-halt-config.ts
// A mutant they do not kill may still be killed by the whole suite.

export default defineConfig({
  test: {
    testTimeout: 3_000,
    projects: [
      {
        test: {
          name: 'core',
          root: 'packages/core',
          include: [
            'test/fleet-halt*.test.ts',
            'test/spec/fleet-halt.properties.test.ts',
            'test/operator-lines.golden.test.ts',
            'test/config.test.ts',
          ],
          setupFiles: ['test/support/under-stryker.ts'],
        },
      },
    ],
  },
});
