import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RegistryError, Resolution } from '@image-refresh/core';
import * as E from 'fp-ts/lib/Either.js';
import * as O from 'fp-ts/lib/Option.js';
import { afterEach, describe, expect, it } from 'vitest';
import { createRegistryPort, type RateLimitBudget } from '../../src/registry/index.js';
import { localOnlyHttp } from '../support/registry-local-fetch.js';
import { freePort, type LocalServer, listenLocal } from '../support/registry-local-server.js';

// What a real registry will not do on demand: hang, rate-limit, answer a
// garbage digest, hand out no token. Scripted node:http servers on
// 127.0.0.1; each case states the registry it describes and shares nothing.
// Mutations that redden it: no AbortSignal on a request (the hang cases), no
// digest check in manifest-head.ts, no redaction of issued tokens.

const DIGEST = `sha256:${'ab'.repeat(32)}`;
const TOKEN = 'eyJhbGciOiJub25lIn0.c2VjcmV0LXRva2VuLXZhbHVl.c2ln';
const JM = { host: 'docker.io', repo: 'tracebloc/jobs-manager', tag: 'prod' };
const PM = { host: 'docker.io', repo: 'tracebloc/pods-monitor', tag: 'prod' };

type Route = (request: IncomingMessage, response: ServerResponse, url: URL) => void;

const servers: LocalServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

const serve = async (route: Route): Promise<LocalServer> => {
  const server = await listenLocal((request, response) =>
    route(request, response, new URL(request.url ?? '/', 'http://127.0.0.1')),
  );
  servers.push(server);
  return server;
};

const hang: Route = () => undefined;

const portOn = (baseUrl: string, extra: { timeoutMs?: number; onRateLimit?: (b: RateLimitBudget) => void } = {}) =>
  createRegistryPort({ baseUrl, timeoutMs: extra.timeoutMs ?? 2_000, fetch: localOnlyHttp, ...extra });

const leftOf = (answer: E.Either<RegistryError, Resolution> | undefined): RegistryError => {
  if (answer === undefined || E.isRight(answer)) throw new Error(`expected a Left, got ${JSON.stringify(answer)}`);
  return answer.left;
};

