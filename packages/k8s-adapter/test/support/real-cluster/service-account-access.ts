import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { asAdmin, controlPlane } from './admin.js';
import { type ApiProxy, startApiProxy } from './api-proxy.js';

// Any ServiceAccount's credentials as the code under test gets them, for a
// topology that is not the chart's release (real-release.ts does the same for
// its own ServiceAccount): a token from the TokenRequest API and a kubeconfig
// with that token pointed at an API proxy in front of the apiserver. So every
// call is judged by whatever RBAC the test applied for that account, and every
// request is on the proxy's record. The token lives only in the kubeconfig
// file (mode 0600), never in argv or a log.

export interface ServiceAccountAccess {
  readonly proxy: ApiProxy;
  /** The ServiceAccount's kubeconfig, through the proxy: what the CLI or kubectl is given. */
  readonly kubeconfig: { readonly path: string; readonly dir: string };
  /** client-node's KubeConfig of that same file. */
  kubeConfig(): KubeConfig;
  close(): Promise<void>;
}

/** A token from the TokenRequest API, for an hour. */
const requestToken = async (namespace: string, serviceAccount: string): Promise<string> => {
  const { status } = await asAdmin().core.createNamespacedServiceAccountToken({
    name: serviceAccount,
    namespace,
    body: { spec: { expirationSeconds: 3_600, audiences: [] } },
  });
  const token = status?.token;
  if (token === undefined) throw new Error(`TokenRequest for ${serviceAccount} in ${namespace} answered no token`);
  return token;
};

/** `minted`: a token the caller got another way (`kubectl create token`); otherwise one is requested. */
export const startServiceAccountAccess = async (
  namespace: string,
  serviceAccount: string,
  minted?: string,
): Promise<ServiceAccountAccess> => {
  const plane = controlPlane();
  const token = minted ?? (await requestToken(namespace, serviceAccount));
  const proxy = await startApiProxy({
    upstream: plane.server,
    caFile: plane.caFile,
    certFile: join(plane.dir, 'apiserver.crt'),
    keyFile: join(plane.dir, 'apiserver.key'),
  });
  const dir = mkdtempSync(join(tmpdir(), 'image-refresh-real-kubeconfig-'));
  const path = join(dir, 'kubeconfig');
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromOptions({
    clusters: [{ name: 'real', server: proxy.url, caFile: plane.caFile }],
    users: [{ name: serviceAccount, token }],
    contexts: [{ name: 'real', cluster: 'real', user: serviceAccount, namespace }],
    currentContext: 'real',
  });
  writeFileSync(path, kubeConfig.exportConfig(), { mode: 0o600 });
  return {
    proxy,
    kubeconfig: { path, dir },
    kubeConfig: () => {
      const kc = new KubeConfig();
      kc.loadFromFile(path);
      return kc;
    },
    close: async () => {
      await proxy.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
};
