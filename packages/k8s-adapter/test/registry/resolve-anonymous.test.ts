import * as E from 'fp-ts/lib/Either.js';
import * as O from 'fp-ts/lib/Option.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRegistryPort, MANIFEST_ACCEPT } from '../../src/registry/index.js';
import { startCountingProxy } from '../support/registry-counting-proxy.js';
import { localOnlyHttp } from '../support/registry-local-fetch.js';
import type { LocalServer } from '../support/registry-local-server.js';
import {
  REGISTRY_SETUP_TIMEOUT_MS,
  type RegistryProcess,
  registryBinaryMissing,
  startRegistry,
} from '../support/registry-process.js';
import { type Pushed, pushImage, pushIndex } from '../support/registry-push.js';

// docs/behaviour.md §3.3 against a real registry without auth (distribution 2.8.2, the
// Debian docker-registry package): one HEAD per repo, the four media types in
// one Accept, the tag's current digest, NotFound for what is not there.

// The default reporter folds a skipped file into one line: say why on stderr too.
if (registryBinaryMissing !== undefined) console.warn(`SKIPPED ${import.meta.url}: ${registryBinaryMissing}`);

describe.skipIf(registryBinaryMissing !== undefined)(
  `resolveDigests on an anonymous docker-registry${registryBinaryMissing === undefined ? '' : ` (skipped: ${registryBinaryMissing})`}`,
  () => {
    let registry: RegistryProcess;
    let proxy: LocalServer;
    let oci: Pushed;
    let docker: Pushed;
    let index: Pushed;

    beforeAll(async () => {
      registry = await startRegistry();
      proxy = await startCountingProxy(registry.url);
      oci = await pushImage(registry.url, 'tracebloc/jobs-manager', 'prod');
      docker = await pushImage(registry.url, 'tracebloc/pods-monitor', 'prod', { flavour: 'docker' });
      const amd64 = await pushImage(registry.url, 'tracebloc/resource-monitor', 'amd64');
      const arm64 = await pushImage(registry.url, 'tracebloc/resource-monitor', 'arm64');
      index = await pushIndex(registry.url, 'tracebloc/resource-monitor', 'prod', [amd64, arm64]);
    }, REGISTRY_SETUP_TIMEOUT_MS);
    afterAll(async () => {
      await proxy?.close();
      await registry?.stop();
    });

    const port = () => createRegistryPort({ baseUrl: proxy.url, timeoutMs: 2_000, fetch: localOnlyHttp });

    it('resolves an OCI manifest, a Docker v2 manifest and an OCI index with one HEAD each, in request order', async () => {
      proxy.seen.length = 0;
      const answers = await port().resolveDigests([
        { host: 'docker.io', repo: 'tracebloc/jobs-manager', tag: 'prod' },
        { host: 'docker.io', repo: 'tracebloc/pods-monitor', tag: 'prod' },
        { host: 'docker.io', repo: 'tracebloc/resource-monitor', tag: 'prod' },
      ])();
      expect(answers).toEqual([
        E.right({ digest: oci.digest, rateLimitRemaining: O.none }),
        E.right({ digest: docker.digest, rateLimitRemaining: O.none }),
        E.right({ digest: index.digest, rateLimitRemaining: O.none }),
      ]);
      expect(proxy.seen.map((r) => `${r.method} ${r.url}`).sort()).toEqual([
        'HEAD /v2/tracebloc/jobs-manager/manifests/prod',
        'HEAD /v2/tracebloc/pods-monitor/manifests/prod',
        'HEAD /v2/tracebloc/resource-monitor/manifests/prod',
      ]);
      // One Accept header with all four types, on every request.
      for (const request of proxy.seen) expect(request.accept).toBe(MANIFEST_ACCEPT);
    });

    it('follows the tag when it moves to a new digest', async () => {
      const before = await port().resolveDigests([
        { host: 'docker.io', repo: 'tracebloc/jobs-manager', tag: 'prod' },
      ])();
      const moved = await pushImage(registry.url, 'tracebloc/jobs-manager', 'prod');
      const after = await port().resolveDigests([{ host: 'docker.io', repo: 'tracebloc/jobs-manager', tag: 'prod' }])();
      expect(moved.digest).not.toBe(oci.digest);
      expect(before).toEqual([E.right({ digest: oci.digest, rateLimitRemaining: O.none })]);
      expect(after).toEqual([E.right({ digest: moved.digest, rateLimitRemaining: O.none })]);
      oci = moved;
    });

    it('answers NotFound for an unknown tag or repository, and the other repos still resolve (I15)', async () => {
      const answers = await port().resolveDigests([
        { host: 'docker.io', repo: 'tracebloc/jobs-manager', tag: 'no-such-tag' },
        { host: 'docker.io', repo: 'tracebloc/pods-monitor', tag: 'prod' },
        { host: 'docker.io', repo: 'tracebloc/no-such-repo', tag: 'prod' },
      ])();
      expect(answers[0]).toMatchObject(E.left({ _tag: 'NotFound', status: 404 }));
      expect(answers[1]).toEqual(E.right({ digest: docker.digest, rateLimitRemaining: O.none }));
      expect(answers[2]).toMatchObject(E.left({ _tag: 'NotFound', status: 404 }));
      const [missingTag] = answers;
      if (missingTag === undefined || E.isRight(missingTag)) throw new Error('expected a Left');
      expect(missingTag.left.message).toContain('/v2/tracebloc/jobs-manager/manifests/no-such-tag');
      expect(missingTag.left.message).toContain('manifest unknown');
    });

    it('never GETs a manifest: only HEADs reach the registry (a GET is a pull on Docker Hub)', async () => {
      proxy.seen.length = 0;
      await port().resolveDigests([
        { host: 'docker.io', repo: 'tracebloc/jobs-manager', tag: 'prod' },
        { host: 'docker.io', repo: 'tracebloc/jobs-manager', tag: 'no-such-tag' },
      ])();
      expect(proxy.seen.map((r) => r.method)).toEqual(['HEAD', 'HEAD']);
    });

    it('asks nothing for an empty batch', async () => {
      proxy.seen.length = 0;
      expect(await port().resolveDigests([])()).toEqual([]);
      expect(proxy.seen).toEqual([]);
    });
  },
);
