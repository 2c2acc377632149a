import type { Profile } from '../config/profile/profile.js';

/**
 * A topology nobody hand-checked against the chart (docs/profiles.md, "a
 * shop"): a web Deployment of two containers (web, and a log sidecar of its
 * own image) gates the tick and keeps the bookkeeping under
 * `shop.example.com/`; a worker Deployment runs the web image too and may be
 * refreshed past an unsettled web; an agent DaemonSet runs in another
 * namespace.
 */
export const SHOP_PROFILE: Profile = {
  annotationPrefix: 'shop.example.com',
  gate: 'web',
  frozenHint: "check the web pod's readiness probe:\n  kubectl -n shop describe pods -l app=web",
  images: [
    { name: 'web', repository: 'shop/web', pinnedBy: 'WEB_PINNED' },
    { name: 'log', repository: 'shop/log' },
    { name: 'agent', repository: 'shop/agent' },
  ],
  workloads: [
    { id: 'web', kind: 'Deployment', namespace: 'shop', name: 'web', containers: { web: 'web', log: 'log' } },
    {
      id: 'worker',
      kind: 'Deployment',
      namespace: 'shop',
      name: 'worker',
      containers: { worker: 'web' },
      decoupled: true,
    },
    {
      id: 'agent',
      kind: 'DaemonSet',
      namespace: 'shop-nodes',
      name: 'agent',
      containers: { agent: 'agent' },
      decoupled: true,
    },
  ],
};
