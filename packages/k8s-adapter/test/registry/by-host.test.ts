import type { DigestRequest, RegistryPort } from '@image-refresh/core';
import * as E from 'fp-ts/lib/Either.js';
import * as O from 'fp-ts/lib/Option.js';
import { describe, expect, it } from 'vitest';
import { endpointOf, perHost, routedRegistryPort } from '../../src/registry/by-host.js';

// Each image is asked on its own host (docs/configuration.md, "The
// registry"): Docker Hub through the URLs that belong to it, REGISTRY_PLAIN_HTTP's
// hosts over http, every other host over https; one batch per host.

const HUB = { baseUrl: 'https://registry-1.docker.io', authUrl: 'https://auth.docker.io/token' };

describe('where a host is reached', () => {
  it('Docker Hub by its own URLs, a listed host over http, any other over https at the host itself', () => {
    const hosts = { dockerHub: HUB, plainHttp: ['registry.local:5000'] };
    expect(endpointOf(hosts, 'docker.io')).toEqual(HUB);
    expect(endpointOf(hosts, 'registry.local:5000')).toEqual({ baseUrl: 'http://registry.local:5000' });
    expect(endpointOf(hosts, 'registry.local')).toEqual({ baseUrl: 'https://registry.local' });
    expect(endpointOf({ dockerHub: HUB }, 'ghcr.io')).toEqual({ baseUrl: 'https://ghcr.io' });
  });

  it('one port per host, made when first asked for and kept', () => {
    const made: string[] = [];
    const on = perHost((host) => {
      made.push(host);
      return { host };
    });
    expect(on('ghcr.io')).toBe(on('ghcr.io'));
    on('docker.io');
    expect(made).toEqual(['ghcr.io', 'docker.io']);
  });
});

describe('a registry port routed by host', () => {
  const answering = (host: string, asked: DigestRequest[][]): RegistryPort => ({
    resolveDigests: (requests) => async () => {
      asked.push([...requests]);
      return requests.map((r) => E.right({ digest: `${host} ${r.repo}`, rateLimitRemaining: O.none }));
    },
  });

  it('asks each host its own requests in one batch, and answers in the order asked', async () => {
    const batches: Record<string, DigestRequest[][]> = { 'docker.io': [], 'ghcr.io': [] };
    const port = routedRegistryPort((host) => {
      batches[host] ??= [];
      return answering(host, batches[host]);
    });
    const requests = [
      { host: 'ghcr.io', repo: 'org/a', tag: 't' },
      { host: 'docker.io', repo: 'shop/b', tag: 't' },
      { host: 'ghcr.io', repo: 'org/c', tag: 't' },
    ];
    const answers = await port.resolveDigests(requests)();
    expect(answers.map((a) => (E.isRight(a) ? a.right.digest : a.left._tag))).toEqual([
      'ghcr.io org/a',
      'docker.io shop/b',
      'ghcr.io org/c',
    ]);
    expect(batches['ghcr.io']).toEqual([[requests[0], requests[2]]]);
    expect(batches['docker.io']).toEqual([[requests[1]]]);
  });

  it("a host's port that answers fewer than asked leaves the rest Malformed, naming the host, never shifted onto another host", async () => {
    const short: RegistryPort = { resolveDigests: () => async () => [] };
    const port = routedRegistryPort((host) => (host === 'ghcr.io' ? short : answering(host, [])));
    const answers = await port.resolveDigests([
      { host: 'ghcr.io', repo: 'org/a', tag: 't' },
      { host: 'docker.io', repo: 'shop/b', tag: 't' },
    ])();
    expect(answers[0]).toEqual(
      E.left(expect.objectContaining({ _tag: 'Malformed', message: expect.stringContaining('ghcr.io') })),
    );
    expect(answers[1]).toEqual(E.right(expect.objectContaining({ digest: 'docker.io shop/b' })));
  });

  it('an empty batch asks no host', async () => {
    const port = routedRegistryPort(() => {
      throw new Error('no host should be asked');
    });
    expect(await port.resolveDigests([])()).toEqual([]);
  });
});
