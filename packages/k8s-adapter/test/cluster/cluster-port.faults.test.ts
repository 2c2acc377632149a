import { createServer } from 'node:net';
import { skipStreakSet } from '@image-refresh/core';
import { KubeConfig } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { CHART_TOPOLOGY } from '../../../core/test/support/chart.js';
import { createClusterPort } from '../../src/cluster/index.js';
import { JOBS_MANAGER } from '../support/fake-api-chart.js';
import type { Fault } from '../support/fake-api-faults.js';
import { writeFakeKubeconfig } from '../support/fake-api-kubeconfig.js';
import { chartWorkloads } from '../support/fake-api-objects.js';
import {
  chartClusterPerTest,
  guardRead,
  kubeConfigAt,
  left,
  portOn,
  refs,
  run,
  TIMING_SLACK_MS,
  testConfig,
} from './cluster-test-kit.js';

// Every way a request can fail, classified into core's PortError tags with
// the server's own words kept for the operator's log line (#571), and every
// request ended by API_TIMEOUT whatever the server does (I17). Nothing is
// swallowed, and nothing reads as success.

const start = chartClusterPerTest();

const observeWith = async (fault: Fault) => {
  const c = await start();
  c.server.inject({ route: 'get', name: JOBS_MANAGER }, fault);
  const began = Date.now();
  const error = left(await run(guardRead(portOn(c))));
  return { error, took: Date.now() - began, c };
};

describe('HTTP errors keep the apiserver Status message', () => {
  const statusCases: [number, string, string][] = [
    [404, 'NotFound', 'deployments.apps "stg-jobs-manager" not found'],
    [403, 'Forbidden', 'deployments.apps "stg-jobs-manager" is forbidden: User "system:serviceaccount:x" cannot get'],
    [500, 'Transport', 'Internal error occurred: etcdserver: request timed out'],
    [503, 'Transport', 'the server is currently unable to handle the request'],
    [429, 'Transport', 'Too many requests, please try again later.'],
    [504, 'Timeout', 'Timeout: request did not complete within requested timeout - context deadline exceeded'],
  ];
  it.each(statusCases)('HTTP %i → %s with the message', async (code, tag, message) => {
    const { error } = await observeWith({ kind: 'status', code, message });
    expect(error).toEqual({
      _tag: tag,
      status: code,
      message: `GET deployment/${JOBS_MANAGER} in tracebloc: ${message}`,
    });
  });

  it('a 401 (a token the server does not accept) is Unauthorized', async () => {
    const c = await start();
    const kc = writeFakeKubeconfig(c.server, { token: 'expired-token-0123456789' });
    const error = left(await run(guardRead(createClusterPort(kubeConfigAt(kc), testConfig()))));
    expect(error).toMatchObject({ _tag: 'Unauthorized', status: 401 });
    expect(error.message).toContain('Unauthorized');
    expect(c.server.requests.map((r) => r.auth)).toEqual(['wrong-token']);
    c.server.resetLog(); // the wrong token is this case's point
  });

  it('a plain-text 5xx from a proxy is Transport with the raw text, truncated when long', async () => {
    const body = `502 Bad Gateway: upstream connect error ${'x'.repeat(2_000)}`;
    const { error } = await observeWith({ kind: 'raw', code: 502, contentType: 'text/plain', body });
    expect(error._tag).toBe('Transport');
    expect(error.status).toBe(502);
    expect(error.message).toContain('502 Bad Gateway: upstream connect error');
    expect(error.message.length).toBeLessThan(700);
  });
});

