import * as E from 'fp-ts/lib/Either.js';
import * as O from 'fp-ts/lib/Option.js';
import { describe, expect, it } from 'vitest';
import type { HttpFetch } from '../../src/registry/http-transport.js';
import { createRegistryPort } from '../../src/registry/index.js';
import { DOCKER_HUB_REALM, knownRealm, namesAnotherRealm } from '../../src/registry/known-realm.js';
import { pullScope, tokenUrl } from '../../src/registry/token-request.js';
import type { BearerChallenge } from '../../src/registry/www-authenticate.js';

// Which realm a tick asks before its first HEAD (docs/behaviour.md §3.3). Docker Hub's is
// proven here, never by a request: no test may reach a host but 127.0.0.1.
// The port case answers from memory (a fetch that never touches a socket).
// Mutations that redden it: keying Docker Hub on the image registry rather
// than the registry URL; dropping the `service` query of IMAGE_REFRESH_AUTH_URL;
// comparing realms with their query; ignoring a changed service.

const REPOS = ['tracebloc/jobs-manager', 'tracebloc/pods-monitor', 'tracebloc/resource-monitor'];
const DOCKER_HUB = new URL('https://registry-1.docker.io/');
const realmOf = (registryUrl: string, authUrl?: string) => knownRealm(new URL(registryUrl), authUrl);
const tokenRequestOf = (realm: O.Option<BearerChallenge>) =>
  O.isSome(realm) ? tokenUrl(realm.value, REPOS.map(pullScope)).href : 'no realm known: probe';
const challenge = (realm: string, service?: string): BearerChallenge => ({
  realm: new URL(realm),
  service: O.fromNullable(service),
  scope: O.none,
  error: O.none,
});

describe('knownRealm: the realm asked before any 401', () => {
  it("Docker Hub's registry: the script's token URL, auth.docker.io with service registry.docker.io, one scope= per repo", () => {
    expect(tokenRequestOf(knownRealm(DOCKER_HUB, undefined))).toBe(
      'https://auth.docker.io/token?service=registry.docker.io' +
        '&scope=repository%3Atracebloc%2Fjobs-manager%3Apull' +
        '&scope=repository%3Atracebloc%2Fpods-monitor%3Apull' +
        '&scope=repository%3Atracebloc%2Fresource-monitor%3Apull',
    );
  });

  it.each([
    ['a pull-through proxy', 'https://mirror.example.internal'],
    ['a local registry', 'http://127.0.0.1:5000'],
    ["Docker Hub's host without TLS", 'http://registry-1.docker.io'],
    ['another registry', 'https://ghcr.io'],
  ])('%s without IMAGE_REFRESH_AUTH_URL: unknown, learned from the 401', (_what, registryUrl) => {
    expect(tokenRequestOf(realmOf(registryUrl))).toBe('no realm known: probe');
  });

  it('IMAGE_REFRESH_AUTH_URL names the realm for any registry; its service= is the service, other parameters stay', () => {
    expect(tokenRequestOf(realmOf('http://127.0.0.1:5000', 'http://127.0.0.1:5001/token?service=local&tenant=a'))).toBe(
      'http://127.0.0.1:5001/token?tenant=a&service=local' +
        '&scope=repository%3Atracebloc%2Fjobs-manager%3Apull' +
        '&scope=repository%3Atracebloc%2Fpods-monitor%3Apull' +
        '&scope=repository%3Atracebloc%2Fresource-monitor%3Apull',
    );
  });

  it("IMAGE_REFRESH_AUTH_URL wins over Docker Hub's own realm; without service= none is sent", () => {
    const realm = knownRealm(DOCKER_HUB, 'https://auth.example.internal/v2/token');
    expect(O.map((r: BearerChallenge) => [r.realm.href, r.service])(realm)).toEqual(
      O.some(['https://auth.example.internal/v2/token', O.none]),
    );
  });

  it('a token realm that is not http(s) is refused when the port is built, never guessed around', () => {
    expect(() => createRegistryPort({ baseUrl: 'http://127.0.0.1:5000', authUrl: 'ftp://127.0.0.1/token' })).toThrow(
      'a token realm must be an http(s) URL, not ftp:',
    );
  });
});

describe('namesAnotherRealm: whether a 401 after a known realm’s token sends the client elsewhere', () => {
  const asked = challenge('https://auth.docker.io/token', 'registry.docker.io');
  it.each([
    ['the same realm and service', false, challenge('https://auth.docker.io/token', 'registry.docker.io')],
    ['the same realm, no service named', false, challenge('https://auth.docker.io/token')],
    ['the same realm with a query', false, challenge('https://auth.docker.io/token?x=1', 'registry.docker.io')],
    ['another host', true, challenge('https://auth.example.internal/token', 'registry.docker.io')],
    ['another path', true, challenge('https://auth.docker.io/v2/token', 'registry.docker.io')],
    ['another port', true, challenge('https://auth.docker.io:8443/token', 'registry.docker.io')],
    ['another service', true, challenge('https://auth.docker.io/token', 'mirror.docker.io')],
  ])('%s → elsewhere: %s', (_what, elsewhere, sent) => {
    expect(namesAnotherRealm(asked, sent)).toBe(elsewhere);
  });
});

describe("the registry port on Docker Hub's URL (answered from memory, no socket)", () => {
  it('asks auth.docker.io for one token first, then HEADs each repo with it: no anonymous probe', async () => {
    const seen: string[] = [];
    const fromMemory: HttpFetch = async (url, init) => {
      seen.push(`${init.method} ${url.href} ${init.headers.Authorization === undefined ? 'anonymous' : 'token'}`);
      const isToken = url.origin === DOCKER_HUB_REALM.realm.origin;
      return {
        status: 200,
        headers: {
          get: (name) =>
            name.toLowerCase() === 'docker-content-digest' && !isToken ? `sha256:${'a'.repeat(64)}` : null,
        },
        text: async () => (isToken ? JSON.stringify({ token: 'memory-token' }) : ''),
      };
    };
    const port = createRegistryPort({ baseUrl: DOCKER_HUB.href, fetch: fromMemory });
    const answers = await port.resolveDigests(REPOS.map((repo) => ({ host: 'docker.io', repo, tag: 'prod' })))();
    expect(answers.every(E.isRight)).toBe(true);
    expect(seen[0]).toBe(`GET ${tokenRequestOf(O.some(DOCKER_HUB_REALM))} anonymous`);
    expect(seen.slice(1).sort()).toEqual(
      REPOS.map((repo) => `HEAD https://registry-1.docker.io/v2/${repo}/manifests/prod token`),
    );
  });
});
