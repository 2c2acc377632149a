import { execFileSync } from 'node:child_process';
import { ENV, parseTickConfig, worstCaseTickMs } from '@image-refresh/core';
import { loadAllYaml } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { requireBinary } from './support/require-binary.js';

// The kustomize base renders, grants exactly what a tick uses, and sets the
// chart's environment contract — checked on kubectl's own rendering.

const kubectl = requireBinary('kubectl', 'kubectl is on every machine of this kind; install kubectl 1.32');
const DEPLOY = new URL('../deploy', import.meta.url).pathname;

interface Rule {
  apiGroups: string[];
  resources: string[];
  resourceNames?: string[];
  verbs: string[];
}
interface Manifest {
  kind: string;
  metadata: { name: string; namespace?: string };
  rules?: Rule[];
  spec?: unknown;
}

const render = (): Manifest[] =>
  loadAllYaml(execFileSync(kubectl.path, ['kustomize', DEPLOY], { encoding: 'utf8' })) as Manifest[];

/** The shipped CronJob's Job spec and its container's environment. */
const shippedJob = () => {
  const cronJob = render().find((m) => m.kind === 'CronJob') as unknown as {
    spec: {
      jobTemplate: {
        spec: {
          activeDeadlineSeconds: number;
          template: { spec: { containers: { env: { name: string; value?: string }[] }[] } };
        };
      };
    };
  };
  const job = cronJob.spec.jobTemplate.spec;
  return { job, env: Object.fromEntries((job.template.spec.containers[0]?.env ?? []).map((e) => [e.name, e.value])) };
};
describe.skipIf(kubectl.skip)('deploy/ (kustomize base)', () => {
  it('grants get/patch on the two Deployments and the one DaemonSet by name, events create/patch, and nothing else', () => {
    const roles = render().filter((m) => m.kind === 'Role');
    expect(
      roles
        .map((r) => ({ namespace: r.metadata.namespace, rules: r.rules }))
        .sort((a, b) => String(a.namespace).localeCompare(String(b.namespace))),
    ).toEqual([
      {
        namespace: 'tracebloc',
        rules: [
          {
            apiGroups: ['apps'],
            resources: ['deployments'],
            resourceNames: ['stg-jobs-manager', 'stg-requests-proxy'],
            verbs: ['get', 'patch'],
          },
          { apiGroups: ['events.k8s.io'], resources: ['events'], verbs: ['create', 'patch'] },
        ],
      },
      {
        namespace: 'tracebloc-node-agents',
        rules: [
          {
            apiGroups: ['apps'],
            resources: ['daemonsets'],
            resourceNames: ['stg-resource-monitor'],
            verbs: ['get', 'patch'],
          },
        ],
      },
    ]);
    expect(render().filter((m) => m.kind === 'ClusterRole' || m.kind === 'ClusterRoleBinding')).toEqual([]);
  });

  it('runs `tick` non-root on a read-only root, never two at once, with a deadline above 3 × ROLLOUT_TIMEOUT', () => {
    const cronJob = render().find((m) => m.kind === 'CronJob') as unknown as {
      spec: {
        concurrencyPolicy: string;
        jobTemplate: {
          spec: {
            activeDeadlineSeconds: number;
            template: {
              spec: {
                securityContext: { runAsNonRoot: boolean };
                containers: {
                  args: string[];
                  env: { name: string; value: string }[];
                  securityContext: { readOnlyRootFilesystem: boolean };
                }[];
              };
            };
          };
        };
      };
    };
    const job = cronJob.spec.jobTemplate.spec;
    const [container] = job.template.spec.containers;
    expect(cronJob.spec.concurrencyPolicy).toBe('Forbid');
    expect(container?.args).toEqual(['tick']);
    expect(job.template.spec.securityContext.runAsNonRoot).toBe(true);
    expect(container?.securityContext.readOnlyRootFilesystem).toBe(true);
    const rollout = container?.env.find((e) => e.name === 'ROLLOUT_TIMEOUT')?.value;
    expect(rollout).toBe('10m');
    expect(job.activeDeadlineSeconds).toBeGreaterThan(3 * 10 * 60);
  });

  it("holds a whole tick: activeDeadlineSeconds ≥ the sum of a tick's bounds at the manifests' settings (worstCaseTickMs)", () => {
    // The pod cannot read its Job's deadline (no RBAC for it): a deadline
    // shorter than a tick's bounds kills a tick mid-wait, every time the
    // world is slow — so the manifests are held to the sum here (docs/behaviour.md §3, Bounds).
    const { job, env } = shippedJob();
    const config = parseTickConfig(env);
    if (config._tag === 'Left') throw new Error(`deploy/ sets an invalid environment: ${JSON.stringify(config.left)}`);
    expect(worstCaseTickMs(config.right)).toBeLessThanOrEqual(job.activeDeadlineSeconds * 1000);
  });

  it('holds a tick with the way back switched on: a re-image plus its rollback per workload, each watched for ROLLOUT_STABLE_FOR=2m', () => {
    const { job, env } = shippedJob();
    const config = parseTickConfig({ ...env, [ENV.onRolloutFailure]: 'revert', [ENV.rolloutStableFor]: '2m' });
    if (config._tag === 'Left') throw new Error(`deploy/ sets an invalid environment: ${JSON.stringify(config.left)}`);
    expect(worstCaseTickMs(config.right)).toBeLessThanOrEqual(job.activeDeadlineSeconds * 1000);
    // Reasoned as docs/behaviour.md §3, Bounds does: more than a re-image and its rollback for each
    // of the three workloads.
    expect(job.activeDeadlineSeconds).toBeGreaterThan(2 * 3 * 10 * 60);
  });

  it('still holds a whole tick with the fleet-safe switches on (START_JITTER=10m, MIN_DIGEST_AGE=1h, ROLLOUT_RING=2)', () => {
    const { job, env } = shippedJob();
    const config = parseTickConfig({ ...env, START_JITTER: '10m', MIN_DIGEST_AGE: '1h', ROLLOUT_RING: '2' });
    if (config._tag === 'Left') throw new Error(`invalid environment: ${JSON.stringify(config.left)}`);
    const plain = parseTickConfig(env);
    if (plain._tag === 'Left') throw new Error('deploy/ sets an invalid environment');
    // The jitter is waited inside the tick: it counts in full.
    expect(worstCaseTickMs(config.right) - worstCaseTickMs(plain.right)).toBeGreaterThanOrEqual(600_000);
    expect(worstCaseTickMs(config.right)).toBeLessThanOrEqual(job.activeDeadlineSeconds * 1000);
  });

  it("sets every variable of the chart's environment contract", () => {
    const cronJob = render().find((m) => m.kind === 'CronJob') as unknown as {
      spec: { jobTemplate: { spec: { template: { spec: { containers: { env: { name: string }[] }[] } } } } };
    };
    const names = cronJob.spec.jobTemplate.spec.template.spec.containers[0]?.env.map((e) => e.name);
    const chart = [
      ENV.releaseName,
      ENV.releaseNamespace,
      ENV.deploymentName,
      ENV.requestsProxyDeployment,
      ENV.resourceMonitorDaemonSet,
      ENV.nodeAgentsNamespace,
      ENV.imageRegistry,
      ENV.imageTag,
      ENV.rolloutTimeout,
      ENV.maxRefreshAttempts,
      ENV.maxSkipTicks,
      ENV.jobsManagerPinned,
      ENV.podsMonitorPinned,
      ENV.resourceMonitorPinned,
      ENV.requestsProxyPinned,
    ];
    expect(names).toEqual(chart);
  });
});
