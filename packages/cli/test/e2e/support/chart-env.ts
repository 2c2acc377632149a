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
