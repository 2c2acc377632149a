import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createClusterPort, loadClusterConfig, SERVICE_ACCOUNT_TOKEN } from '../../src/cluster/index.js';
import { type ChartCluster, startChartCluster } from '../support/fake-api-chart.js';
import { guardRead, right, run, testConfig } from './cluster-test-kit.js';

// Where the credentials come from, and that the source is named: the pod's
// service account when its token file exists, else KUBECONFIG, else
// ~/.kube/config — and never a silent fallback to localhost:8080.

const dirs: string[] = [];
let cluster: ChartCluster | undefined;
afterEach(async () => {
  vi.unstubAllEnvs();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  await cluster?.close();
  cluster = undefined;
});

const tempDir = (): string => {
  const dir = mkdtempSync(join(tmpdir(), 'cluster-config-'));
  dirs.push(dir);
  return dir;
};

const only =
  (...paths: string[]) =>
  (path: string) =>
    paths.includes(path);

const kubeconfigYaml = (server: string, token: string, context = 'fake') =>
  [
    'apiVersion: v1',
    'kind: Config',
    'clusters:',
    `- name: ${context}`,
    `  cluster: {server: "${server}", insecure-skip-tls-verify: true}`,
    'users:',
    `- name: ${context}-user`,
    `  user: {token: "${token}"}`,
    'contexts:',
    `- name: ${context}`,
    `  context: {cluster: ${context}, user: ${context}-user}`,
    `current-context: ${context}`,
    '',
  ].join('\n');

describe('loadClusterConfig', () => {
  it('uses the in-cluster service account when its token file exists, and says so', () => {
    vi.stubEnv('KUBERNETES_SERVICE_HOST', '10.96.0.1');
    vi.stubEnv('KUBERNETES_SERVICE_PORT', '443');
    const loaded = right(loadClusterConfig({ KUBECONFIG: '/somewhere/else' }, only(SERVICE_ACCOUNT_TOKEN)));
    expect(loaded.source).toBe('in-cluster service account');
    expect(loaded.kubeConfig.getCurrentCluster()?.server).toBe('https://10.96.0.1:443');
    // The token is not read now: client-node reads (and re-reads) the file at request time.
    expect(loaded.kubeConfig.getCurrentUser()?.authProvider?.config?.tokenFile).toBe(SERVICE_ACCOUNT_TOKEN);
    expect(loaded.kubeConfig.getCurrentUser()?.token).toBeUndefined();
  });

  it('brackets an IPv6 service host', () => {
    vi.stubEnv('KUBERNETES_SERVICE_HOST', 'fd00::1');
    vi.stubEnv('KUBERNETES_SERVICE_PORT', '443');
    const loaded = right(loadClusterConfig({}, only(SERVICE_ACCOUNT_TOKEN)));
    expect(loaded.kubeConfig.getCurrentCluster()?.server).toBe('https://[fd00::1]:443');
  });

  it('refuses a service account without the service host to reach, naming the variables', () => {
    vi.stubEnv('KUBERNETES_SERVICE_HOST', undefined);
    vi.stubEnv('KUBERNETES_SERVICE_PORT', undefined);
    const result = loadClusterConfig({}, only(SERVICE_ACCOUNT_TOKEN));
    expect(result._tag).toBe('Left');
    if (result._tag === 'Left')
      expect(result.left.message).toContain('KUBERNETES_SERVICE_HOST/KUBERNETES_SERVICE_PORT');
  });

  it('uses KUBECONFIG otherwise, names the file, and a port built on it reaches that cluster', async () => {
    cluster = await startChartCluster();
    const dir = tempDir();
    const path = join(dir, 'config');
    writeFileSync(path, kubeconfigYaml(cluster.server.url, cluster.server.token));
    const loaded = right(loadClusterConfig({ KUBECONFIG: path, HOME: dir }));
    expect(loaded.source).toBe(`kubeconfig ${path}`);
    const settledness = right(await run(guardRead(createClusterPort(loaded.kubeConfig, testConfig()))));
    expect(settledness._tag).toBe('Settled');
    expect(cluster.server.requests.map((r) => r.auth)).toEqual(['token']);
  });

  it('merges several KUBECONFIG files, the first one choosing the context, as kubectl does', () => {
    const dir = tempDir();
    const first = join(dir, 'a');
    const second = join(dir, 'b');
    writeFileSync(first, kubeconfigYaml('http://127.0.0.1:1', 'first-token-aaaaaaaa', 'one'));
    writeFileSync(second, kubeconfigYaml('http://127.0.0.1:2', 'second-token-bbbbbbbb', 'two'));
    const loaded = right(loadClusterConfig({ KUBECONFIG: [first, second].join(delimiter) }));
    expect(loaded.source).toBe(`kubeconfig ${first}${delimiter}${second}`);
    expect(loaded.kubeConfig.getCurrentCluster()?.server).toBe('http://127.0.0.1:1');
    expect(loaded.kubeConfig.getContexts().map((c) => c.name)).toEqual(['one', 'two']);
  });

  it('falls back to $HOME/.kube/config', () => {
    const home = tempDir();
    mkdirSync(join(home, '.kube'));
    const path = join(home, '.kube', 'config');
    writeFileSync(path, kubeconfigYaml('http://127.0.0.1:3', 'home-token-cccccccc'));
    const loaded = right(loadClusterConfig({ HOME: home }));
    expect(loaded.source).toBe(`kubeconfig ${path}`);
  });

  it('fails, naming everything it looked for, when there is no configuration at all', () => {
    const home = tempDir();
    const result = loadClusterConfig({ HOME: home }, () => false);
    expect(result).toEqual({
      _tag: 'Left',
      left: {
        _tag: 'ClusterConfigError',
        message: `no cluster configuration: no service-account token at ${SERVICE_ACCOUNT_TOKEN}, KUBECONFIG is not set, and ${join(home, '.kube', 'config')} does not exist`,
      },
    });
  });

  it('fails on a KUBECONFIG file that does not exist', () => {
    const result = loadClusterConfig({ KUBECONFIG: '/nonexistent/kubeconfig' });
    expect(result._tag).toBe('Left');
    if (result._tag === 'Left') expect(result.left.message).toContain('/nonexistent/kubeconfig');
  });

  it('fails on a kubeconfig that does not parse, without quoting its token', () => {
    const dir = tempDir();
    const path = join(dir, 'config');
    const token = 'yaml-quoted-secret-0123456789';
    writeFileSync(
      path,
      `apiVersion: v1\nkind: Config\nusers:\n- name: u\n  user:\n    token: ${token}\n   broken: 1\n`,
    );
    const result = loadClusterConfig({ KUBECONFIG: path });
    expect(result._tag).toBe('Left');
    if (result._tag === 'Left') {
      expect(result.left.message).toContain('cannot load kubeconfig');
      expect(result.left.message).toContain('bad indentation');
      expect(result.left.message).not.toContain(token);
    }
  });

  it('fails on a kubeconfig that names no current cluster', () => {
    const dir = tempDir();
    const path = join(dir, 'config');
    writeFileSync(path, 'apiVersion: v1\nkind: Config\nclusters: []\nusers: []\ncontexts: []\n');
    const result = loadClusterConfig({ KUBECONFIG: path });
    expect(result._tag).toBe('Left');
    if (result._tag === 'Left') expect(result.left.message).toContain('no current context with a cluster');
  });
});
