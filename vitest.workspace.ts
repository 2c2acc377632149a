// The test projects, one per package, and packaging/ (the published
// libraries: API guard and a consumer built from the packed tarballs). Vitest
// 4 no longer discovers this file on its own (it silently runs nothing):
// vitest.config.ts imports it.
import { defineProject } from 'vitest/config';

const project = (name: string, extra: Parameters<typeof defineProject>[0]['test'] = {}) =>
  defineProject({
    test: {
      name,
      root: `packages/${name}`,
      include: ['test/**/*.test.ts'],
      ...extra,
    },
  });

export default [
  project('core'),
  project('k8s-adapter'),
  project('cli'),
  defineProject({
    test: {
      name: 'packaging',
      root: 'packaging',
      include: ['test/**/*.test.ts'],
      // Once, before any file: rebuild dist/ if it is older than the sources.
      globalSetup: ['test/support/fresh-dist.ts'],
    },
  }),
];
