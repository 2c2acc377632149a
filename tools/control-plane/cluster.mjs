// A real Kubernetes control plane on 127.0.0.1 for the tests: etcd, the
// kube-apiserver with RBAC on (Node,RBAC) and service-account tokens issued,
// the controller-manager's Deployment, ReplicaSet and DaemonSet controllers
// (and the few a namespace and its pods need), the scheduler, and kwok for
// the nodes and pods no kubelet runs. Every port is a free one; every file is
// in one temp dir; stop() ends every process it started, by pid, and removes
// the dir. The binaries come from binaries.mjs.

import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MODULE_DIR } from './binaries.mjs';

/** The fake nodes every cluster starts with: the DaemonSet rolls out on each. */
export const NODES = ['edge-node-1', 'edge-node-2'];

/** What kwok manages: nodes with this annotation (so a test may add a node kwok leaves alone). */
const KWOK_NODE_ANNOTATION = ['kwok.x-k8s.io/node', 'fake'];

/** The controllers the stories need, and no more (no node lifecycle: kwok's nodes send no heartbeats). */
const CONTROLLERS = [
  'deployment-controller',
  'replicaset-controller',
  'daemonset-controller',
  'serviceaccount-controller',
  'namespace-controller',
  'garbage-collector-controller',
  'root-ca-certificate-publisher-controller',
];

const freePort = () =>
  new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

const openssl = (dir, args) => execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });

/** A CA, the apiserver's serving certificate for 127.0.0.1, an admin client certificate, the service-account key pair. */
const writePki = (dir) => {
  const days = ['-days', '2'];
  openssl(dir, [
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-keyout',
    'ca.key',
    '-out',
    'ca.crt',
    ...days,
    '-subj',
    '/CN=image-refresh-test-ca',
    '-addext',
    'basicConstraints=critical,CA:TRUE',
    '-addext',
    'keyUsage=critical,keyCertSign,cRLSign',
  ]);
  const leaf = (name, subject, extensions) => {
    openssl(dir, [
      'req',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      `${name}.key`,
      '-out',
      `${name}.csr`,
      '-subj',
      subject,
    ]);
    writeFileSync(join(dir, `${name}.ext`), extensions);
    openssl(dir, [
      'x509',
      '-req',
      '-in',
      `${name}.csr`,
      '-CA',
      'ca.crt',
      '-CAkey',
      'ca.key',
      '-CAcreateserial',
      '-out',
      `${name}.crt`,
      ...days,
      '-extfile',
      `${name}.ext`,
    ]);
  };
  leaf(
    'apiserver',
    '/CN=kube-apiserver',
    'subjectAltName=IP:127.0.0.1,DNS:localhost,DNS:kubernetes.default.svc\nextendedKeyUsage=serverAuth\n',
  );
  leaf('admin', '/O=system:masters/CN=image-refresh-test-admin', 'extendedKeyUsage=clientAuth\n');
  openssl(dir, ['genpkey', '-algorithm', 'RSA', '-pkeyopt', 'rsa_keygen_bits:2048', '-out', 'sa.key']);
  openssl(dir, ['pkey', '-in', 'sa.key', '-pubout', '-out', 'sa.pub']);
};

const base64 = (file) => readFileSync(file).toString('base64');

/** A kubeconfig for `user` (client certificate or token) on the cluster at `server`. */
export const kubeconfigYaml = ({ server, caFile, user }) => {
  const credentials =
    'token' in user
      ? `    token: ${user.token}\n`
      : `    client-certificate-data: ${base64(user.certFile)}\n    client-key-data: ${base64(user.keyFile)}\n`;
  return [
    'apiVersion: v1',
    'kind: Config',
    'clusters:',
    '- name: image-refresh-test',
    '  cluster:',
    `    server: ${server}`,
    `    certificate-authority-data: ${base64(caFile)}`,
    'users:',
    `- name: ${user.name}`,
    '  user:',
    credentials.trimEnd(),
    'contexts:',
    `- name: ${user.name}@image-refresh-test`,
    '  context:',
    '    cluster: image-refresh-test',
    `    user: ${user.name}`,
    `current-context: ${user.name}@image-refresh-test`,
    '',
  ].join('\n');
};

