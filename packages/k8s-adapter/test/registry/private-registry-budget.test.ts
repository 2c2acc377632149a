import * as E from 'fp-ts/lib/Either.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseDockerConfig, type RegistryCredentials } from '../../src/registry/credentials.js';
import { type HttpFetch, nodeHttpFetchTrusting } from '../../src/registry/http-transport.js';
import { createRegistryPort } from '../../src/registry/index.js';
import { type PrivateRegistry, privateRegistryMissing, startPrivateRegistry } from '../support/private-registry.js';
import {
  type ProxyRegistry,
  startProxyRegistry,
  startTokenUpstream,
  type TokenUpstream,
} from '../support/proxy-registry.js';
import { REGISTRY_SETUP_TIMEOUT_MS } from '../support/registry-process.js';
import { type Pushed, pushImage } from '../support/registry-push.js';

// What a steady tick costs on a private registry (docs/behaviour.md §3.3,
// "Credentials"; README.md, Benchmarks): a CronJob's tick is a fresh process,
// so each tick below is a fresh port. With a credential for the host the
// challenge is learned from GET /v2/, never from a HEAD that is then asked
// again: one token request per tick on a token registry, none on a Basic one,
// and exactly one HEAD per image. Both registries are Debian's docker-registry
// behind TLS from a test CA: htpasswd (Basic), and the same storage behind
// real signed tokens from the test's issuer (as Harbor or GitLab); and a third
// in proxy mode in front of the token one, a real pull-through cache.

if (privateRegistryMissing !== undefined) console.warn(`SKIPPED ${import.meta.url}: ${privateRegistryMissing}`);

const REPOS = ['shop/web', 'shop/log', 'shop/agent'];

describe.skipIf(privateRegistryMissing !== undefined)('a steady resolve on a private registry', () => {
  let registry: PrivateRegistry;
  let tokenRegistry: TokenUpstream;
  let mirror: ProxyRegistry;
  let pushed: Pushed[];

  beforeAll(async () => {
    registry = await startPrivateRegistry();
    tokenRegistry = await startTokenUpstream(registry);
    mirror = await startProxyRegistry(tokenRegistry);
    pushed = [];
    for (const repo of REPOS) pushed.push(await pushImage(registry.pushUrl, repo, 'stable'));
  }, 3 * REGISTRY_SETUP_TIMEOUT_MS);
  afterAll(async () => {
    await mirror?.stop();
    await tokenRegistry?.stop();
    await registry?.stop();
  });

  const credentialsFor = (host: string): RegistryCredentials => {
    const auth = Buffer.from(`${registry.username}:${registry.password}`).toString('base64');
    const parsed = parseDockerConfig('/etc/registry/config.json', JSON.stringify({ auths: { [host]: { auth } } }));
    if (E.isLeft(parsed)) throw new Error(parsed.left);
    return parsed.right;
  };

  /** One tick's requests, each as `METHOD path` with the token realm's named `token`. */
  const aTick = async (url: string, withCredentials = true) => {
    const seen: string[] = [];
    const trusting = nodeHttpFetchTrusting(registry.caPem);
    const counting: HttpFetch = (target, init) => {
      seen.push(target.origin === url ? `${init.method} ${target.pathname}` : 'token');
      return trusting(target, init);
    };
    const port = createRegistryPort({
      baseUrl: url,
      ...(withCredentials ? { credentials: credentialsFor(new URL(url).host) } : {}),
      timeoutMs: 5_000,
      fetch: counting,
    });
    const answers = await port.resolveDigests(
      REPOS.map((repo) => ({ host: new URL(url).host, repo, tag: 'stable' })),
    )();
    expect(answers.map((a) => (E.isRight(a) ? a.right.digest : a.left.message))).toEqual(pushed.map((p) => p.digest));
    return [...seen].sort();
  };
  const heads = REPOS.map((repo) => `HEAD /v2/${repo}/manifests/stable`);

  it('Basic (htpasswd): GET /v2/, then one HEAD per image with Basic; no token', async () => {
    expect(await aTick(registry.url)).toEqual(['GET /v2/', ...heads].sort());
  });

  it('token auth: GET /v2/, one token request for every image, one HEAD per image', async () => {
    expect(await aTick(tokenRegistry.url)).toEqual(['GET /v2/', ...heads, 'token'].sort());
  });

  it('a pull-through mirror (proxy mode, plain http, no login of its own): one HEAD per image, the first its probe', async () => {
    expect(await aTick(mirror.url, false)).toEqual(heads.sort());
  });
});
