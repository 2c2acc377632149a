import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { type LocalServer, listenLocal } from '../../support/registry-local-server.js';

// The part of a Kubernetes API server PREPULL's staging talks to, small
// enough to read: the three workloads (GET, for their selector, pull secrets
// and tolerations), their pods (LIST by label selector), and staging pods
// (CREATE, GET, LIST, DELETE). A kubelet of its own: a staging pod's
// containers pull for the time the test gave each node and image (measured
// from the pod's creation; a pull that has finished stays on the node), then
// run; a failing image stays in ErrImagePull / ImagePullBackOff. Bearer-token
// auth; anything not modelled is a 501 recorded in `unexpected`, so a test
// asserts it stays empty.

export interface SeenPodRequest {
  readonly method: string;
  readonly path: string;
  readonly query: string;
  readonly body: string;
  status?: number;
}

type Json = Record<string, unknown>;

export interface FakePodsServer {
  readonly url: string;
  readonly token: string;
  readonly requests: SeenPodRequest[];
  readonly unexpected: readonly SeenPodRequest[];
  /** namespace → pod name → pod (every pod: the workloads' and staging pods). */
  readonly pods: Map<string, Map<string, Json>>;
  /** `node image` → ms a pull takes there (absent: at once); Infinity: it never pulls (ErrImagePull). */
  readonly pullMs: Map<string, number>;
  /** Answer the next `times` requests whose `METHOD path` starts with `prefix` with HTTP `status` (0: never answer). */
  fail(prefix: string, status: number, times?: number): void;
  /** A workload's running pods, one per node (a DaemonSet's: one on each). */
  runWorkload(kind: 'Deployment' | 'DaemonSet', namespace: string, name: string, nodes: readonly string[]): void;
  /** Staging pods on the server now, as `namespace/name node`. */
  stagingPods(): string[];
  close(): Promise<void>;
}

const STAGING = 'image-refresh.tracebloc.io/staging-for';

const labelsOf = (pod: Json): Record<string, string> =>
  ((pod.metadata as Json | undefined)?.labels as Record<string, string> | undefined) ?? {};

/** `a=b,c` (equality and existence only: what the adapter sends). */
const matches = (selector: string, labels: Record<string, string>): boolean =>
  selector
    .split(',')
    .filter((part) => part !== '')
    .every((part) => {
      const eq = part.indexOf('=');
      return eq < 0 ? part in labels : labels[part.slice(0, eq)] === part.slice(eq + 1);
    });

const workloadObject = (kind: 'Deployment' | 'DaemonSet', namespace: string, name: string): Json => ({
  apiVersion: 'apps/v1',
  kind,
  metadata: { name, namespace, uid: randomBytes(8).toString('hex'), generation: 1, resourceVersion: '1' },
  spec: {
    selector: { matchLabels: { app: name } },
    template: {
      metadata: { labels: { app: name } },
      spec: {
        imagePullSecrets: [{ name: 'regcred' }],
        tolerations: [{ key: 'node-role.kubernetes.io/edge', operator: 'Exists', effect: 'NoSchedule' }],
        containers: [{ name: 'c', image: `docker.io/tracebloc/${name}:stg` }],
      },
    },
  },
  status: {},
});

