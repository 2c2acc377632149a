import { afterAll, beforeAll, expect, it } from 'vitest';
import { BUILD_TIMEOUT_MS, ensureBundle } from './support/bundle.js';
import { type Stage, startStage } from './support/cluster-stage.js';

// A tick that really talks to a cluster prints nothing of Node's own. On Node
// 24 (the image) node-fetch 2, which @kubernetes/client-node 1.4 sends every
// request through, parsed each URL with the legacy url.parse(): a DEP0169
// DeprecationWarning on stderr at every run, in the Job log an operator greps
// (build/url-parse-shim.cjs). Node 20 prints it only under
// --pending-deprecation, so the run asks for it. bundle-process.test.ts
// checks a tick that never reached a cluster; this one reads the fake API
// server. Mutation that reddens it: dropping the node-fetch plugin from
// build/bundle.mjs.

let stage: Stage;

beforeAll(async () => {
  await ensureBundle();
  // No registry listens here: the tick reads the cluster, then warns that it
  // could not resolve (refused on 127.0.0.1), which is all this test needs.
  stage = await startStage({ url: 'http://127.0.0.1:9', seen: [] });
}, BUILD_TIMEOUT_MS);

afterAll(async () => {
  await stage.close();
});

it('a tick that reads the jobs-manager Deployment through client-node prints no Node warning', async () => {
  const run = await stage.tick({ NODE_OPTIONS: '--pending-deprecation' });
  expect(run.api.length).toBeGreaterThan(0);
  const nodeLines = run.stderr.filter((line) => /^\(node:\d+\)|Warning: |--trace-(deprecation|warnings)/.test(line));
  expect(nodeLines).toEqual([]);
});
