import { describePortError, type StagingRequest, type StagingResult } from '@image-refresh/core';
import * as E from 'fp-ts/lib/Either.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { workloadRef } from '../../../core/test/support/chart.js';
import { createStagingPort, type StagingPortOptions } from '../../src/staging/create-staging-port.js';
import { kubeConfigAt, testConfig } from '../cluster/cluster-test-kit.js';
import { writeFakeKubeconfig } from '../support/fake-api-kubeconfig.js';
import { type FakePodsServer, startFakePodsServer } from './support/fake-pods-server.js';

// PREPULL's staging port (docs/behaviour.md §3.5a) against an API server that
// models pods and a kubelet: the nodes a workload runs on, a staging pod on
// each (its spec exactly as that section states it), polled until
// its containers left the pull, deleted; PREPULL_PARALLEL nodes at once;
// PREPULL_TIMEOUT the call's deadline; pods a killed tick left found by label;
// every pod deleted before the answer, interrupted too.

const config = testConfig();
const JM = workloadRef(config, 'jobs-manager');
const RP = workloadRef(config, 'requests-proxy');
const RM = workloadRef(config, 'resource-monitor');
const IMAGE = `docker.io/tracebloc/jobs-manager@sha256:${'1'.repeat(64)}`;
const RM_IMAGE = `docker.io/tracebloc/resource-monitor@sha256:${'2'.repeat(64)}`;
const FAST: StagingPortOptions = { pollIntervalMs: 25, progressIntervalMs: 60_000 };

let server: FakePodsServer;
beforeEach(async () => {
  server = await startFakePodsServer();
  server.runWorkload('Deployment', JM.namespace, JM.name, ['edge-1']);
  server.runWorkload('Deployment', RP.namespace, RP.name, ['edge-1']);
  server.runWorkload('DaemonSet', RM.namespace, RM.name, ['edge-1', 'edge-2', 'edge-3']);
});
afterEach(async () => {
  expect(server.unexpected).toEqual([]);
  await server.close();
});

const portWith = (options: StagingPortOptions = {}) =>
  createStagingPort(kubeConfigAt(writeFakeKubeconfig(server)), config, { ...FAST, ...options });
const request = (targets: StagingRequest['targets'], timeoutMs = 2_000, parallel = 1): StagingRequest => ({
  targets,
  timeoutMs,
  parallel,
});
const stage = async (req: StagingRequest, options?: StagingPortOptions): Promise<readonly StagingResult[]> => {
  const answer = await portWith(options).stage(req)();
  if (E.isLeft(answer)) throw new Error(describePortError(answer.left));
  return answer.right;
};
const creates = () => server.requests.filter((r) => r.method === 'POST').map((r) => JSON.parse(r.body));

