import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { classifyRequest, EVENTS_PATH, NAMESPACE_PATH } from './api-routes.js';
import type { RolloutBehaviour } from './fake-api-controller.js';
import {
  API_GROUP_LIST,
  APPS_V1_RESOURCES,
  apiVersions,
  CORE_V1_RESOURCES,
  EVENTS_V1_RESOURCES,
  VERSION,
} from './fake-api-discovery.js';
import { FakeEvents } from './fake-api-events.js';
import {
  type ArmedFault,
  type FakeRoute,
  type Fault,
  type FaultMatch,
  matches,
  type RouteFacts,
  statusBody,
} from './fake-api-faults.js';
import type { FakeKind } from './fake-api-objects.js';
import { BadPatch, type Json, type JsonObject, Unmodelled } from './fake-api-patch.js';
import { FakeApiStore, type PatchType, type WatchEvent } from './fake-api-store.js';

// A Kubernetes API server small enough to read, for tests: node:http on
// 127.0.0.1, an ephemeral port, bearer-token auth, Deployments and DaemonSets
// in memory. It serves exactly what real kubectl (1.32) and the adapter ask
// for — discovery, GET, list and watch by name, three patch types — and
// refuses everything else loudly: a 501 with a body saying what was not
// modelled, recorded in `unexpected` so a test can assert it stays empty (the
// seeds' bats stub exits 97 on an unmodelled call for the same reason).

export interface RecordedRequest {
  readonly method: string;
  readonly path: string;
  readonly query: Readonly<Record<string, string>>;
  route: FakeRoute | 'unexpected';
  readonly kind?: FakeKind | undefined;
  readonly namespace?: string | undefined;
  readonly name?: string | undefined;
  readonly contentType?: string | undefined;
  readonly userAgent?: string | undefined;
  readonly body: string;
  /** What the request presented: the server's token, another one, or none. */
  readonly auth: 'token' | 'wrong-token' | 'anonymous';
  /** The fault the request was answered with, if one was armed. */
  fault?: Fault['kind'] | undefined;
  /** Why it was unexpected. */
  problem?: string | undefined;
  /** The status code sent; undefined while (or if never) answered. */
  status?: number | undefined;
}

export interface FakeApiServer {
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  readonly port: number;
  /** The bearer token the server accepts; anything else is a 401. */
  readonly token: string;
  readonly store: FakeApiStore;
  /** core/v1 Events recorded on the server. */
  readonly events: FakeEvents;
  readonly requests: readonly RecordedRequest[];
  readonly unexpected: readonly RecordedRequest[];
  /** Answer the next `times` requests matching `match` with `fault` (Infinity: until cleared). */
  inject(match: FaultMatch, fault: Fault, times?: number): void;
  clearFaults(): void;
  /** Forget the request log (the unexpected list too). */
  resetLog(): void;
  /** Convenience over the store for tests. */
  setBehaviour(kind: FakeKind, namespace: string, name: string, behaviour: RolloutBehaviour): void;
  close(): Promise<void>;
}

/** Query parameters each route understands; any other is not modelled. */
const KNOWN_QUERY: Readonly<Record<FakeRoute, readonly string[]>> = {
  version: ['timeout'],
  discovery: ['timeout'],
  namespace: ['timeout'],
  get: ['timeout', 'pretty'],
  list: ['timeout', 'fieldSelector', 'limit', 'resourceVersion'],
  watch: [
    'timeout',
    'watch',
    'fieldSelector',
    'resourceVersion',
    'allowWatchBookmarks',
    'timeoutSeconds',
    'resourceVersionMatch',
  ],
  patch: ['timeout', 'fieldManager', 'fieldValidation', 'pretty', 'dryRun'],
  event: ['timeout', 'fieldManager', 'fieldValidation', 'pretty', 'limit', 'resourceVersion', 'fieldSelector'],
};

const PATCH_TYPES: Readonly<Record<string, PatchType>> = {
  'application/merge-patch+json': 'merge',
  'application/strategic-merge-patch+json': 'strategic',
};

class NotModelled extends Error {}

const readBody = (req: IncomingMessage): Promise<string> =>
  new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });

