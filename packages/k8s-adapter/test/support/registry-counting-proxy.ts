import { forwardTo } from './registry-forward.js';
import { type LocalServer, listenLocal } from './registry-local-server.js';

// Counts what actually reaches the registry: the request budget is asserted
// on the wire, not on the adapter's intentions. Forwards verbatim to one
// 127.0.0.1 target.

export const startCountingProxy = async (target: string): Promise<LocalServer> =>
  listenLocal((incoming, outgoing) => forwardTo(target, incoming, outgoing));