describe('createStagingPort', () => {
  it('stages each workload on the nodes its pods run on, with the pod docs/behaviour.md §3.5a describes, and deletes every pod', async () => {
    const results = await stage(
      request([
        { workload: JM, images: [IMAGE] },
        { workload: RM, images: [RM_IMAGE] },
      ]),
    );
    expect(results).toEqual([
      { _tag: 'Staged', nodes: ['edge-1'] },
      { _tag: 'Staged', nodes: ['edge-1', 'edge-2', 'edge-3'] },
    ]);
    const [pod] = creates();
    expect(pod.metadata.labels).toEqual({
      'app.kubernetes.io/managed-by': 'image-refresh',
      'image-refresh.tracebloc.io/staging-for': `deployment.${JM.name}`,
      'image-refresh.tracebloc.io/staging-images': expect.stringMatching(/^[0-9a-f]{40}$/),
    });
    expect(pod.spec).toMatchObject({
      nodeName: 'edge-1',
      restartPolicy: 'Never',
      automountServiceAccountToken: false,
      imagePullSecrets: [{ name: 'regcred' }],
      tolerations: [{ key: 'node-role.kubernetes.io/edge', operator: 'Exists', effect: 'NoSchedule' }],
      activeDeadlineSeconds: 62,
      containers: [
        {
          name: 'stage-0',
          image: IMAGE,
          imagePullPolicy: 'IfNotPresent',
          command: ['/image-refresh-staging-pulls-only'],
          resources: { requests: { cpu: '1m', memory: '1Mi' } },
        },
      ],
    });
    expect(creates().map((p) => `${p.metadata.namespace} ${p.spec.nodeName}`)).toEqual([
      `${JM.namespace} edge-1`,
      `${RM.namespace} edge-1`,
      `${RM.namespace} edge-2`,
      `${RM.namespace} edge-3`,
    ]);
    expect(server.requests.filter((r) => r.method === 'DELETE')).toHaveLength(4);
    expect(server.stagingPods()).toEqual([]);
  });

  it('a node whose pull failed (ImagePullBackOff): not staged at once, naming the node and the kubelet’s words; the others go on; its pod deleted', async () => {
    server.pullMs.set(`edge-2 ${RM_IMAGE}`, Number.POSITIVE_INFINITY);
    const started = Date.now();
    const results = await stage(request([{ workload: RM, images: [RM_IMAGE] }], 30_000, 1));
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(results).toEqual([
      {
        _tag: 'NotStaged',
        failures: [{ node: 'edge-2', reason: `ImagePullBackOff: Back-off pulling image "${RM_IMAGE}"` }],
        staged: ['edge-1', 'edge-3'],
      },
    ]);
    expect(server.stagingPods()).toEqual([]);
  });

  it('no pod is started once PREPULL_TIMEOUT has passed: the nodes after it fail, unasked', async () => {
    server.pullMs.set(`edge-1 ${RM_IMAGE}`, 5_000);
    const [result] = await stage(request([{ workload: RM, images: [RM_IMAGE] }], 300, 1));
    expect(result).toEqual({
      _tag: 'NotStaged',
      failures: [
        { node: 'edge-1', reason: 'still pulling when PREPULL_TIMEOUT=300ms passed (ContainerCreating)' },
        { node: 'edge-2', reason: 'PREPULL_TIMEOUT=300ms passed before its turn' },
        { node: 'edge-3', reason: 'PREPULL_TIMEOUT=300ms passed before its turn' },
      ],
      staged: [],
    });
    expect(creates().map((p) => p.spec.nodeName)).toEqual(['edge-1']);
    expect(server.stagingPods()).toEqual([]);
  });

  it('PREPULL_PARALLEL nodes pull at once, and no more', async () => {
    for (const node of ['edge-1', 'edge-2', 'edge-3']) server.pullMs.set(`${node} ${RM_IMAGE}`, 200);
    const most = async (parallel: number) => {
      let peak = 0;
      const watch = setInterval(() => {
        peak = Math.max(peak, server.stagingPods().length);
      }, 10);
      try {
        await stage(request([{ workload: RM, images: [RM_IMAGE] }], 5_000, parallel));
      } finally {
        clearInterval(watch);
      }
      return peak;
    };
    expect(await most(1)).toBe(1);
    server.pullMs.clear();
    for (const node of ['edge-1', 'edge-2', 'edge-3']) server.pullMs.set(`${node} ${IMAGE}`, 200);
    expect(
      await (async () => {
        let peak = 0;
        const watch = setInterval(() => {
          peak = Math.max(peak, server.stagingPods().length);
        }, 10);
        try {
          await stage(request([{ workload: RM, images: [IMAGE] }], 5_000, 3));
        } finally {
          clearInterval(watch);
        }
        return peak;
      })(),
    ).toBe(3);
  });

  it('a pod an earlier, killed tick left is reused when it is this very staging, removed when it is another', async () => {
    await stage(request([{ workload: JM, images: [IMAGE] }]));
    const [made] = creates();
    // A killed tick left that same pod, and one of another build for requests-proxy.
    server.pods.get(JM.namespace)?.set(made.metadata.name, made);
    const other = {
      ...made,
      metadata: {
        ...made.metadata,
        name: 'stg-requests-proxy-staging-old',
        labels: { ...made.metadata.labels, 'image-refresh.tracebloc.io/staging-for': `deployment.${RP.name}` },
      },
    };
    server.pods.get(JM.namespace)?.set(other.metadata.name, other);
    server.requests.length = 0;
    expect(await stage(request([{ workload: JM, images: [IMAGE] }]))).toEqual([{ _tag: 'Staged', nodes: ['edge-1'] }]);
    expect(creates()).toEqual([]);
    expect(
      server.requests
        .filter((r) => r.method === 'DELETE')
        .map((r) => r.path.split('/').at(-1))
        .sort(),
    ).toEqual([made.metadata.name, other.metadata.name].sort());
    expect(server.stagingPods()).toEqual([]);
  });

  it('a refused create or an unreadable workload is that workload not staged, saying why', async () => {
    server.fail(`POST /api/v1/namespaces/${JM.namespace}/pods`, 403);
    const results = await stage(
      request([
        { workload: JM, images: [IMAGE] },
        { workload: { ...RP, name: 'gone' }, images: [IMAGE] },
      ]),
    );
    expect(results[0]).toEqual({
      _tag: 'NotStaged',
      failures: [
        {
          node: 'edge-1',
          reason: expect.stringMatching(
            /^could not create a staging pod: Forbidden \(HTTP 403\): CREATE pod\/stg-jobs-manager-staging-[0-9a-f]{12} in tracebloc: pods is forbidden/,
          ),
        },
      ],
      staged: [],
    });
    expect(results[1]).toEqual({
      _tag: 'NotStaged',
      failures: [
        {
          reason: expect.stringMatching(
            /^NotFound \(HTTP 404\): GET deployment\/gone in tracebloc: deployments.apps "gone" not found/,
          ),
        },
      ],
      staged: [],
    });
  });

  it('a request the API server never answers ends at API_TIMEOUT, and that node is not staged', async () => {
    server.fail(`POST /api/v1/namespaces/${JM.namespace}/pods`, 0);
    const started = Date.now();
    const [result] = await stage(request([{ workload: JM, images: [IMAGE] }], 30_000));
    expect(Date.now() - started).toBeLessThan(config.apiTimeoutMs + 1_500);
    expect(result).toEqual({
      _tag: 'NotStaged',
      failures: [
        {
          node: 'edge-1',
          reason: expect.stringMatching(
            /^could not create a staging pod: Timeout: CREATE pod\/\S+ in tracebloc: no answer within 1000 ms \(API_TIMEOUT\)/,
          ),
        },
      ],
      staged: [],
    });
  });

  it('interrupted while a node pulls: it answers at once, and its pods are deleted first', async () => {
    server.pullMs.set(`edge-1 ${IMAGE}`, 60_000);
    const interrupt = new AbortController();
    const started = Date.now();
    setTimeout(() => interrupt.abort(new Error('SIGTERM')), 150);
    const results = await stage(request([{ workload: JM, images: [IMAGE] }], 60_000), { abortReads: interrupt.signal });
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(results).toEqual([
      {
        _tag: 'NotStaged',
        failures: [{ node: 'edge-1', reason: 'interrupted while it pulled (ContainerCreating)' }],
        staged: [],
      },
    ]);
    expect(server.stagingPods()).toEqual([]);
  });

  it('a deletion that fails is said, and the next staging removes the pod', async () => {
    server.fail(`DELETE /api/v1/namespaces/${JM.namespace}/pods/`, 403, 2);
    const said: string[] = [];
    await stage(request([{ workload: JM, images: [IMAGE] }]), { onProgress: (line) => said.push(line) });
    expect(said).toEqual([
      expect.stringMatching(
        /^WARN: could not delete staging pod stg-jobs-manager-staging-[0-9a-f]{12} in tracebloc \(Forbidden \(HTTP 403\)/,
      ),
    ]);
    expect(server.stagingPods()).toHaveLength(1);
    await stage(request([{ workload: RP, images: [IMAGE] }]));
    expect(server.stagingPods()).toEqual([]);
  });

  it('says what each node still pulls while it waits', async () => {
    server.pullMs.set(`edge-1 ${IMAGE}`, 250);
    const said: string[] = [];
    await stage(request([{ workload: JM, images: [IMAGE] }]), {
      progressIntervalMs: 100,
      onProgress: (l) => said.push(l),
    });
    expect(said[0]).toMatch(
      /^staging on edge-1 for deployment\/stg-jobs-manager: ContainerCreating \(\d+ms of PREPULL_TIMEOUT=2s\)$/,
    );
  });
});