const sendJson = (res: ServerResponse, code: number, body: Json | string): void => {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  res.writeHead(code, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
};

const sendStatus = (res: ServerResponse, code: number, message: string, reason?: string): void =>
  sendJson(res, code, statusBody(code, message, reason));

/** `metadata.name=x` (or `metadata.name==x`), the only field selector kubectl sends for one object. */
const nameFromSelector = (selector: string | undefined): string | undefined => {
  if (selector === undefined) return undefined;
  const match = /^metadata\.name==?([^,]+)$/.exec(selector);
  if (match?.[1] === undefined) throw new NotModelled(`field selector "${selector}" is not modelled`);
  return match[1];
};

export interface FakeApiServerOptions {
  /** The bearer token to accept; a random one by default. */
  readonly token?: string;
  /** How long each step of the fake controller takes (ms). */
  readonly stepMs?: number;
  /**
   * Serve requests that carry no credentials. kubectl sends none over plain
   * http:// (client-go reads a kubeconfig's credentials only for an https
   * server: clientcmd `IsConfigTransportTLS`), so its tests need this;
   * client-node does send its token, and adapter tests leave this off to
   * prove it. A wrong token is a 401 either way.
   */
  readonly anonymous?: boolean;
}

export const startFakeApiServer = async (options: FakeApiServerOptions = {}): Promise<FakeApiServer> => {
  const token = options.token ?? `fake-token-${randomBytes(12).toString('hex')}`;
  const anonymous = options.anonymous ?? false;
  const store = new FakeApiStore();
  const events = new FakeEvents();
  if (options.stepMs !== undefined) store.stepMs = options.stepMs;
  const requests: RecordedRequest[] = [];
  const unexpected: RecordedRequest[] = [];
  let faults: ArmedFault[] = [];
  const pending = new Set<ReturnType<typeof setTimeout>>();
  const unwatch = new Set<() => void>();
  let address = '';

  const takeFault = (facts: RouteFacts): Fault | undefined => {
    const armed = faults.find((f) => f.remaining > 0 && matches(f.match, facts));
    if (armed === undefined) return undefined;
    armed.remaining -= 1;
    return armed.fault;
  };

  const answerFault = (res: ServerResponse, record: RecordedRequest, fault: Fault, serve: () => void): void => {
    switch (fault.kind) {
      case 'status':
        sendStatus(res, fault.code, fault.message ?? `injected ${fault.code}`, fault.reason);
        return;
      case 'raw':
        res.writeHead(fault.code, { 'content-type': fault.contentType });
        res.end(fault.body);
        return;
      case 'hang':
        return;
      case 'hangBody':
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write('{"kind":"Deployment","apiVersion":"apps/v1","metadata":{');
        return;
      case 'malformed':
        sendJson(res, 200, '{"kind":"Deployment","apiVersion":"apps/v1","metadata":{"name":');
        return;
      case 'wrongShape':
        sendJson(res, 200, fault.body);
        return;
      case 'reset':
        res.socket?.destroy();
        record.status = 0;
        return;
      case 'delay': {
        const timer = setTimeout(() => {
          pending.delete(timer);
          serve();
        }, fault.ms);
        pending.add(timer);
        return;
      }
    }
  };

  const serveWatch = (
    res: ServerResponse,
    record: RecordedRequest,
    kind: FakeKind,
    namespace: string,
    query: Record<string, string>,
  ) => {
    const name = nameFromSelector(query.fieldSelector);
    res.writeHead(200, { 'content-type': 'application/json', 'transfer-encoding': 'chunked' });
    // Node holds headers back until the first write; a watch with nothing to
    // report yet must still answer now, as the apiserver does, or the client
    // sits in "waiting for headers" for the whole timeoutSeconds.
    res.flushHeaders();
    record.status = 200;
    const send = (event: WatchEvent) => res.write(`${JSON.stringify(event)}\n`);
    const from = Number(query.resourceVersion ?? '0');
    // No history is kept: whatever changed since the client's list is sent as
    // its current state, which is all a client of a watch may rely on.
    for (const object of store.list(kind, namespace, name)) {
      const rv = Number((object.metadata as JsonObject).resourceVersion);
      if (!(from > 0) || rv > from) send({ type: from > 0 ? 'MODIFIED' : 'ADDED', object });
    }
    const stop = store.watch(kind, namespace, name, send);
    unwatch.add(stop);
    const end = () => {
      stop();
      unwatch.delete(stop);
      res.end();
    };
    res.on('close', end);
    const seconds = Number(query.timeoutSeconds ?? '0');
    if (seconds > 0) {
      const timer = setTimeout(() => {
        pending.delete(timer);
        end();
      }, seconds * 1000);
      pending.add(timer);
    }
  };

  const serveObjects = async (
    res: ServerResponse,
    record: RecordedRequest,
    facts: RouteFacts & { namespace: string; kind: FakeKind },
    query: Record<string, string>,
  ): Promise<void> => {
    const { kind, namespace, name } = facts;
    const plural = kind === 'Deployment' ? 'deployments' : 'daemonsets';
    const missing = () => sendStatus(res, 404, `${plural}.apps "${name}" not found`);
    switch (facts.route) {
      case 'get': {
        const object = store.get(kind, namespace, name ?? '');
        if (object === undefined) missing();
        else sendJson(res, 200, object);
        return;
      }
      case 'list': {
        const items = store.list(kind, namespace, nameFromSelector(query.fieldSelector));
        sendJson(res, 200, {
          kind: `${kind}List`,
          apiVersion: 'apps/v1',
          metadata: { resourceVersion: store.resourceVersion },
          items,
        });
        return;
      }
      case 'watch':
        serveWatch(res, record, kind, namespace, query);
        return;
      case 'patch': {
        const type = PATCH_TYPES[(record.contentType ?? '').split(';')[0]?.trim() ?? ''];
        if (type === undefined) {
          throw new NotModelled(`PATCH with content type "${record.contentType}" is not modelled`);
        }
        let body: Json;
        try {
          body = JSON.parse(record.body) as Json;
        } catch (e) {
          sendStatus(res, 400, `error decoding patch: ${(e as Error).message}`);
          return;
        }
        const manager = query.fieldManager ?? (record.userAgent ?? 'unknown').split('/')[0] ?? 'unknown';
        try {
          // dryRun=All (`tick --dry-run`): checked and answered as the real write, persisted nowhere.
          const patched = store.patch(kind, namespace, name ?? '', type, body, manager, {
            dryRun: query.dryRun === 'All',
          });
          if (patched === undefined) missing();
          else sendJson(res, 200, patched);
        } catch (e) {
          if (e instanceof Unmodelled) throw new NotModelled(e.message);
          if (e instanceof BadPatch) {
            sendStatus(res, 422, `${plural}.apps "${name}" is invalid: ${e.message}`);
            return;
          }
          throw e;
        }
        return;
      }
      default:
        throw new NotModelled(`route ${facts.route} on ${kind}`);
    }
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const query = Object.fromEntries(url.searchParams);
    const body = await readBody(req);
    const method = req.method ?? 'GET';
    const namespacePath = NAMESPACE_PATH.exec(url.pathname);
    const eventsPath = EVENTS_PATH.exec(url.pathname);
    const { route, kind, namespace, name } = classifyRequest(method, url.pathname, query);
    const authorization = req.headers.authorization;
    const record: RecordedRequest = {
      auth: authorization === undefined ? 'anonymous' : authorization === `Bearer ${token}` ? 'token' : 'wrong-token',
      method,
      path: url.pathname,
      query,
      route: route ?? 'unexpected',
      kind,
      namespace,
      name,
      contentType: req.headers['content-type'],
      userAgent: req.headers['user-agent'],
      body,
    };
    requests.push(record);
    res.on('finish', () => {
      record.status ??= res.statusCode;
    });

    const refuse = (problem: string) => {
      record.route = 'unexpected';
      record.problem = problem;
      unexpected.push(record);
      sendStatus(
        res,
        501,
        `fake API server: ${problem} (${method} ${url.pathname}${url.search}). Model it in test/support/fake-api-server.ts if a client really needs it.`,
        'NotImplemented',
      );
    };

    if (record.auth === 'wrong-token' || (record.auth === 'anonymous' && !anonymous)) {
      sendStatus(res, 401, 'Unauthorized');
      return;
    }
    if (route === undefined) {
      refuse(`${method} ${url.pathname} is not modelled`);
      return;
    }
    const unknown = Object.keys(query).filter((k) => !KNOWN_QUERY[route].includes(k));
    if (unknown.length > 0) {
      refuse(`query parameter(s) ${unknown.join(', ')} on ${route} are not modelled`);
      return;
    }
    const facts: RouteFacts = { route, method, kind, name, body };
    const serve = () => {
      const go = async () => {
        switch (route) {
          case 'version':
            sendJson(res, 200, VERSION);
            return;
          case 'discovery':
            sendJson(
              res,
              200,
              url.pathname === '/api'
                ? apiVersions(address)
                : url.pathname === '/apis'
                  ? API_GROUP_LIST
                  : url.pathname === '/api/v1'
                    ? CORE_V1_RESOURCES
                    : url.pathname === '/apis/events.k8s.io/v1'
                      ? EVENTS_V1_RESOURCES
                      : APPS_V1_RESOURCES,
            );
            return;
          case 'event': {
            const eventNamespace = decodeURIComponent(eventsPath?.[1] ?? '');
            const eventName = eventsPath?.[2] === undefined ? undefined : decodeURIComponent(eventsPath[2]);
            let parsed: Json = null;
            if (method !== 'GET') {
              try {
                parsed = JSON.parse(body) as Json;
              } catch (e) {
                sendStatus(res, 400, `error decoding body: ${(e as Error).message}`);
                return;
              }
            }
            // Writes go through events.k8s.io/v1 only, as the adapter's do;
            // core/v1 is served read-only, for kubectl.
            const view = url.pathname.startsWith('/apis/events.k8s.io/') ? 'events.k8s.io/v1' : 'v1';
            const answer =
              view === 'events.k8s.io/v1' && method === 'POST' && eventName === undefined
                ? events.create(eventNamespace, parsed)
                : view === 'events.k8s.io/v1' && method === 'PATCH' && eventName !== undefined
                  ? (record.contentType ?? '').startsWith('application/merge-patch+json')
                    ? events.patch(eventNamespace, eventName, parsed)
                    : undefined
                  : method === 'GET' && eventName !== undefined
                    ? events.get(eventNamespace, eventName, view)
                    : method === 'GET'
                      ? { code: 200, body: events.list(eventNamespace, view) }
                      : undefined;
            if (answer === undefined)
              throw new NotModelled(`${method} on events with ${record.contentType ?? 'no body'}`);
            const statusish = answer.body as { message?: string; reason?: string };
            if (answer.code >= 400) sendStatus(res, answer.code, statusish.message ?? 'failed', statusish.reason);
            else sendJson(res, answer.code, answer.body as Json);
            return;
          }
          case 'namespace': {
            const wanted = decodeURIComponent(namespacePath?.[1] ?? '');
            if (store.namespaces().has(wanted) || wanted === 'default') {
              sendJson(res, 200, {
                kind: 'Namespace',
                apiVersion: 'v1',
                metadata: { name: wanted },
                spec: { finalizers: ['kubernetes'] },
                status: { phase: 'Active' },
              });
            } else {
              sendStatus(res, 404, `namespaces "${wanted}" not found`);
            }
            return;
          }
          default:
            if (kind === undefined || namespace === undefined) throw new NotModelled(`${route} without an object`);
            await serveObjects(res, record, { ...facts, kind, namespace }, query);
        }
      };
      go().catch((e: unknown) => {
        if (e instanceof NotModelled) refuse(e.message);
        else if (!res.headersSent) sendStatus(res, 500, `fake API server defect: ${String(e)}`);
      });
    };
    const fault = takeFault(facts);
    if (fault === undefined) {
      serve();
      return;
    }
    record.fault = fault.kind;
    answerFault(res, record, fault, serve);
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((e: unknown) => {
      if (!res.headersSent) sendStatus(res, 500, `fake API server defect: ${String(e)}`);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  address = `127.0.0.1:${port}`;

  return {
    url: `http://127.0.0.1:${port}`,
    port,
    token,
    store,
    events,
    requests,
    unexpected,
    inject: (match, fault, times = 1) => {
      faults.push({ match, fault, remaining: times });
    },
    clearFaults: () => {
      faults = [];
    },
    resetLog: () => {
      requests.length = 0;
      unexpected.length = 0;
    },
    setBehaviour: (kind, namespace, name, behaviour) => store.setBehaviour(kind, namespace, name, behaviour),
    close: async () => {
      store.stop();
      for (const timer of pending) clearTimeout(timer);
      for (const stop of unwatch) stop();
      server.closeAllConnections();
      await new Promise<void>((resolve, reject) => server.close((e) => (e ? reject(e) : resolve())));
    },
  };
};
