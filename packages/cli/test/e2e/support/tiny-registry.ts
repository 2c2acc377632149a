import { createHash } from 'node:crypto';
import { type LocalServer, listenLocal } from '../../../../k8s-adapter/test/support/registry-local-server.js';

// An anonymous registry that answers every manifest HEAD with a digest of its
// own making (sha256 of repo:tag#build), or never answers at all: for the
// process-level stories (closed pipes, signals, hanging servers), which need a
// tick to get past the resolve step fast and without docker-registry.

export interface TinyRegistry extends LocalServer {
  /** A new build behind every tag: the next tick sees drift everywhere. */
  bump(): void;
  /** From now on, never answer (the connection stays open until close). */
  hang(): void;
}

export const tinyDigest = (repo: string, tag: string, build: number): string =>
  `sha256:${createHash('sha256').update(`${repo}:${tag}#${build}`).digest('hex')}`;

const MANIFEST = /^\/v2\/(.+)\/manifests\/([^/]+)$/;

export const startTinyRegistry = async (): Promise<TinyRegistry> => {
  let build = 1;
  let hanging = false;
  const server = await listenLocal((request, response) => {
    if (hanging) return;
    const match = MANIFEST.exec(request.url ?? '');
    if (match === null || (request.method !== 'HEAD' && request.method !== 'GET')) {
      response.writeHead(404).end();
      return;
    }
    response.writeHead(200, {
      'content-type': 'application/vnd.oci.image.index.v1+json',
      'docker-content-digest': tinyDigest(decodeURIComponent(match[1] ?? ''), match[2] ?? '', build),
      // Docker Hub's budget headers, on every manifest answer as Hub sends them.
      'ratelimit-limit': '100;w=21600',
      'ratelimit-remaining': '90;w=21600',
    });
    response.end();
  });
  return {
    ...server,
    bump: () => {
      build += 1;
    },
    hang: () => {
      hanging = true;
    },
  };
};
