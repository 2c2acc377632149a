import { describe, expect, it } from 'vitest';
import {
  AGENTS_NS,
  annotationsOf,
  type ChartOptions,
  generationOf,
  imagesOf,
  JOBS_MANAGER,
  NS,
  RESOURCE_MONITOR,
} from '../support/fake-api-chart.js';
import { KUBECTL, KUBECTL_MISSING, kubectl } from '../support/fake-api-kubectl.js';
import type { JsonObject } from '../support/fake-api-patch.js';
import { chartClusterPerTest, expectModelledTraffic } from './cluster-test-kit.js';

// Before the adapter is tested against the fake API server, the fake is held
// to what the real thing does: real kubectl drives it, and the server's state
// afterwards is what an apiserver's would be. Every case ends with no request
// the fake does not model (the bats stub's exit 97, as an assertion).
// kubectl sends no credentials to a plain-http server (client-go's
// IsConfigTransportTLS), so these servers serve anonymous requests.

const SHA_A = `sha256:${'a'.repeat(64)}`;
const SHA_B = `sha256:${'b'.repeat(64)}`;

const start = chartClusterPerTest({ anonymous: true, stepMs: 40 }, expectModelledTraffic);

/** `kubectl set image` on jobs-manager's api container of a release under `behaviour`, then `kubectl rollout status` on it. */
const rolloutStatusAfterSetImage = async (behaviour: NonNullable<ChartOptions['behaviour']>, timeout: string) => {
  const c = await start({ behaviour });
  await kubectl(c.kubeconfig, ['set', 'image', `deployment/${JOBS_MANAGER}`, `api=docker.io/x@${SHA_A}`]);
  const result = await kubectl(c.kubeconfig, [
    'rollout',
    'status',
    `deployment/${JOBS_MANAGER}`,
    `--timeout=${timeout}`,
  ]);
  return { c, result };
};

/** kubectl arguments in the node agents' namespace, where the resource-monitor DaemonSet lives. */
const inAgentsNamespace = (...args: string[]): string[] => ['-n', AGENTS_NS, ...args];

const managerOwningImage = (object: JsonObject, container: string): string[] =>
  ((object.metadata as JsonObject).managedFields as JsonObject[])
    .filter((entry) => {
      const containers = (
        (((entry.fieldsV1 as JsonObject)['f:spec'] as JsonObject)?.['f:template'] as JsonObject)?.[
          'f:spec'
        ] as JsonObject
      )?.['f:containers'] as JsonObject | undefined;
      return (containers?.[`k:${JSON.stringify({ name: container })}`] as JsonObject | undefined)?.['f:image'];
    })
    .map((entry) => String(entry.manager));

