import type { FakeRoute } from './fake-api-faults.js';
import type { FakeKind } from './fake-api-objects.js';

// Which of the routes the tests model a request is: the fake API server
// serves exactly these, and the proxy in front of the real apiserver
// (real-cluster/api-proxy.ts) files the requests it forwards under the same
// names, so a test asserts the same "one GET of the jobs-manager Deployment"
// on either server.

const RESOURCES: Readonly<Record<string, FakeKind>> = { deployments: 'Deployment', daemonsets: 'DaemonSet' };
const OBJECT_PATH = /^\/apis\/apps\/v1\/namespaces\/([^/]+)\/(deployments|daemonsets)(?:\/([^/]+))?$/;
const DISCOVERY_PATHS = new Set(['/api', '/apis', '/api/v1', '/apis/apps/v1', '/apis/events.k8s.io/v1']);
/** core/v1 (read: kubectl) or events.k8s.io/v1 (read and write: the adapter), one store. */
export const EVENTS_PATH = /^\/(?:api\/v1|apis\/events\.k8s\.io\/v1)\/namespaces\/([^/]+)\/events(?:\/([^/]+))?$/;
/** kubectl asks whether the namespace exists when an object in it is not found, to word its error. */
export const NAMESPACE_PATH = /^\/api\/v1\/namespaces\/([^/]+)$/;

export interface ClassifiedRequest {
  /** undefined: none of the modelled routes. */
  readonly route: FakeRoute | undefined;
  readonly kind?: FakeKind | undefined;
  readonly namespace?: string | undefined;
  readonly name?: string | undefined;
}

export const classifyRequest = (
  method: string,
  pathname: string,
  query: Readonly<Record<string, string>>,
): ClassifiedRequest => {
  const objectPath = OBJECT_PATH.exec(pathname);
  const kind = objectPath?.[2] === undefined ? undefined : RESOURCES[objectPath[2]];
  const namespace = objectPath?.[1];
  const name = objectPath?.[3];
  const route: FakeRoute | undefined =
    pathname === '/version' && method === 'GET'
      ? 'version'
      : DISCOVERY_PATHS.has(pathname) && method === 'GET'
        ? 'discovery'
        : NAMESPACE_PATH.test(pathname) && method === 'GET'
          ? 'namespace'
          : EVENTS_PATH.test(pathname) && ['GET', 'POST', 'PATCH'].includes(method)
            ? 'event'
            : objectPath === null
              ? undefined
              : method === 'GET' && name !== undefined
                ? 'get'
                : method === 'GET' && (query.watch === 'true' || query.watch === '1')
                  ? 'watch'
                  : method === 'GET'
                    ? 'list'
                    : method === 'PATCH' && name !== undefined
                      ? 'patch'
                      : undefined;
  return { route, kind, namespace, name };
};
