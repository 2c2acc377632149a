import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, join } from 'node:path';
import type { Environment } from '@image-refresh/core';
import { KubeConfig } from '@kubernetes/client-node';
import * as E from 'fp-ts/lib/Either.js';
import { redactSecrets } from './redact-secrets.js';

// Where the adapter's credentials come from, said out loud. In the CronJob
// that is the pod's service account; anywhere else a kubeconfig. client-node's
// loadFromDefault tries KUBECONFIG, ~/.kube/config, the service account, and
// then silently falls back to http://localhost:8080 (client-node 1.4.0) — a guess an
// operator would never see. So the choice is made here, in the order the
// CronJob needs (service account first), and a missing configuration is an
// error that names what was looked for.

/** Where a pod's service-account token lives; its presence means "in a cluster" to `loadClusterConfig`. */
export const SERVICE_ACCOUNT_TOKEN = '/var/run/secrets/kubernetes.io/serviceaccount/token';

/** A cluster to talk to, and where its credentials came from (say it in your log). */
export interface ClusterConfig {
  /** client-node's KubeConfig, ready for the port factories. */
  readonly kubeConfig: KubeConfig;
  /** `in-cluster service account`, or `kubeconfig <path>` (several joined with the path delimiter). */
  readonly source: string;
}

/** Why no cluster configuration could be loaded; the message names what was looked for, secrets redacted. */
export interface ClusterConfigError {
  readonly _tag: 'ClusterConfigError';
  /** E.g. `KUBECONFIG names file(s) that do not exist: /x`. */
  readonly message: string;
}

const configError = (message: string): E.Either<ClusterConfigError, never> =>
  E.left({ _tag: 'ClusterConfigError', message: redactSecrets(message) });

const describe = (e: unknown): string => (e instanceof Error ? e.message : String(e));

/**
 * The cluster to talk to: the in-cluster service account when its token file
 * exists (client-node re-reads it, so a rotated token keeps working), else the
 * kubeconfig files of `env.KUBECONFIG` (merged, first one's context, as
 * kubectl does), else `$HOME/.kube/config`. Never client-node's silent
 * fallback to `http://localhost:8080`.
 *
 * Returns `Left` (never throws) when none exists, a listed file is missing,
 * a kubeconfig does not parse or has no current cluster, or the service
 * account's KUBERNETES_SERVICE_HOST/PORT are unset. Contacts no server.
 *
 * @param env - the environment, e.g. `process.env` (reads KUBECONFIG and HOME).
 * @param fileExists - for tests; `fs.existsSync` by default.
 */
export const loadClusterConfig = (
  env: Environment,
  fileExists: (path: string) => boolean = existsSync,
): E.Either<ClusterConfigError, ClusterConfig> => {
  const kubeConfig = new KubeConfig();
  if (fileExists(SERVICE_ACCOUNT_TOKEN)) {
    // loadFromCluster takes KUBERNETES_SERVICE_HOST/PORT from the process
    // environment (bracketing an IPv6 host) and the token from its file at
    // request time. Unset, they become "https://undefined:undefined": refuse it.
    kubeConfig.loadFromCluster();
    const server = kubeConfig.getCurrentCluster()?.server ?? '';
    if (server.includes('undefined')) {
      return configError(
        `a service-account token exists at ${SERVICE_ACCOUNT_TOKEN} but KUBERNETES_SERVICE_HOST/KUBERNETES_SERVICE_PORT are not set (server would be ${server}); cannot locate the API server`,
      );
    }
    return E.right({ kubeConfig, source: 'in-cluster service account' });
  }
  const listed = (env.KUBECONFIG ?? '').split(delimiter).filter((path) => path !== '');
  const home = env.HOME === undefined || env.HOME === '' ? homedir() : env.HOME;
  const files = listed.length > 0 ? listed : [join(home, '.kube', 'config')];
  const absent = files.filter((path) => !fileExists(path));
  if (listed.length === 0 && absent.length > 0) {
    return configError(
      `no cluster configuration: no service-account token at ${SERVICE_ACCOUNT_TOKEN}, KUBECONFIG is not set, and ${files[0]} does not exist`,
    );
  }
  if (absent.length > 0) return configError(`KUBECONFIG names file(s) that do not exist: ${absent.join(', ')}`);
  try {
    const [first, ...rest] = files;
    kubeConfig.loadFromFile(first ?? '');
    for (const path of rest) {
      const more = new KubeConfig();
      more.loadFromFile(path);
      kubeConfig.mergeConfig(more, true);
    }
  } catch (e) {
    return configError(`cannot load kubeconfig ${files.join(delimiter)}: ${describe(e)}`);
  }
  if (kubeConfig.getCurrentCluster() === null) {
    return configError(`kubeconfig ${files.join(delimiter)} has no current context with a cluster`);
  }
  return E.right({ kubeConfig, source: `kubeconfig ${files.join(delimiter)}` });
};
