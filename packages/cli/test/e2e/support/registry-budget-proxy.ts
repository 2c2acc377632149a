import { forwardTo, manifestRepo } from '../../../../k8s-adapter/test/support/registry-forward.js';
import { type LocalServer, listenLocal } from '../../../../k8s-adapter/test/support/registry-local-server.js';

// Docker Hub tells every manifest answer how much of the anonymous pull
// budget is left (`ratelimit-remaining: 76;w=21600`); Debian's
// docker-registry sends no such header, so REGISTRY_BUDGET_FLOOR could never
// be crossed against it. This proxy forwards every request verbatim to the
// registry (in the story: the parity suite's fault proxy in front of it) and,
// while a budget is set, stamps Docker Hub's two headers on each manifest
// answer that succeeded — the answers the adapter reads the budget from.
// Everything it stamped is listed, so a story can prove the CLI saw it.

export interface BudgetProxy extends LocalServer {
  /** From now on stamp `ratelimit-remaining: n` of 100 per 6 h; undefined: stamp nothing (the registry's own headers). */
  setRemaining(remaining: number | undefined): void;
  /** Every manifest answer stamped, as `METHOD repo remaining`. */
  readonly stamped: string[];
}

export const startBudgetProxy = async (target: string): Promise<BudgetProxy> => {
  let remaining: number | undefined;
  const stamped: string[] = [];
  const server = await listenLocal((incoming, outgoing) => {
    const repo = manifestRepo(incoming);
    forwardTo(target, incoming, outgoing, (status, headers) => {
      if (repo === undefined || status !== 200 || remaining === undefined) return headers;
      stamped.push(`${incoming.method ?? ''} ${repo} ${remaining}`);
      return { ...headers, 'ratelimit-limit': '100;w=21600', 'ratelimit-remaining': `${remaining};w=21600` };
    });
  });
  return {
    ...server,
    stamped,
    setRemaining: (n) => {
      remaining = n;
    },
  };
};
