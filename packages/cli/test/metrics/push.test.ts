import { createServer, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pushMetrics } from '../../src/metrics/push.js';

// The push's two bounds on a gateway that never answers: API_TIMEOUT, and the
// tick's abort signal (docs/behaviour.md §3, Bounds) — whichever comes first.

describe('pushMetrics on a gateway that hangs', () => {
  let server: Server;
  let url: string;
  const sockets: Socket[] = [];
  beforeAll(async () => {
    server = createServer((socket) => sockets.push(socket));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    url = `http://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}/metrics/job/x`;
  });
  afterAll(() => {
    for (const socket of sockets) socket.destroy();
    server.close();
  });

  it('ends as a Timeout at its bound', async () => {
    const started = Date.now();
    const result = await pushMetrics(url, 'm 1\n', { timeoutMs: 200 });
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(result).toMatchObject({ _tag: 'Left', left: { _tag: 'Timeout' } });
    expect(result._tag === 'Left' ? result.left.message : '').toContain('did not answer within 200 ms');
  });

  it('ends when the tick’s signal aborts, long before its bound', async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const started = Date.now();
    const result = await pushMetrics(url, 'm 1\n', { timeoutMs: 30_000, signal: controller.signal });
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(result).toMatchObject({ _tag: 'Left', left: { _tag: 'Transport' } });
    expect(result._tag === 'Left' ? result.left.message : '').toContain('was aborted: the tick was told to stop');
  });
});
