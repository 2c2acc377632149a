import type { ServerResponse } from 'node:http';
import type { RegistryFault } from '@image-refresh/core/sim';
import { forwardTo, manifestRepo } from '../../support/registry-forward.js';
import { type LocalServer, listenLocal } from '../../support/registry-local-server.js';

// The real registry (docker-registry) cannot be told to rate-limit, hang or
// answer a garbage digest for one repository, and the simulator's
// registry-outage story needs exactly that. So the adapter talks to this
// proxy: it forwards every request verbatim to the real registry, except the
// manifest requests of a repository armed with a fault, which it answers as
// a misbehaving Docker Hub would. Every request that reaches it is counted
// (`seen`), so the request budget is asserted on the wire.

/** The simulator's registry faults this proxy can stage, and nothing else. */
export type ProxyFault = Extract<RegistryFault, 'RateLimited' | 'Hang' | 'Garbage'>;

export const isProxyFault = (fault: RegistryFault): fault is ProxyFault =>
  fault === 'RateLimited' || fault === 'Hang' || fault === 'Garbage';

export interface FaultProxy extends LocalServer {
  /** Answer every manifest request of `repo` with `fault` until disarmed. */
  arm(repo: string, fault: ProxyFault): void;
  disarm(repo: string): void;
  /** Every manifest request answered by a fault instead of the registry, as `repo fault`. */
  readonly faulted: string[];
}

const answerFault = (fault: ProxyFault, response: ServerResponse): void => {
  switch (fault) {
    case 'RateLimited':
      // Docker Hub's 429: a distribution error body and the budget headers.
      response.writeHead(429, {
        'content-type': 'application/json',
        'ratelimit-limit': '100;w=21600',
        'ratelimit-remaining': '0;w=21600',
      });
      response.end(
        JSON.stringify({
          errors: [{ code: 'TOOMANYREQUESTS', message: 'You have reached your pull rate limit.' }],
        }),
      );
      return;
    case 'Hang':
      // Never answered: the adapter's REGISTRY_TIMEOUT has to end it; close() drops the socket.
      return;
    case 'Garbage':
      response.writeHead(200, {
        'content-type': 'application/vnd.oci.image.manifest.v1+json',
        'docker-content-digest': 'sha256:not-a-digest',
      });
      response.end();
      return;
  }
};

export const startFaultProxy = async (target: string): Promise<FaultProxy> => {
  const armed = new Map<string, ProxyFault>();
  const faulted: string[] = [];
  const server = await listenLocal((incoming, outgoing) => {
    const repo = manifestRepo(incoming);
    const fault = repo === undefined ? undefined : armed.get(repo);
    if (repo !== undefined && fault !== undefined) {
      faulted.push(`${repo} ${fault}`);
      // Drain the (empty) request so the connection stays usable.
      incoming.resume();
      answerFault(fault, outgoing);
      return;
    }
    forwardTo(target, incoming, outgoing);
  });
  return {
    ...server,
    faulted,
    arm: (repo, fault) => {
      armed.set(repo, fault);
    },
    disarm: (repo) => {
      armed.delete(repo);
    },
  };
};
