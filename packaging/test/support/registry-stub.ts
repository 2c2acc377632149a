import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

// An anonymous OCI registry that knows only manifest HEADs: each repo's tag
// answers with the digest the test published and Docker Hub's rate-limit
// headers. Anything else — a GET (it would count as a pull), another path —
// is a 405/404 and recorded, so a test can assert none happened.

export interface RegistryStub {
  readonly url: string;
  /** `repo` → digest its tag points to now. */
  readonly digests: Map<string, string>;
  /** `METHOD path` of every request, in order. */
  readonly requests: string[];
  close(): Promise<void>;
}

const MANIFEST = /^\/v2\/(.+)\/manifests\/([^/]+)$/;

export const startRegistryStub = async (digests: Readonly<Record<string, string>>): Promise<RegistryStub> => {
  const known = new Map(Object.entries(digests));
  const requests: string[] = [];
  const server = createServer((request, response) => {
    const path = request.url ?? '';
    requests.push(`${request.method} ${path}`);
    const match = MANIFEST.exec(path);
    const digest = match?.[1] === undefined ? undefined : known.get(match[1]);
    if (request.method !== 'HEAD') {
      response.writeHead(405).end();
    } else if (digest === undefined) {
      response.writeHead(404).end();
    } else {
      response
        .writeHead(200, {
          'docker-content-digest': digest,
          'content-type': 'application/vnd.oci.image.index.v1+json',
          'ratelimit-limit': '100;w=21600',
          'ratelimit-remaining': '97;w=21600',
        })
        .end();
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    digests: known,
    requests,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error === undefined ? resolve() : reject(error)));
      }),
  };
};