/** One HTTPS request to the apiserver as the admin: { status, body }. */
const adminRequest = (cluster, method, path, body, timeoutMs = 5_000, contentType = 'application/json') =>
  new Promise((resolve, reject) => {
    const url = new URL(path, cluster.server);
    const req = request(
      url,
      {
        method,
        ca: readFileSync(cluster.caFile),
        cert: readFileSync(cluster.admin.certFile),
        key: readFileSync(cluster.admin.keyFile),
        headers: body === undefined ? {} : { 'content-type': contentType },
        timeout: timeoutMs,
      },
      (res) => {
        const chunks = [];
        res.on('data', (chunk) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error(`${method} ${path}: no answer within ${timeoutMs} ms`)));
    req.on('error', reject);
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });

const tail = (file) => {
  try {
    return readFileSync(file, 'utf8').slice(-3_000);
  } catch (error) {
    return `(no log: ${error.message})`;
  }
};

/**
 * Starts a control plane. `binaries` is the directory binaries.mjs built.
 * Resolves once the apiserver is ready, the controllers and kwok run and every
 * node is Ready; rejects (having stopped what it started) otherwise.
 */
export const startControlPlane = async ({ binaries, log = () => undefined, readyWithinMs = 120_000 } = {}) => {
  const began = Date.now();
  const deadline = began + readyWithinMs;
  const dir = mkdtempSync(join(tmpdir(), 'image-refresh-control-plane-'));
  const processes = [];
  const stop = async () => {
    // Reverse order: kwok and the controllers first, etcd last.
    for (const child of [...processes].reverse()) {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    }
    await Promise.all(
      processes.map(
        (child) =>
          new Promise((resolve) => {
            if (child.exitCode !== null || child.signalCode !== null) return resolve();
            const kill = setTimeout(() => child.kill('SIGKILL'), 5_000);
            child.once('exit', () => {
              clearTimeout(kill);
              resolve();
            });
          }),
      ),
    );
    rmSync(dir, { recursive: true, force: true });
  };
  const run = (name, args) => {
    const logFile = join(dir, `${name}.log`);
    const out = openSync(logFile, 'a');
    const child = spawn(join(binaries, name), args, { cwd: dir, stdio: ['ignore', out, out] });
    child.logFile = logFile;
    child.name = name;
    processes.push(child);
    return child;
  };
  const exitedEarly = () => processes.find((child) => child.exitCode !== null || child.signalCode !== null);
  const waitFor = async (what, probe) => {
    for (;;) {
      const gone = exitedEarly();
      if (gone !== undefined)
        throw new Error(
          `${gone.name} exited (${gone.exitCode ?? gone.signalCode}) while waiting for ${what}: ${tail(gone.logFile)}`,
        );
      if (await probe().catch(() => false)) return;
      if (Date.now() > deadline) throw new Error(`control plane: ${what} not within ${readyWithinMs} ms`);
      await sleep(100);
    }
  };

  try {
    writePki(dir);
    const [etcdPort, peerPort, apiPort] = [await freePort(), await freePort(), await freePort()];
    const etcdUrl = `http://127.0.0.1:${etcdPort}`;
    const peerUrl = `http://127.0.0.1:${peerPort}`;
    run('etcd', [
      '--name=test',
      `--data-dir=${join(dir, 'etcd')}`,
      `--listen-client-urls=${etcdUrl}`,
      `--advertise-client-urls=${etcdUrl}`,
      `--listen-peer-urls=${peerUrl}`,
      `--initial-advertise-peer-urls=${peerUrl}`,
      `--initial-cluster=test=${peerUrl}`,
      // A test cluster lives minutes: durability buys nothing and fsyncs cost the suite seconds.
      '--unsafe-no-fsync',
      '--log-level=warn',
    ]);
    await waitFor('etcd', async () => (await fetch(`${etcdUrl}/health`, { signal: AbortSignal.timeout(1_000) })).ok);
    log(`control plane: etcd on ${etcdUrl} after ${Date.now() - began} ms`);

    const cluster = {
      dir,
      server: `https://127.0.0.1:${apiPort}`,
      caFile: join(dir, 'ca.crt'),
      admin: { name: 'admin', certFile: join(dir, 'admin.crt'), keyFile: join(dir, 'admin.key') },
    };
    run('kube-apiserver', [
      `--etcd-servers=${etcdUrl}`,
      '--bind-address=127.0.0.1',
      '--advertise-address=127.0.0.1',
      `--secure-port=${apiPort}`,
      '--tls-cert-file=apiserver.crt',
      '--tls-private-key-file=apiserver.key',
      '--client-ca-file=ca.crt',
      '--authorization-mode=Node,RBAC',
      '--service-account-issuer=https://kubernetes.default.svc.cluster.local',
      '--service-account-key-file=sa.pub',
      '--service-account-signing-key-file=sa.key',
      '--service-cluster-ip-range=10.96.0.0/16',
      '--endpoint-reconciler-type=none',
      '--enable-priority-and-fairness=false',
      '--profiling=false',
    ]);
    await waitFor(
      'kube-apiserver /readyz',
      async () => (await adminRequest(cluster, 'GET', '/readyz', undefined, 1_000)).status === 200,
    );
    log(`control plane: kube-apiserver on ${cluster.server} after ${Date.now() - began} ms`);

    const kubeconfig = join(dir, 'admin.kubeconfig');
    writeFileSync(kubeconfig, kubeconfigYaml({ server: cluster.server, caFile: cluster.caFile, user: cluster.admin }), {
      mode: 0o600,
    });
    run('kube-controller-manager', [
      `--kubeconfig=${kubeconfig}`,
      '--leader-elect=false',
      '--secure-port=0',
      `--controllers=${CONTROLLERS.join(',')}`,
      '--service-account-private-key-file=sa.key',
      '--root-ca-file=ca.crt',
      '--use-service-account-credentials=false',
      // The rollouts a test drives take seconds; the defaults batch controller work for a large cluster.
      '--concurrent-deployment-syncs=5',
      '--concurrent-replicaset-syncs=5',
      '--concurrent-daemonset-syncs=2',
    ]);
    run('kube-scheduler', [`--kubeconfig=${kubeconfig}`, '--leader-elect=false', '--secure-port=0']);
    run('kwok', [
      `--kubeconfig=${kubeconfig}`,
      `--config=${join(MODULE_DIR, 'kwok-stages.yaml')}`,
      `--manage-nodes-with-annotation-selector=${KWOK_NODE_ANNOTATION.join('=')}`,
    ]);
    for (const name of NODES) {
      const node = {
        apiVersion: 'v1',
        kind: 'Node',
        metadata: {
          name,
          annotations: { [KWOK_NODE_ANNOTATION[0]]: KWOK_NODE_ANNOTATION[1] },
          labels: {
            'kubernetes.io/hostname': name,
            'kubernetes.io/os': 'linux',
            'kubernetes.io/arch': 'amd64',
            type: 'kwok',
          },
        },
      };
      await waitFor(`node ${name} created`, async () =>
        [201, 409].includes((await adminRequest(cluster, 'POST', '/api/v1/nodes', node)).status),
      );
    }
    await waitFor('every node Ready', async () => {
      const { status, body } = await adminRequest(cluster, 'GET', '/api/v1/nodes');
      if (status !== 200) return false;
      const ready = JSON.parse(body).items.filter((n) =>
        (n.status?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True'),
      );
      return ready.length === NODES.length;
    });
    // The apiserver taints a new Node not-ready; the node lifecycle controller, which would lift it, is
    // not run (kwok's nodes send no heartbeats), so the taint is lifted here, once the node is Ready.
    for (const name of NODES) {
      const lifted = await adminRequest(
        cluster,
        'PATCH',
        `/api/v1/nodes/${name}`,
        { spec: { taints: null } },
        5_000,
        'application/merge-patch+json',
      );
      if (lifted.status !== 200)
        throw new Error(`control plane: could not lift node ${name}'s taints: ${lifted.status} ${lifted.body}`);
    }
    // Pods need their namespace's default ServiceAccount: the controller-manager is serving once "default" has one.
    await waitFor(
      'the default ServiceAccount',
      async () =>
        (await adminRequest(cluster, 'GET', '/api/v1/namespaces/default/serviceaccounts/default')).status === 200,
    );
    log(`control plane: ready after ${Date.now() - began} ms (${NODES.length} kwok nodes)`);
    return {
      ...cluster,
      kubeconfig,
      startedInMs: Date.now() - began,
      pids: Object.fromEntries(processes.map((child) => [child.name, child.pid])),
      logs: Object.fromEntries(processes.map((child) => [child.name, child.logFile])),
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
};
