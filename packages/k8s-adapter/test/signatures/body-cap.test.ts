import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nodeHttpFetch } from '../../src/registry/http-transport.js';
import { type LocalServer, listenLocal } from '../support/registry-local-server.js';

// The transport stops reading a body past HttpInit.maxBodyBytes: a registry
// streaming an endless signature manifest costs the check that cap of memory,
// not the whole answer (a size limit on everything read).

describe('nodeHttpFetch with maxBodyBytes', () => {
  let server: LocalServer;
  const CHUNK = Buffer.alloc(16 * 1024, 'x');
  const CHUNKS = 640; // 10 MiB if read to the end

  beforeAll(async () => {
    server = await listenLocal((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      let sent = 0;
      const more = (): void => {
        while (sent < CHUNKS) {
          sent += 1;
          if (!response.write(CHUNK)) {
            response.once('drain', more);
            return;
          }
        }
        response.end();
      };
      response.on('close', () => {
        sent = CHUNKS;
      });
      more();
    });
  });
  afterAll(async () => {
    await server?.close();
  });

  it('cuts the body shortly after the cap, longer than the cap so the caller can tell', async () => {
    const answer = await nodeHttpFetch(new URL(`${server.url}/v2/r/manifests/big`), {
      method: 'GET',
      headers: {},
      signal: AbortSignal.timeout(5_000),
      maxBodyBytes: 100_000,
    });
    const body = await answer.text();
    expect(body.length).toBeGreaterThan(100_000);
    expect(body.length).toBeLessThan(1024 * 1024);
  });

  it('reads the whole body without a cap', async () => {
    const answer = await nodeHttpFetch(new URL(`${server.url}/v2/r/manifests/big`), {
      method: 'GET',
      headers: {},
      signal: AbortSignal.timeout(5_000),
    });
    expect((await answer.text()).length).toBe(CHUNK.length * CHUNKS);
  });
});
