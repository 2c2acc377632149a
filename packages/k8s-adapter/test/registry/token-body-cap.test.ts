import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as O from 'fp-ts/lib/Option.js';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { nodeHttpFetch } from '../../src/registry/http-transport.js';
import { registryClient } from '../../src/registry/registry-client.js';
import { requestToken } from '../../src/registry/token-request.js';

// A token answer is a few kilobytes. A realm named by IMAGE_REFRESH_AUTH_URL,
// or followed from a 401, that streams a body without end must not fill a
// tick's 64 MiB: the token request stops reading at its cap, and what it read
// does not parse — a Malformed answer, not a token and not a hang.

let server: Server;
let sent = 0;
const HUGE = 8 * 1024 * 1024;

beforeAll(async () => {
  server = createServer((_req, res) => {
    res.writeHead(200, { 'Content-Type': 'application/json' });
    // A JSON string that never closes in time: `{"token":"aaaa…`.
    res.write('{"token":"');
    const chunk = 'a'.repeat(64 * 1024);
    const pump = () => {
      while (sent < HUGE) {
        sent += chunk.length;
        if (!res.write(chunk)) return res.once('drain', pump);
      }
      res.end('"}');
    };
    pump();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

it('a token endpoint that answers megabytes is read only up to the cap, and its answer is Malformed', async () => {
  const { port } = server.address() as AddressInfo;
  const realm = new URL(`http://127.0.0.1:${port}/token`);
  const client = registryClient({ baseUrl: `http://127.0.0.1:${port}/`, timeoutMs: 5_000, fetch: nodeHttpFetch });
  const answer = await requestToken(client, { realm, service: O.some('registry.test'), scope: O.none, error: O.none }, [
    'repository:tracebloc/jobs-manager:pull',
  ]);
  expect(answer._tag).toBe('Left');
  if (answer._tag === 'Left') expect(answer.left._tag).toBe('Malformed');
  // The transport stopped long before the 8 MiB the server had to say.
  expect(sent).toBeLessThan(HUGE);
});
