// The test projects, one per package, and packaging/ (the published
// libraries: API guard and a consumer built from the packed tarballs). Vitest
// 4 no longer discovers this file on its own (it silently runs nothing):
// vitest.config.ts imports it.
import { defineProject } from 'vitest/config';

// test/real-cluster/ of each package runs in the real-cluster project only.
const REAL_CLUSTER = 'test/real-cluster/**';

const project = (name: string, extra: Parameters<typeof defineProject>[0]['test'] = {}) =>
  defineProject({
    test: {
      name,
      root: `packages/${name}`,
      include: ['test/**/*.test.ts'],
      exclude: ['**/node_modules/**', REAL_CLUSTER],
      ...extra,
    },
  });

// The image runs Node 24 LTS; this machine and CI have Node 20. Where a Node
// 24 binary is given (.ci/run fetches one and sets IMAGE_REFRESH_NODE24), the
// bundle's end-to-end suites run a second time with the CLI's child processes
// on it (run-bundle.ts reads IMAGE_REFRESH_BUNDLE_NODE). CI requires it.
const NODE24 = process.env.IMAGE_REFRESH_NODE24;
if (process.env.IMAGE_REFRESH_CI === '1' && NODE24 === undefined) {
  throw new Error(
    'IMAGE_REFRESH_CI=1 but IMAGE_REFRESH_NODE24 is not set: CI runs the bundle on Node 24 too (.ci/run)',
  );
}

export default [
  project('core'),
  project('k8s-adapter'),
  project('cli'),
  ...(NODE24 === undefined
    ? []
    : [
        project('cli', {
          name: 'cli@node24',
          include: ['test/e2e/**/*.test.ts'],
          env: { IMAGE_REFRESH_BUNDLE_NODE: NODE24 },
        }),
      ]),
  // The adapter's port contract and the CLI's stories on a real control plane
  // (kube-apiserver, etcd, the controllers, kwok; tools/control-plane), one
  // cluster per run, started by the global setup. Files run one at a time:
  // each stages its releases in namespaces of its own, and on two cores the
  // controllers' pace, not the tests', is what a rollout waits for.
  defineProject({
    test: {
      name: 'real-cluster',
      root: '.',
      include: [`packages/k8s-adapter/${REAL_CLUSTER}/*.test.ts`, `packages/cli/${REAL_CLUSTER}/*.test.ts`],
      globalSetup: ['packages/k8s-adapter/test/support/real-cluster/global-setup.ts'],
      fileParallelism: false,
      testTimeout: 60_000,
      hookTimeout: 120_000,
    },
  }),
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
