import * as E from 'fp-ts/lib/Either.js';
import * as O from 'fp-ts/lib/Option.js';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createRegistryPort } from '../../src/registry/index.js';
import { startCountingProxy } from '../support/registry-counting-proxy.js';
import { localOnlyHttp } from '../support/registry-local-fetch.js';
import type { LocalServer } from '../support/registry-local-server.js';
import {
  REGISTRY_SETUP_TIMEOUT_MS,
  type RegistryProcess,
  registryBinaryMissing,
  startRegistry,
} from '../support/registry-process.js';
import { type Pushed, pushImage } from '../support/registry-push.js';
import { startTokenServer, TOKEN_ISSUER, TOKEN_SERVICE, type TokenServer } from '../support/registry-token-server.js';

// The anonymous bearer flow against a real token-auth registry (distribution
// 2.8.2 `auth.token`, RS256 JWTs from a token server of our own), and the
// request budget counted on the wire: at the token server and at a proxy in
// front of the registry.
//
// Mutations of src/registry that redden this file (run by hand, then
// reverted): asking the batch token for the first scope only; never falling
// back to a per-repo token; no fallback when the token server refuses the
// batch; forgetting the challenge between calls (the budget test); dropping
// the OCI manifest type from Accept; dropping the redaction pass (faults);
// probing although the realm is known; not following a 401 that names another
// realm, or following it with one token per repo; forgetting the realm it led to.

const REPOS = ['tracebloc/jobs-manager', 'tracebloc/pods-monitor', 'tracebloc/resource-monitor'] as const;
const requestsFor = (repos: readonly string[], tag = 'prod') => repos.map((repo) => ({ host: 'docker.io', repo, tag }));
const scope = (repo: string) => `repository:${repo}:pull`;

// The default reporter folds a skipped file into one line: say why on stderr too.
if (registryBinaryMissing !== undefined) console.warn(`SKIPPED ${import.meta.url}: ${registryBinaryMissing}`);

