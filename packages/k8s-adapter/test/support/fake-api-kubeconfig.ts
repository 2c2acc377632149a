import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// A kubeconfig pointing at a fake API server, for real kubectl and for
// client-node alike. The server is plain http://, and client-node 1.4.0
// refuses that protocol unless the cluster says insecure-skip-tls-verify
// (client-node 1.4.0 refuses plain http otherwise); kubectl accepts the same file.

export interface FakeKubeconfig {
  /** The temp dir holding it; also a clean HOME for kubectl (its discovery cache lives there). */
  readonly dir: string;
  readonly path: string;
}

export const writeFakeKubeconfig = (
  server: { readonly url: string; readonly token: string },
  options: { token?: string; namespace?: string } = {},
): FakeKubeconfig => {
  const dir = mkdtempSync(join(tmpdir(), 'fake-api-'));
  const path = join(dir, 'kubeconfig');
  const yaml = [
    'apiVersion: v1',
    'kind: Config',
    'clusters:',
    '- name: fake',
    '  cluster:',
    `    server: ${JSON.stringify(server.url)}`,
    '    insecure-skip-tls-verify: true',
    'users:',
    '- name: fake-user',
    '  user:',
    `    token: ${JSON.stringify(options.token ?? server.token)}`,
    'contexts:',
    '- name: fake',
    '  context:',
    '    cluster: fake',
    '    user: fake-user',
    `    namespace: ${JSON.stringify(options.namespace ?? 'default')}`,
    'current-context: fake',
    '',
  ].join('\n');
  writeFileSync(path, yaml, { mode: 0o600 });
  return { dir, path };
};
