import type { Profile } from '../../src/config/profile/profile.js';

// The shop behind a private mirror (docs/behaviour.md §3.3): one image on a
// registry of its own, one on Docker Hub, both pulled through the mirror.

export const MIRROR = 'mirror.local:5000';

export const MIRRORED_SHOP: Profile = {
  annotationPrefix: 'shop.example.com',
  gate: 'web',
  mirror: MIRROR,
  images: [
    { name: 'web', repository: 'registry.example/shop/web' },
    { name: 'log', repository: 'shop/log' },
  ],
  workloads: [
    { id: 'web', kind: 'Deployment', namespace: 'shop', name: 'web', containers: { web: 'web', log: 'log' } },
  ],
};