describe('a server that does not answer is cut off at API_TIMEOUT', () => {
  it('a request that never gets an answer is a Timeout within the bound', async () => {
    const { error, took } = await observeWith({ kind: 'hang' });
    const bound = testConfig().apiTimeoutMs;
    expect(error._tag).toBe('Timeout');
    expect(error.message).toContain(`no answer within ${bound} ms (API_TIMEOUT)`);
    expect(took).toBeGreaterThanOrEqual(bound - 20);
    expect(took).toBeLessThan(bound + TIMING_SLACK_MS);
  });

  it('an answer whose body never ends is a Timeout within the bound too', async () => {
    const { error, took } = await observeWith({ kind: 'hangBody' });
    expect(error._tag).toBe('Timeout');
    expect(took).toBeLessThan(testConfig().apiTimeoutMs + TIMING_SLACK_MS);
  });

  it('a write that hangs is cut off the same way', async () => {
    const c = await start();
    c.server.inject({ route: 'patch' }, { kind: 'hang' });
    const began = Date.now();
    expect(left(await run(portOn(c).patchBookkeeping(skipStreakSet(CHART_TOPOLOGY, 1))))._tag).toBe('Timeout');
    expect(Date.now() - began).toBeLessThan(testConfig().apiTimeoutMs + TIMING_SLACK_MS);
  });

  it('a slow answer inside the bound is just an answer', async () => {
    const c = await start();
    c.server.inject({ route: 'get' }, { kind: 'delay', ms: 100 });
    const result = await run(guardRead(portOn(c)));
    expect(result._tag).toBe('Right');
  });
});

describe('answers that cannot be read are Malformed, never zeros', () => {
  it('a body that is not JSON', async () => {
    const { error } = await observeWith({ kind: 'malformed' });
    expect(error._tag).toBe('Malformed');
    expect(error.message).toContain(`GET deployment/${JOBS_MANAGER}`);
  });

  it('JSON that is not the Deployment asked for', async () => {
    const { error } = await observeWith({ kind: 'wrongShape', body: '{"kind":"Status","apiVersion":"v1"}' });
    expect(error._tag).toBe('Malformed');
    expect(error.message).toContain('not a Deployment');
  });

  it('a Deployment whose status counts are not numbers', async () => {
    const object = chartWorkloads().jobsManager;
    object.status = { observedGeneration: 1, replicas: 'one', updatedReplicas: 1, availableReplicas: 1 };
    const { error } = await observeWith({ kind: 'wrongShape', body: JSON.stringify(object) });
    expect(error._tag).toBe('Malformed');
    expect(error.message).toContain('status.replicas is "one", not a count');
  });

  it('an annotation that is not a string', async () => {
    const object = chartWorkloads().jobsManager;
    (object.metadata as Record<string, unknown>).annotations = { 'tracebloc.io/refresh-skip-streak': 3 };
    const { error } = await observeWith({ kind: 'wrongShape', body: JSON.stringify(object) });
    expect(error._tag).toBe('Malformed');
    expect(error.message).toContain('metadata.annotations["tracebloc.io/refresh-skip-streak"] is not a string');
  });
});

describe('transport failures', () => {
  it('a dropped connection is Transport', async () => {
    const { error } = await observeWith({ kind: 'reset' });
    expect(error._tag).toBe('Transport');
    expect(error.message).toMatch(/socket hang up|ECONNRESET/);
  });

  it('a refused connection is Transport, naming ECONNREFUSED', async () => {
    // A port that was just free: bind, learn it, release it.
    const port = await new Promise<number>((resolve) => {
      const probe = createServer();
      probe.listen(0, '127.0.0.1', () => {
        const address = probe.address();
        probe.close(() => resolve(typeof address === 'object' && address !== null ? address.port : 0));
      });
    });
    const kc = writeFakeKubeconfig({ url: `http://127.0.0.1:${port}`, token: 'unused-token-abcdef' });
    const cluster = createClusterPort(kubeConfigAt(kc), testConfig());
    const error = left(await run(guardRead(cluster)));
    expect(error._tag).toBe('Transport');
    expect(error.message).toContain('ECONNREFUSED');
    expect(left(await run(cluster.setImages(refs().requestsProxy, [{ container: 'proxy', image: 'x' }])))._tag).toBe(
      'Transport',
    );
  });

  it('a kubeconfig with no current cluster fails every call, naming why', async () => {
    const port = createClusterPort(new KubeConfig(), testConfig());
    const error = left(await run(guardRead(port)));
    expect(error).toMatchObject({ _tag: 'Transport' });
    expect(error.message).toContain('no current cluster');
    expect(left(await run(port.waitForRollout(refs().jobsManager, 1_000)))._tag).toBe('Transport');
  });
});
