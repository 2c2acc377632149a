import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { aWorld, runCli, theLine } from '../support/sim-connection.js';

// The push's variables are part of the tick's configuration: malformed is
// exit 2 naming the variable, before the cluster is even connected (I18).

describe('image-refresh tick with PUSHGATEWAY_URL set', () => {
  it('a malformed METRICS_GROUPING is exit 2, names the variable, and never connects', async () => {
    const world = aWorld();
    const { exitCode, stderr, connected } = await runCli(['tick'], world, {
      PUSHGATEWAY_URL: 'http://127.0.0.1:9',
      METRICS_GROUPING: 'edge',
    });
    expect(exitCode).toBe(2);
    expect(theLine(stderr, 'METRICS_GROUPING')).toBe(
      '[image-refresh] ERROR: configuration: METRICS_GROUPING="edge": "edge" is not label=value (k=v,… with a value)',
    );
    expect(connected).toBe(0);
    expect(world.calls).toEqual([]);
  });

  it('the same METRICS_GROUPING without PUSHGATEWAY_URL changes nothing: the push is off', async () => {
    const world = aWorld();
    const { exitCode } = await runCli(['tick'], world, { METRICS_GROUPING: 'edge' });
    expect(exitCode).toBe(0);
  });
});

describe('image-refresh tick pushing to a gateway on 127.0.0.1', () => {
  let server: Server;
  let url: string;
  const received: string[] = [];
  beforeAll(async () => {
    server = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => {
        body += chunk.toString('utf8');
      });
      request.on('end', () => {
        received.push(`${request.method} ${request.url}\n${body}`);
        response.end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    url = `http://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}`;
  });
  afterAll(() => server.close());

  it('a tick makes one POST to /metrics/job/image-refresh/namespace/<ns>/release/<release>', async () => {
    received.length = 0;
    const { exitCode } = await runCli(['tick'], aWorld(), { PUSHGATEWAY_URL: url });
    expect(exitCode).toBe(0);
    expect(received).toHaveLength(1);
    expect(received[0]).toMatch(/^POST \/metrics\/job\/image-refresh\/namespace\/tracebloc\/release\/stg\n/);
    expect(received[0]).toContain('\nimage_refresh_exit_code 0\n');
  });

  it('--dry-run pushes nothing: it writes nothing, and a push would tell the fleet a tick ran', async () => {
    received.length = 0;
    const { exitCode } = await runCli(['tick', '--dry-run'], aWorld(), { PUSHGATEWAY_URL: url });
    expect(exitCode).toBe(0);
    expect(received).toEqual([]);
  });
});