describe.skipIf(KUBECTL === undefined)(`the fake API server under real kubectl (${KUBECTL ?? KUBECTL_MISSING})`, () => {
  it('serves `kubectl get deployment -o json` the object it holds, after the discovery kubectl asks for', async () => {
    const c = await start();
    const result = await kubectl(c.kubeconfig, ['get', 'deployment', JOBS_MANAGER, '-o', 'json']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const object = JSON.parse(result.stdout) as JsonObject;
    expect(imagesOf(object)).toEqual(imagesOf(c.jobsManager()));
    expect((object.metadata as JsonObject).resourceVersion).toBe(
      (c.jobsManager().metadata as JsonObject).resourceVersion,
    );
    expect(new Set(c.server.requests.map((r) => r.route))).toEqual(new Set(['version', 'discovery', 'get']));
  });

  it('answers a missing object with a NotFound Status that kubectl reports as such', async () => {
    const c = await start();
    const result = await kubectl(c.kubeconfig, ['get', 'deployment', 'absent', '-o', 'json']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('Error from server (NotFound): deployments.apps "absent" not found');
  });

  it('sets an annotation with `kubectl annotate --overwrite` (a JSON merge patch): a new generation, as the real apiserver gives a Deployment, and no rollout', async () => {
    const c = await start();
    const before = c.jobsManager();
    const result = await kubectl(c.kubeconfig, [
      'annotate',
      'deployment',
      JOBS_MANAGER,
      'tracebloc.io/refresh-skip-streak=3',
      '--overwrite',
    ]);
    expect(result.code).toBe(0);
    const after = c.jobsManager();
    expect(annotationsOf(after)['tracebloc.io/refresh-skip-streak']).toBe('3');
    // The apiserver's Deployment strategy bumps the generation for an annotation (they are copied to the
    // ReplicaSets); the real control plane showed it (test/contract). The pod template is untouched.
    expect(generationOf(after)).toBe(generationOf(before) + 1);
    expect((after.spec as JsonObject).template).toEqual((before.spec as JsonObject).template);
    expect((after.metadata as JsonObject).resourceVersion).not.toBe((before.metadata as JsonObject).resourceVersion);
    const patch = c.server.requests.find((r) => r.route === 'patch');
    expect(patch?.contentType).toBe('application/merge-patch+json');
    expect(patch?.query.fieldManager).toBe('kubectl-annotate');
  });

  it('removes an annotation with `kubectl annotate key-` and leaves the others', async () => {
    const c = await start({
      annotations: { 'tracebloc.io/refresh-skip-streak': '5', 'tracebloc.io/refresh-attempt': '1' },
    });
    const result = await kubectl(c.kubeconfig, [
      'annotate',
      'deployment',
      JOBS_MANAGER,
      'tracebloc.io/refresh-skip-streak-',
    ]);
    expect(result.code).toBe(0);
    const annotations = annotationsOf(c.jobsManager());
    expect(annotations).not.toHaveProperty('tracebloc.io/refresh-skip-streak');
    expect(annotations['tracebloc.io/refresh-attempt']).toBe('1');
  });

  it('changes one container with `kubectl set image deployment/…` (a strategic merge patch), bumping the generation', async () => {
    const c = await start();
    const before = c.jobsManager();
    const image = `docker.io/tracebloc/jobs-manager@${SHA_A}`;
    const result = await kubectl(c.kubeconfig, ['set', 'image', `deployment/${JOBS_MANAGER}`, `api=${image}`]);
    expect(result.code).toBe(0);
    const after = c.jobsManager();
    expect(imagesOf(after)).toEqual({ ...imagesOf(before), api: image });
    expect(generationOf(after)).toBe(generationOf(before) + 1);
    const patch = c.server.requests.find((r) => r.route === 'patch');
    expect(patch?.contentType).toBe('application/strategic-merge-patch+json');
    // The image's field now belongs to kubectl's manager, no longer Helm's.
    expect(managerOwningImage(after, 'api')).toEqual(['kubectl-set']);
    expect(managerOwningImage(after, 'pods-monitor-container')).toEqual(['helm']);
  });

  it('changes the DaemonSet in its own namespace with `kubectl set image daemonset/…`', async () => {
    const c = await start();
    const image = `docker.io/tracebloc/resource-monitor@${SHA_B}`;
    const result = await kubectl(
      c.kubeconfig,
      inAgentsNamespace('set', 'image', `daemonset/${RESOURCE_MONITOR}`, `tracebloc-resource-monitor=${image}`),
    );
    expect(result.code).toBe(0);
    expect(imagesOf(c.resourceMonitor())).toEqual({ 'tracebloc-resource-monitor': image });
    expect(generationOf(c.resourceMonitor())).toBe(2);
  });

  it('lets `kubectl rollout status` follow a rollout that settles, through its watch', async () => {
    const { c, result } = await rolloutStatusAfterSetImage('settles', '10s');
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`deployment "${JOBS_MANAGER}" successfully rolled out`);
    expect(c.server.requests.some((r) => r.route === 'watch')).toBe(true);
  });

  it('times `kubectl rollout status` out on a rollout that stalls, having said what it waits for', async () => {
    const { result } = await rolloutStatusAfterSetImage('stalls', '1s');
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('0 of 1 updated replicas are available');
    expect(result.stderr).toContain('timed out waiting for the condition');
  });

  it('shows `kubectl rollout status` a pod that never becomes Ready as an old replica pending termination', async () => {
    const { result } = await rolloutStatusAfterSetImage('neverReady', '1s');
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('1 old replicas are pending termination');
  });

  it('fails `kubectl rollout status` when the progress deadline is exceeded', async () => {
    const { result } = await rolloutStatusAfterSetImage('progressDeadline', '10s');
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`deployment "${JOBS_MANAGER}" exceeded its progress deadline`);
  });

  it('lets `kubectl rollout status` follow a DaemonSet rollout to the end', async () => {
    const c = await start({ behaviour: 'settles' });
    await kubectl(
      c.kubeconfig,
      inAgentsNamespace(
        'set',
        'image',
        `daemonset/${RESOURCE_MONITOR}`,
        `tracebloc-resource-monitor=docker.io/x@${SHA_B}`,
      ),
    );
    const result = await kubectl(
      c.kubeconfig,
      inAgentsNamespace('rollout', 'status', `daemonset/${RESOURCE_MONITOR}`, '--timeout=10s'),
    );
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`daemon set "${RESOURCE_MONITOR}" successfully rolled out`);
  });

  it('shows kubectl an OnDelete DaemonSet, whose rollout status is an error', async () => {
    const c = await start({ daemonSetStrategy: 'OnDelete' });
    const result = await kubectl(
      c.kubeconfig,
      inAgentsNamespace('rollout', 'status', `daemonset/${RESOURCE_MONITOR}`, '--timeout=5s'),
    );
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('rollout status is only available for RollingUpdate strategy type');
  });

  it('hands kubectl an injected fault as the real Status body it would meet', async () => {
    const c = await start();
    c.server.inject(
      { route: 'get', name: JOBS_MANAGER },
      {
        kind: 'status',
        code: 403,
        message: `deployments.apps "${JOBS_MANAGER}" is forbidden: User "system:serviceaccount:${NS}:image-refresh" cannot get resource "deployments"`,
      },
    );
    const result = await kubectl(c.kubeconfig, ['get', 'deployment', JOBS_MANAGER, '-o', 'json']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('Error from server (Forbidden)');
    expect(result.stderr).toContain('cannot get resource "deployments"');
  });

  it('refuses a request it does not model with a 501, and records it as unexpected', async () => {
    const c = await start();
    const result = await kubectl(c.kubeconfig, ['get', 'pods', '-o', 'json']);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain('fake API server');
    const refused = c.server.unexpected.map((r) => [r.method, r.path, r.status]);
    expect(refused).toEqual([['GET', `/api/v1/namespaces/${NS}/pods`, 501]]);
    c.server.resetLog(); // this case's unexpected request is the point; the afterEach check is for the others
  });
});