describe('resolveDigests when the registry misbehaves', () => {
  it('registry down (connection refused) → Transport naming the cause, for every repo', async () => {
    const port = await freePort();
    const answers = await portOn(`http://127.0.0.1:${port}`).resolveDigests([JM, PM])();
    for (const answer of answers) {
      expect(answer).toMatchObject(E.left({ _tag: 'Transport' }));
      expect(leftOf(answer).message).toContain('ECONNREFUSED');
    }
  });

  it('a registry that never answers → Timeout at the request bound, the batch within its bound (I17)', async () => {
    const server = await serve(hang);
    const started = Date.now();
    const answers = await portOn(server.url, { timeoutMs: 200 }).resolveDigests([JM, PM])();
    const elapsed = Date.now() - started;
    for (const answer of answers) {
      expect(answer).toMatchObject(E.left({ _tag: 'Timeout' }));
      expect(leftOf(answer).message).toContain('did not answer within 200 ms');
    }
    // Probe, then the other repo on its own: two bounds, well inside core's 3 × n.
    expect(elapsed).toBeGreaterThanOrEqual(390);
    expect(elapsed).toBeLessThan(1_200);
  });

  it('a token endpoint that sends headers and never the body → Timeout (the bound covers the body)', async () => {
    const auth = await serve((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.write('{"tok');
    });
    const registry = await serve((_request, response) => {
      response.writeHead(401, { 'www-authenticate': `Bearer realm="${auth.url}/token",service="svc"` });
      response.end();
    });
    const started = Date.now();
    const answers = await portOn(registry.url, { timeoutMs: 200 }).resolveDigests([JM])();
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(answers[0]).toMatchObject(E.left({ _tag: 'Timeout' }));
    expect(leftOf(answers[0]).message).toMatch(/^token endpoint: GET http:\/\/127\.0\.0\.1:\d+\/token did not answer/);
  });

  it('429 with ratelimit headers → RateLimited with retry-after and the budget; the budget is surfaced', async () => {
    const server = await serve((_request, response) => {
      response.writeHead(429, {
        'retry-after': '3600',
        'ratelimit-limit': '100;w=21600',
        'ratelimit-remaining': '0;w=21600',
      });
      response.end();
    });
    const budgets: RateLimitBudget[] = [];
    const answers = await portOn(server.url, { onRateLimit: (b) => budgets.push(b) }).resolveDigests([JM])();
    expect(answers[0]).toMatchObject(E.left({ _tag: 'RateLimited' }));
    expect(leftOf(answers[0]).message).toContain('retry after 3600 s');
    expect(leftOf(answers[0]).message).toContain('ratelimit-remaining 0 of 100 per 21600 s');
    expect(budgets).toEqual([{ repo: JM.repo, remaining: 0, limit: O.some(100), windowSeconds: O.some(21600) }]);
  });

  it('a 200 with ratelimit headers → the remaining budget in the Resolution and through onRateLimit', async () => {
    const server = await serve((_request, response) => {
      response.writeHead(200, {
        'docker-content-digest': DIGEST,
        'RateLimit-Limit': '100;w=21600',
        'RateLimit-Remaining': '76;w=21600',
      });
      response.end();
    });
    const budgets: RateLimitBudget[] = [];
    const answers = await portOn(server.url, { onRateLimit: (b) => budgets.push(b) }).resolveDigests([JM])();
    expect(answers).toEqual([E.right({ digest: DIGEST, rateLimitRemaining: O.some(76) })]);
    expect(budgets).toEqual([{ repo: JM.repo, remaining: 76, limit: O.some(100), windowSeconds: O.some(21600) }]);
  });

  it('a digest that is not an OCI digest → Malformed naming the value (I19, defence in depth)', async () => {
    const server = await serve((_request, response) => {
      response.writeHead(200, { 'docker-content-digest': 'sha256:not-a-digest' });
      response.end();
    });
    const answers = await portOn(server.url).resolveDigests([JM])();
    expect(answers[0]).toMatchObject(E.left({ _tag: 'Malformed' }));
    expect(leftOf(answers[0]).message).toContain('"sha256:not-a-digest"');
  });

  it('a 200 without Docker-Content-Digest → Malformed', async () => {
    const server = await serve((_request, response) => {
      response.writeHead(200);
      response.end();
    });
    const answers = await portOn(server.url).resolveDigests([JM])();
    expect(answers[0]).toMatchObject(E.left({ _tag: 'Malformed' }));
    expect(leftOf(answers[0]).message).toContain('without a Docker-Content-Digest');
  });

  it('5xx → Transport with the status; 403 → Forbidden; each repo stands alone (I15)', async () => {
    const server = await serve((_request, response, url) => {
      if (url.pathname.includes('jobs-manager')) response.writeHead(503);
      else if (url.pathname.includes('pods-monitor')) response.writeHead(403);
      else response.writeHead(200, { 'docker-content-digest': DIGEST });
      response.end();
    });
    const answers = await portOn(server.url).resolveDigests([
      JM,
      PM,
      { host: 'docker.io', repo: 'tracebloc/resource-monitor', tag: 'prod' },
    ])();
    expect(answers[0]).toMatchObject(E.left({ _tag: 'Transport', status: 503 }));
    expect(answers[1]).toMatchObject(E.left({ _tag: 'Forbidden', status: 403 }));
    expect(answers[2]).toEqual(E.right({ digest: DIGEST, rateLimitRemaining: O.none }));
  });

  it('401 with a Basic challenge and no REGISTRY_AUTH_FILE → Unauthorized, saying no credentials were sent', async () => {
    const server = await serve((_request, response) => {
      response.writeHead(401, { 'www-authenticate': 'Basic realm="registry"' });
      response.end();
    });
    const answers = await portOn(server.url).resolveDigests([JM])();
    expect(answers[0]).toMatchObject(E.left({ _tag: 'Unauthorized', status: 401 }));
    expect(leftOf(answers[0]).message).toContain(
      'answered HTTP 401 with a Basic challenge; no credentials were sent for 127.0.0.1',
    );
  });

  describe('the token endpoint', () => {
    /** A registry that wants a Bearer token and accepts exactly `TOKEN`. */
    const tokenRegistry = async (authRoute: Route, echoTokenOnRefusal = false) => {
      const auth = await serve(authRoute);
      const registry = await serve((request, response) => {
        if (request.headers.authorization === `Bearer ${TOKEN}` && !echoTokenOnRefusal) {
          response.writeHead(200, { 'docker-content-digest': DIGEST });
        } else {
          const error = request.headers.authorization === undefined ? '' : `,error="invalid_token: ${TOKEN}"`;
          response.writeHead(401, {
            'www-authenticate': `Bearer realm="${auth.url}/token?client=x",service="reg, with comma",scope="repository:tracebloc/jobs-manager:pull"${error}`,
          });
        }
        response.end();
      });
      return { auth, registry };
    };

    it('an OAuth2-style answer (access_token only) is accepted; realm query and quoted service are kept', async () => {
      const { auth, registry } = await tokenRegistry((_request, response) => {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ access_token: TOKEN, expires_in: 300 }));
      });
      const answers = await portOn(registry.url).resolveDigests([JM])();
      expect(answers).toEqual([E.right({ digest: DIGEST, rateLimitRemaining: O.none })]);
      const asked = new URL(auth.seen[0]?.url ?? '', auth.url);
      expect(asked.searchParams.get('client')).toBe('x');
      expect(asked.searchParams.get('service')).toBe('reg, with comma');
      expect(asked.searchParams.getAll('scope')).toEqual(['repository:tracebloc/jobs-manager:pull']);
    });

    it('a 200 without a token → Malformed, without echoing the answer', async () => {
      const { registry } = await tokenRegistry((_request, response) => {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ refresh_token: 'do-not-print-me', expires_in: 300 }));
      });
      const answers = await portOn(registry.url).resolveDigests([JM])();
      expect(answers[0]).toMatchObject(E.left({ _tag: 'Malformed' }));
      expect(leftOf(answers[0]).message).toContain('without a token');
      expect(leftOf(answers[0]).message).not.toContain('do-not-print-me');
    });

    it('every failure of the token request is marked as the token’s (the tick says "could not fetch auth token"); a HEAD’s is not', async () => {
      const { registry } = await tokenRegistry((_request, response) => {
        response.writeHead(503, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ details: 'token service unavailable' }));
      });
      const answers = await portOn(registry.url).resolveDigests([JM])();
      expect(answers[0]).toMatchObject(E.left({ _tag: 'Transport', status: 503, failedAt: 'token' }));
      expect(leftOf(answers[0]).message).toContain('token service unavailable');
      const { registry: echoing } = await tokenRegistry((_request, response) => {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ token: TOKEN }));
      }, true);
      const refused = await portOn(echoing.url).resolveDigests([JM])();
      expect(refused[0]).toMatchObject(E.left({ _tag: 'Unauthorized', status: 401 }));
      expect(leftOf(refused[0])).not.toHaveProperty('failedAt');
    });

    it("a refusal keeps the token server's own error message", async () => {
      const { registry } = await tokenRegistry((_request, response) => {
        response.writeHead(403, { 'content-type': 'application/json' });
        response.end(
          JSON.stringify({ errors: [{ code: 'DENIED', message: 'requested access to the resource is denied' }] }),
        );
      });
      const answers = await portOn(registry.url).resolveDigests([JM])();
      expect(answers[0]).toMatchObject(E.left({ _tag: 'Forbidden', status: 403 }));
      expect(leftOf(answers[0]).message).toContain('DENIED: requested access to the resource is denied');
    });

    it('a registry that echoes the token in its refusal → the message carries no token', async () => {
      const { registry } = await tokenRegistry((_request, response) => {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ token: TOKEN }));
      }, true);
      const answers = await portOn(registry.url).resolveDigests([JM])();
      expect(answers[0]).toMatchObject(E.left({ _tag: 'Unauthorized', status: 401 }));
      expect(leftOf(answers[0]).message).toContain('invalid_token');
      expect(leftOf(answers[0]).message).not.toContain(TOKEN);
    });
  });

  it('a base URL with a path prefix (a pull-through proxy under /mirror) keeps the prefix', async () => {
    const server = await serve((_request, response) => {
      response.writeHead(200, { 'docker-content-digest': DIGEST });
      response.end();
    });
    await portOn(`${server.url}/mirror`).resolveDigests([JM])();
    expect(server.seen.map((r) => `${r.method} ${r.url}`)).toEqual([
      'HEAD /mirror/v2/tracebloc/jobs-manager/manifests/prod',
    ]);
  });

  it('an onRateLimit that throws fails only that repo (I15), as a Transport naming the failure', async () => {
    const server = await serve((_request, response, url) => {
      const headers: Record<string, string> = { 'docker-content-digest': DIGEST };
      if (url.pathname.includes('pods-monitor')) headers['ratelimit-remaining'] = '5';
      response.writeHead(200, headers);
      response.end();
    });
    const answers = await portOn(server.url, {
      onRateLimit: () => {
        throw new Error('logger broke');
      },
    }).resolveDigests([JM, PM])();
    expect(answers[0]).toEqual(E.right({ digest: DIGEST, rateLimitRemaining: O.none }));
    expect(answers[1]).toMatchObject(E.left({ _tag: 'Transport' }));
    expect(leftOf(answers[1]).message).toContain('logger broke');
  });
});