describe.skipIf(registryBinaryMissing !== undefined)(
  `resolveDigests on a token-auth docker-registry${registryBinaryMissing === undefined ? '' : ` (skipped: ${registryBinaryMissing})`}`,
  () => {
    let tokens: TokenServer;
    let registry: RegistryProcess;
    let proxy: LocalServer;
    const pushed = new Map<string, Pushed>();

    beforeAll(async () => {
      tokens = await startTokenServer();
      registry = await startRegistry({
        realm: tokens.realm,
        service: TOKEN_SERVICE,
        issuer: TOKEN_ISSUER,
        certificatePem: tokens.certificatePem,
      });
      proxy = await startCountingProxy(registry.url);
      for (const repo of REPOS) {
        const token = tokens.mint([`repository:${repo}:pull,push`]);
        pushed.set(repo, await pushImage(registry.url, repo, 'prod', { token }));
      }
    }, REGISTRY_SETUP_TIMEOUT_MS);
    afterAll(async () => {
      await proxy?.close();
      await registry?.stop();
      await tokens?.close();
    });
    beforeEach(() => {
      tokens.behaviour = 'grant';
      tokens.scopeRequests.length = 0;
      proxy.seen.length = 0;
    });

    const port = () => createRegistryPort({ baseUrl: proxy.url, timeoutMs: 2_000, fetch: localOnlyHttp });
    const resolved = (repo: string) =>
      E.right({ digest: pushed.get(repo)?.digest ?? 'not pushed', rateLimitRemaining: O.none });
    const wire = () =>
      proxy.seen.map((r) => `${r.method} ${r.url} ${r.authorization === undefined ? 'anonymous' : 'token'}`);
    const everyMessage = (answers: readonly E.Either<{ message: string }, unknown>[]) =>
      answers.flatMap((a) => (E.isLeft(a) ? [a.left.message] : []));

    it('first call: 1 anonymous HEAD for the challenge, 1 token for every repo, 1 HEAD per repo (n + 2 requests)', async () => {
      const answers = await port().resolveDigests(requestsFor(REPOS))();
      expect(answers).toEqual(REPOS.map(resolved));
      expect(tokens.scopeRequests).toEqual([REPOS.map(scope)]);
      expect(wire()[0]).toBe('HEAD /v2/tracebloc/jobs-manager/manifests/prod anonymous');
      expect(wire().slice(1).sort()).toEqual(REPOS.map((repo) => `HEAD /v2/${repo}/manifests/prod token`));
      expect(proxy.seen.length + tokens.scopeRequests.length).toBe(REPOS.length + 2);
    });

    it('challenge known (a later call on the same port): exactly 1 token request and 1 HEAD per repo', async () => {
      const registryPort = port();
      await registryPort.resolveDigests(requestsFor(REPOS))();
      tokens.scopeRequests.length = 0;
      proxy.seen.length = 0;

      const answers = await registryPort.resolveDigests(requestsFor(REPOS))();
      expect(answers).toEqual(REPOS.map(resolved));
      expect(tokens.scopeRequests).toEqual([REPOS.map(scope)]);
      expect(wire().sort()).toEqual(REPOS.map((repo) => `HEAD /v2/${repo}/manifests/prod token`));
    });

    it('one repo: challenge, token, HEAD — 3 requests', async () => {
      const answers = await port().resolveDigests(requestsFor(['tracebloc/pods-monitor']))();
      expect(answers).toEqual([resolved('tracebloc/pods-monitor')]);
      expect(tokens.scopeRequests).toEqual([[scope('tracebloc/pods-monitor')]]);
      expect(wire()).toEqual([
        'HEAD /v2/tracebloc/pods-monitor/manifests/prod anonymous',
        'HEAD /v2/tracebloc/pods-monitor/manifests/prod token',
      ]);
    });

    it('follows a moved tag behind auth', async () => {
      const registryPort = port();
      const repo = 'tracebloc/jobs-manager';
      expect(await registryPort.resolveDigests(requestsFor([repo]))()).toEqual([resolved(repo)]);
      const moved = await pushImage(registry.url, repo, 'prod', {
        token: tokens.mint([`repository:${repo}:pull,push`]),
      });
      expect(moved.digest).not.toBe(pushed.get(repo)?.digest);
      pushed.set(repo, moved);
      expect(await registryPort.resolveDigests(requestsFor([repo]))()).toEqual([resolved(repo)]);
    });

    it('a batched token the registry refuses for some repos: a token of their own for those repos only', async () => {
      // Docker Hub has granted only part of a multi-scope request before.
      tokens.behaviour = 'grant-first-scope-only';
      const answers = await port().resolveDigests(requestsFor(REPOS))();
      expect(answers).toEqual(REPOS.map(resolved));
      // The per-repo requests run concurrently: their order is not part of the contract.
      const [batch, ...own] = tokens.scopeRequests;
      expect(batch).toEqual(REPOS.map(scope));
      expect(own.sort()).toEqual([[scope(REPOS[1])], [scope(REPOS[2])]]);
      // Probe, 3 HEADs with the batched token (2 refused), 2 HEADs with their own.
      expect(proxy.seen).toHaveLength(6);
    });

    it('a token server that refuses the batch outright: one token per repo', async () => {
      tokens.behaviour = 'refuse-batch';
      const answers = await port().resolveDigests(requestsFor(REPOS))();
      expect(answers).toEqual(REPOS.map(resolved));
      const [batch, ...own] = tokens.scopeRequests;
      expect(batch).toEqual(REPOS.map(scope));
      expect(own.sort()).toEqual(REPOS.map((repo) => [scope(repo)]));
      expect(proxy.seen).toHaveLength(1 + REPOS.length);
    });

    it('401 even with a token of its own → Unauthorized naming the registry error; no token in any message', async () => {
      tokens.behaviour = 'grant-nothing';
      const answers = await port().resolveDigests(requestsFor(REPOS))();
      for (const answer of answers) expect(answer).toMatchObject(E.left({ _tag: 'Unauthorized', status: 401 }));
      const messages = everyMessage(answers);
      expect(messages).toHaveLength(REPOS.length);
      for (const message of messages) expect(message).toContain('insufficient_scope');
      expect(tokens.issued.length).toBeGreaterThan(0);
      for (const token of tokens.issued) for (const message of messages) expect(message).not.toContain(token);
      // Bounded: probe, batch token, then per repo HEAD, own token, HEAD — and no more.
      expect(tokens.scopeRequests).toHaveLength(1 + REPOS.length);
      expect(proxy.seen).toHaveLength(1 + 2 * REPOS.length);
    });

    describe('the token realm known before any 401 (IMAGE_REFRESH_AUTH_URL)', () => {
      let stranger: TokenServer;
      beforeAll(async () => {
        // A token server the registry does not trust (its own signing key): the
        // realm an operator might name by mistake, or a realm that moved.
        stranger = await startTokenServer();
      });
      afterAll(async () => {
        await stranger?.close();
      });
      beforeEach(() => {
        stranger.scopeRequests.length = 0;
      });
      const withRealm = (realm: string) =>
        createRegistryPort({
          baseUrl: proxy.url,
          authUrl: `${realm}?service=${TOKEN_SERVICE}`,
          timeoutMs: 2_000,
          fetch: localOnlyHttp,
        });

      it('no anonymous probe: 1 token for every repo, then 1 HEAD per repo with it (n + 1 requests)', async () => {
        const answers = await withRealm(tokens.realm).resolveDigests(requestsFor(REPOS))();
        expect(answers).toEqual(REPOS.map(resolved));
        expect(tokens.scopeRequests).toEqual([REPOS.map(scope)]);
        expect(wire().sort()).toEqual(REPOS.map((repo) => `HEAD /v2/${repo}/manifests/prod token`));
      });

      it("a 401 naming another realm: that realm's challenge flow in the same call, and the next call asks it first", async () => {
        const registryPort = withRealm(stranger.realm);
        const answers = await registryPort.resolveDigests(requestsFor(REPOS))();
        expect(answers).toEqual(REPOS.map(resolved));
        expect(stranger.scopeRequests).toEqual([REPOS.map(scope)]);
        // One token from the registry's own realm for the whole batch, not one per repo.
        expect(tokens.scopeRequests).toEqual([REPOS.map(scope)]);
        // Each repo: a HEAD with the stranger's token (401), then one with the registry's.
        expect(wire().sort()).toEqual(REPOS.flatMap((repo) => Array(2).fill(`HEAD /v2/${repo}/manifests/prod token`)));

        stranger.scopeRequests.length = 0;
        tokens.scopeRequests.length = 0;
        proxy.seen.length = 0;
        expect(await registryPort.resolveDigests(requestsFor(REPOS))()).toEqual(REPOS.map(resolved));
        expect(stranger.scopeRequests).toEqual([]);
        expect(tokens.scopeRequests).toEqual([REPOS.map(scope)]);
        expect(proxy.seen).toHaveLength(REPOS.length);
      });

      it('one repo sent to another realm: 4 requests, within the bound of one repo', async () => {
        const answers = await withRealm(stranger.realm).resolveDigests(requestsFor(['tracebloc/pods-monitor']))();
        expect(answers).toEqual([resolved('tracebloc/pods-monitor')]);
        expect(stranger.scopeRequests).toEqual([[scope('tracebloc/pods-monitor')]]);
        expect(tokens.scopeRequests).toEqual([[scope('tracebloc/pods-monitor')]]);
        expect(wire()).toEqual(Array(2).fill('HEAD /v2/tracebloc/pods-monitor/manifests/prod token'));
      });

      it('a batched token granted for some repos only: a token of their own for those repos, from the same realm', async () => {
        tokens.behaviour = 'grant-first-scope-only';
        const answers = await withRealm(tokens.realm).resolveDigests(requestsFor(REPOS))();
        expect(answers).toEqual(REPOS.map(resolved));
        const [batch, ...own] = tokens.scopeRequests;
        expect(batch).toEqual(REPOS.map(scope));
        expect(own.sort()).toEqual([[scope(REPOS[1])], [scope(REPOS[2])]]);
        // 3 HEADs with the batched token (2 refused), 2 HEADs with their own; no probe.
        expect(wire().filter((line) => line.endsWith('anonymous'))).toEqual([]);
        expect(proxy.seen).toHaveLength(5);
      });

      it('a token server that refuses the batch outright: one token per repo, no probe', async () => {
        tokens.behaviour = 'refuse-batch';
        const answers = await withRealm(tokens.realm).resolveDigests(requestsFor(REPOS))();
        expect(answers).toEqual(REPOS.map(resolved));
        const [batch, ...own] = tokens.scopeRequests;
        expect(batch).toEqual(REPOS.map(scope));
        expect(own.sort()).toEqual(REPOS.map((repo) => [scope(repo)]));
        expect(wire().sort()).toEqual(REPOS.map((repo) => `HEAD /v2/${repo}/manifests/prod token`));
      });
    });

    it('an unknown tag behind auth is NotFound, and the other repos resolve', async () => {
      const answers = await port().resolveDigests([
        { host: 'docker.io', repo: 'tracebloc/jobs-manager', tag: 'no-such-tag' },
        { host: 'docker.io', repo: 'tracebloc/pods-monitor', tag: 'prod' },
      ])();
      expect(answers[0]).toMatchObject(E.left({ _tag: 'NotFound', status: 404 }));
      expect(answers[1]).toEqual(resolved('tracebloc/pods-monitor'));
      for (const token of tokens.issued)
        for (const message of everyMessage(answers)) expect(message).not.toContain(token);
    });
  },
);