export const startFakePodsServer = async (): Promise<FakePodsServer> => {
  const token = randomBytes(12).toString('hex');
  const requests: SeenPodRequest[] = [];
  const unexpected: SeenPodRequest[] = [];
  const pods = new Map<string, Map<string, Json>>();
  const workloads = new Map<string, Json>();
  const pullMs = new Map<string, number>();
  const faults: { prefix: string; status: number; remaining: number }[] = [];
  /** `node image` → when its pull ends (ms since the epoch), once a pod asked for it. */
  const pulls = new Map<string, number>();

  const podsIn = (namespace: string): Map<string, Json> => {
    const existing = pods.get(namespace);
    if (existing !== undefined) return existing;
    const created = new Map<string, Json>();
    pods.set(namespace, created);
    return created;
  };

  /** The kubelet's view of a staging pod at this moment. */
  const withStatus = (pod: Json): Json => {
    const spec = pod.spec as Json;
    const node = String(spec.nodeName);
    const containers = (spec.containers as Json[]).map((c) => {
      const key = `${node} ${String(c.image)}`;
      const ends = pulls.get(key) ?? Date.now() + (pullMs.get(key) ?? 0);
      pulls.set(key, ends);
      if (!Number.isFinite(ends)) {
        return {
          name: c.name,
          image: c.image,
          state: { waiting: { reason: 'ImagePullBackOff', message: `Back-off pulling image "${String(c.image)}"` } },
        };
      }
      return Date.now() >= ends
        ? { name: c.name, image: c.image, state: { terminated: { reason: 'StartError', exitCode: 128 } } }
        : { name: c.name, image: c.image, state: { waiting: { reason: 'ContainerCreating' } } };
    });
    return { ...pod, status: { phase: 'Pending', containerStatuses: containers } };
  };

  const send = (response: ServerResponse, seen: SeenPodRequest, status: number, body: unknown): void => {
    seen.status = status;
    response.writeHead(status, { 'content-type': 'application/json' });
    response.end(JSON.stringify(body));
  };
  const status = (code: number, reason: string, message: string) => ({
    kind: 'Status',
    apiVersion: 'v1',
    status: 'Failure',
    reason,
    message,
    code,
  });

  const handle = (request: IncomingMessage, response: ServerResponse, body: string) => {
    const url = new URL(request.url ?? '/', 'http://fake');
    const method = request.method ?? 'GET';
    const seen: SeenPodRequest = { method, path: url.pathname, query: url.search, body };
    requests.push(seen);
    if (request.headers.authorization !== `Bearer ${token}`)
      return send(response, seen, 401, status(401, 'Unauthorized', 'Unauthorized'));
    const fault = faults.find((f) => `${method} ${url.pathname}`.startsWith(f.prefix) && f.remaining > 0);
    if (fault !== undefined) {
      fault.remaining -= 1;
      if (fault.status === 0) return; // never answered: the request's own bound ends it
      return send(
        response,
        seen,
        fault.status,
        status(fault.status, 'Forbidden', `pods is forbidden (armed ${fault.status})`),
      );
    }
    const workload = /^\/apis\/apps\/v1\/namespaces\/([^/]+)\/(deployments|daemonsets)\/([^/]+)$/.exec(url.pathname);
    if (workload !== null && method === 'GET') {
      const object = workloads.get(`${workload[1]}/${workload[2]}/${workload[3]}`);
      return object === undefined
        ? send(response, seen, 404, status(404, 'NotFound', `${workload[2]}.apps "${workload[3]}" not found`))
        : send(response, seen, 200, object);
    }
    const collection = /^\/api\/v1\/namespaces\/([^/]+)\/pods$/.exec(url.pathname);
    if (collection !== null) {
      const namespace = collection[1] ?? '';
      if (method === 'GET') {
        const selector = url.searchParams.get('labelSelector') ?? '';
        const items = [...podsIn(namespace).values()].filter((p) => matches(selector, labelsOf(p)));
        return send(response, seen, 200, { kind: 'PodList', apiVersion: 'v1', metadata: {}, items });
      }
      if (method === 'POST') {
        const pod = JSON.parse(body) as Json;
        const name = String((pod.metadata as Json).name);
        if (podsIn(namespace).has(name))
          return send(response, seen, 409, status(409, 'AlreadyExists', `pods "${name}" already exists`));
        const stored = { ...pod, metadata: { ...(pod.metadata as Json), uid: randomBytes(8).toString('hex') } };
        podsIn(namespace).set(name, stored);
        return send(response, seen, 201, stored);
      }
    }
    const one = /^\/api\/v1\/namespaces\/([^/]+)\/pods\/([^/]+)$/.exec(url.pathname);
    if (one !== null) {
      const [, namespace = '', name = ''] = one;
      const pod = podsIn(namespace).get(name);
      if (pod === undefined) return send(response, seen, 404, status(404, 'NotFound', `pods "${name}" not found`));
      if (method === 'GET')
        return send(response, seen, 200, labelsOf(pod)[STAGING] === undefined ? pod : withStatus(pod));
      if (method === 'DELETE') {
        podsIn(namespace).delete(name);
        return send(response, seen, 200, pod);
      }
    }
    unexpected.push(seen);
    send(response, seen, 501, status(501, 'NotImplemented', `${method} ${url.pathname} is not modelled`));
  };

  const server: LocalServer = await listenLocal((request, response) => {
    let body = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => {
      body += chunk;
    });
    request.on('end', () => handle(request, response, body));
  });

  return {
    url: server.url,
    token,
    requests,
    unexpected,
    pods,
    pullMs,
    fail: (prefix, code, times = 1) => {
      faults.push({ prefix, status: code, remaining: times });
    },
    runWorkload: (kind, namespace, name, nodes) => {
      workloads.set(
        `${namespace}/${kind === 'Deployment' ? 'deployments' : 'daemonsets'}/${name}`,
        workloadObject(kind, namespace, name),
      );
      nodes.forEach((node, i) => {
        podsIn(namespace).set(`${name}-${i}`, {
          apiVersion: 'v1',
          kind: 'Pod',
          metadata: { name: `${name}-${i}`, namespace, labels: { app: name } },
          spec: { nodeName: node, containers: [{ name: 'c', image: `docker.io/tracebloc/${name}:stg` }] },
          status: { phase: 'Running' },
        });
      });
    },
    stagingPods: () =>
      [...pods].flatMap(([namespace, inNamespace]) =>
        [...inNamespace.values()]
          .filter((p) => labelsOf(p)[STAGING] !== undefined)
          .map((p) => `${namespace}/${String((p.metadata as Json).name)} ${String((p.spec as Json).nodeName)}`),
      ),
    close: () => server.close(),
  };
};
