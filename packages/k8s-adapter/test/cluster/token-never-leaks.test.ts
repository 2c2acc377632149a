import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describePortError, type PortError, skipStreakSet } from '@image-refresh/core';
import { KubeConfig } from '@kubernetes/client-node';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { CHART_TOPOLOGY } from '../../../core/test/support/chart.js';
import { createClusterPort } from '../../src/cluster/index.js';
import { type ChartCluster, JOBS_MANAGER, startChartCluster } from '../support/fake-api-chart.js';
import { guardRead, left, portOn, refs, run, testConfig } from './cluster-test-kit.js';

// The bearer token never appears in an error text or a log line, even when
// the server (or a proxy in front of it) echoes the request's credentials
// back in its error body. The token here is known to the test, so its
// absence is checked literally, in everything the adapter hands out.

// Service-account tokens are JWTs; this one is shaped like one.
const JWT =
  'eyJhbGciOiJSUzI1NiIsImtpZCI6ImZha2UifQ.eyJzdWIiOiJzeXN0ZW06c2VydmljZWFjY291bnQ6dHJhY2VibG9jOmltYWdlLXJlZnJlc2gifQ.c2lnbmF0dXJlLW5vdC1yZWFs';

let cluster: ChartCluster | undefined;
const dirs: string[] = [];
afterEach(async () => {
  vi.restoreAllMocks();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  const c = cluster;
  cluster = undefined;
  await c?.close();
});

/** Everything written to the console while `act` runs. */
const consoleOutput = async (act: () => Promise<void>): Promise<string> => {
  const written: string[] = [];
  const capture = (...args: unknown[]) => {
    written.push(args.map(String).join(' '));
  };
  for (const method of ['log', 'info', 'warn', 'error', 'debug'] as const) {
    vi.spyOn(console, method).mockImplementation(capture);
  }
  const stderr = vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
    written.push(String(chunk));
    return true;
  });
  await act();
  stderr.mockRestore();
  return written.join('\n');
};

/** The user shape loadFromCluster builds: the token is read from its file at request time. */
const tokenFileKubeConfig = (c: ChartCluster, token: string): KubeConfig => {
  const dir = mkdtempSync(join(tmpdir(), 'sa-token-'));
  dirs.push(dir);
  const tokenFile = join(dir, 'token');
  writeFileSync(tokenFile, token);
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: 'fake', server: c.server.url, skipTLSVerify: true }],
    users: [{ name: 'sa', authProvider: { name: 'tokenFile', config: { tokenFile } } }],
    contexts: [{ name: 'fake', cluster: 'fake', user: 'sa' }],
    currentContext: 'fake',
  });
  return kc;
};

const echoing = (token: string) =>
  `deployments.apps "${JOBS_MANAGER}" is forbidden: request carried "Authorization: Bearer ${token}" (token ${token})`;

describe('the bearer token never leaks', () => {
  it('is absent from a PortError whose server message echoes it, and from everything logged meanwhile', async () => {
    cluster = await startChartCluster();
    const c = cluster;
    const token = c.server.token;
    c.server.inject({ route: 'get' }, { kind: 'status', code: 403, message: echoing(token) });
    let error: PortError | undefined;
    const logged = await consoleOutput(async () => {
      error = left(await run(guardRead(portOn(c))));
    });
    expect(error?._tag).toBe('Forbidden');
    const text = describePortError(error as PortError);
    expect(text).toContain('is forbidden');
    expect(text).toContain('[REDACTED]');
    expect(text).not.toContain(token);
    expect(logged).not.toContain(token);
  });

  it('is absent from a plain-text error body that echoes it without the Bearer prefix', async () => {
    cluster = await startChartCluster();
    const c = cluster;
    const token = c.server.token;
    c.server.inject(
      { route: 'patch' },
      { kind: 'raw', code: 500, contentType: 'text/plain', body: `proxy error for credential ${token}` },
    );
    const error = left(await run(portOn(c).patchBookkeeping(skipStreakSet(CHART_TOPOLOGY, 1))));
    expect(error.message).toContain('proxy error for credential [REDACTED]');
    expect(error.message).not.toContain(token);
  });

  it('is absent from progress lines and from a timed-out rollout that ended on an echoing error', async () => {
    cluster = await startChartCluster({ behaviour: 'stalls', stepMs: 20 });
    const c = cluster;
    const token = c.server.token;
    const lines: string[] = [];
    const port = portOn(c, testConfig(), { progressIntervalMs: 50, onProgress: (l) => lines.push(l) });
    const digest = `sha256:${'e'.repeat(64)}`;
    expect((await run(port.setImages(refs().jobsManager, [{ container: 'api', image: `x@${digest}` }])))._tag).toBe(
      'Right',
    );
    setTimeout(
      () => c.server.inject({ route: 'get' }, { kind: 'status', code: 500, message: echoing(token) }, Infinity),
      100,
    );
    const error = left(await run(port.waitForRollout(refs().jobsManager, 300)));
    expect(error._tag).toBe('RolloutTimedOut');
    expect(error.message).toContain('the last read failed');
    expect(error.message).not.toContain(token);
    expect(lines.some((l) => l.includes('the last read failed'))).toBe(true);
    expect(lines.join('\n')).not.toContain(token);
  });

  it('is absent when the token comes from a file, as in-cluster, and the adapter never saw it', async () => {
    cluster = await startChartCluster({ token: JWT });
    const c = cluster;
    const kc = tokenFileKubeConfig(c, JWT);
    const port = createClusterPort(kc, testConfig());
    c.server.inject({ route: 'get' }, { kind: 'status', code: 403, message: echoing(JWT) });
    const error = left(await run(guardRead(port)));
    expect(c.server.requests.map((r) => r.auth)).toEqual(['token']);
    expect(error.message).toContain('is forbidden');
    expect(error.message).not.toContain(JWT);
    // Not even its signature, the part that is no JSON.
    expect(error.message).not.toContain(JWT.split('.')[2]);
  });

  it('is absent when a token file holds a token that looks like no credential at all', async () => {
    // Not a JWT, never after "Bearer " in the echo: only its value can catch it.
    const plain = 'kd8Fq2mZ0pLr7sTu';
    cluster = await startChartCluster({ token: plain });
    const c = cluster;
    const kc = tokenFileKubeConfig(c, plain);
    c.server.inject(
      { route: 'get' },
      { kind: 'raw', code: 502, contentType: 'text/plain', body: `upstream refused credential ${plain}` },
    );
    const error = left(await run(createClusterPort(kc, testConfig()).readGate(0)));
    expect(c.server.requests.map((r) => r.auth)).toEqual(['token']);
    expect(error.message).toContain('upstream refused credential [REDACTED]');
    expect(error.message).not.toContain(plain);
  });

  it('never puts the token in the request line: it travels only in the Authorization header', async () => {
    cluster = await startChartCluster();
    const c = cluster;
    await run(guardRead(portOn(c)));
    for (const r of c.server.requests) {
      expect(`${r.path}?${new URLSearchParams(r.query as Record<string, string>)}`).not.toContain(c.server.token);
      expect(r.auth).toBe('token');
    }
  });
});
