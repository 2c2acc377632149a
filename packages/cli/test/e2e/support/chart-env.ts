import { readFileSync } from 'node:fs';
import { loadAllYaml } from '@kubernetes/client-node';

// The chart's environment contract as the shipped CronJob sets it
// (deploy/cronjob.yaml), read from that file rather than retyped here, so the
// story runs the variables operators deploy.

const CRONJOB = new URL('../../../deploy/cronjob.yaml', import.meta.url);

interface EnvVar {
  readonly name: string;
  readonly value?: string;
}

interface CronJobManifest {
  readonly kind: string;
  readonly spec?: {
    readonly jobTemplate?: {
      readonly spec?: { readonly template?: { readonly spec?: { readonly containers?: { env?: EnvVar[] }[] } } };
    };
  };
}

export const shippedCronJobEnv = (): Record<string, string> => {
  const manifests = loadAllYaml(readFileSync(CRONJOB, 'utf8')) as CronJobManifest[];
  const cronJob = manifests.find((m) => m.kind === 'CronJob');
  const env = cronJob?.spec?.jobTemplate?.spec?.template?.spec?.containers?.[0]?.env;
  if (env === undefined) throw new Error(`${CRONJOB.pathname} holds no CronJob container env`);
  return Object.fromEntries(env.flatMap((v) => (v.value === undefined ? [] : [[v.name, v.value] as const])));
};

/** Where a bundled run is pointed: the registry, the fake API server's kubeconfig, a temp HOME (so ~/.kube is never read). */
export interface BundleTarget {
  readonly registry: { readonly url: string };
  readonly cluster: { readonly kubeconfig: { readonly path: string } };
  readonly home: string;
}

/** The bounds of the one-release story files: short, with a second for a rollout. */
export const STORY_BOUNDS = {
  ROLLOUT_TIMEOUT: '1s',
  SETTLE_TIMEOUT: '300ms',
  API_TIMEOUT: '2s',
  REGISTRY_TIMEOUT: '2s',
} as const;

/**
 * The environment of a bundled run against the fake release: the shipped
 * CronJob's, on the :stg images, with `bounds`, pointed at `target`, and
 * `extra` on top of all of it.
 */
export const bundleEnv = (
  target: BundleTarget,
  bounds: Readonly<Record<string, string>>,
  extra: Readonly<Record<string, string>> = {},
): Record<string, string> => ({
  ...shippedCronJobEnv(),
  // The fake release runs the :stg images.
  IMAGE_TAG: 'stg',
  ...bounds,
  IMAGE_REFRESH_REGISTRY_URL: target.registry.url,
  KUBECONFIG: target.cluster.kubeconfig.path,
  HOME: target.home,
  HOSTNAME: 'stg-image-refresh-e2e',
  ...extra,
});
