import { renderFleetHalt, type SignatureTarget, type TickConfig } from '@image-refresh/core';
import { simConfig, simDigest } from '@image-refresh/core/sim';
import * as E from 'fp-ts/lib/Either.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { IMAGES } from '../../../core/test/support/chart.js';
import { createFleetHaltReader } from '../../src/fleet-halt/read-fleet-halt.js';
import { createRegistryPort } from '../../src/registry/index.js';
import { createSignatureVerifier } from '../../src/signatures/create-signature-verifier.js';
import { parsePublicKeys } from '../../src/signatures/public-keys.js';
import { publishFleetHalt } from '../support/fleet-halt-publish.js';
import { localOnlyFetch, localOnlyHttp } from '../support/registry-local-fetch.js';
import { TOKEN_SERVICE } from '../support/registry-token-server.js';
import { newSigningKey, pushSigTag, sigLayer, simpleSigningPayload } from '../support/signature-sig-tag.js';
import {
  type ParityRegistry,
  REGISTRY_SETUP_TIMEOUT_MS,
  registryBinaryMissing,
  startParityRegistry,
} from './support/parity-registry.js';
import { RealStack } from './support/real-stack.js';

// What a steady tick — settled, nothing drifted — costs on the real stack,
// counted where it lands: at the fake API server, at the proxy in front of
// the registry, and at the token server. docs/behaviour.md §2: "a tick costs one manifest
// HEAD per unpinned image" against a budget of 100 pulls / 6 h per IP; the
// adapter reads the jobs-manager Deployment once per tick.
//
// One line of that budget does not hold for the CronJob as shipped, and the
// third case pins what it costs instead: the registry port learns the
// Bearer challenge with an anonymous HEAD of the first repo, and the CronJob
// builds a fresh port for its only tick, so every tick pays that probe. On
// Docker Hub a HEAD never counts as a pull (its rate-limit documentation), so it costs latency, not
// budget; it is reported, not hidden. Where the token realm is known up front
// — Docker Hub's, or IMAGE_REFRESH_AUTH_URL (docs/behaviour.md §3.3) — there is no probe.

const BOUNDS = { API_TIMEOUT: '1s', SETTLE_TIMEOUT: '300ms', ROLLOUT_TIMEOUT: '1s', REGISTRY_TIMEOUT: '1s' } as const;
const JM = 'tracebloc/jobs-manager';
const RM = 'tracebloc/resource-monitor';
const HALT = 'tracebloc/fleet-control';
/** The Kubernetes requests of a tick but its Events' own (a halt in force records RefreshHalted every tick). */
const nonEvents = (requests: readonly { method: string; path: string }[]) =>
  requests.filter((r) => !r.path.includes('/events')).map((r) => `${r.method} ${r.path}`);
const scope = (repo: string) => `repository:${repo}:pull`;
const head = (repo: string, auth: 'anonymous' | 'token') => `HEAD /v2/${repo}/manifests/stg ${auth}`;

// The default reporter folds a skipped file into one line: say why on stderr too.
if (registryBinaryMissing !== undefined) console.warn(`SKIPPED ${import.meta.url}: ${registryBinaryMissing}`);

describe.skipIf(registryBinaryMissing !== undefined)(
  `the request budget of a steady tick on the real adapters${registryBinaryMissing === undefined ? '' : ` (skipped: ${registryBinaryMissing})`}`,
  () => {
    let registry: ParityRegistry;
    let stack: RealStack | undefined;
    beforeAll(async () => {
      registry = await startParityRegistry();
    }, REGISTRY_SETUP_TIMEOUT_MS);
    afterAll(async () => {
      await registry?.close();
    });
    afterEach(async () => {
      await stack?.close();
      stack = undefined;
    });

    /** A release whose first tick has recorded every digest: the next tick is steady. */
    const steady = async (env: Readonly<Record<string, string>> = {}) => {
      const config: TickConfig = simConfig({ ...BOUNDS, ...env, IMAGE_REFRESH_REGISTRY_URL: registry.url });
      const builds = new Map(IMAGES.map(({ repo }) => [repo, simDigest(`${repo}#1`)]));
      const started = await RealStack.start({ config, registry, pollIntervalMs: 25, stepMs: 15 }, builds);
      stack = started;
      const first = await started.tick();
      // The first tick also records the topology it found true (docs/behaviour.md §3.4c).
      expect(first.outcome.writes.map((w) => w.kind)).toEqual(['recordTopologyFingerprint', 'recordDigests']);
      return started;
    };

    it('a steady tick costs exactly one Kubernetes API request: the GET of the jobs-manager Deployment', async () => {
      const real = await steady();
      const tick = await real.tick();
      expect(tick.outcome.result).toBe('complete');
      expect(tick.outcome.events.filter((e) => e.code === 'DIGEST_UNCHANGED')).toHaveLength(3);
      expect(tick.apiRequests.map((r) => `${r.method} ${r.path}`)).toEqual([
        'GET /apis/apps/v1/namespaces/tracebloc/deployments/stg-jobs-manager',
      ]);
    });

    it('once the registry challenge is known: exactly 1 token request for every unpinned repo and 1 HEAD per unpinned image', async () => {
      const real = await steady();
      // A port that has resolved before knows the challenge (realm, service).
      const registryPort = createRegistryPort({ baseUrl: registry.url, timeoutMs: 1_000, fetch: localOnlyFetch });
      await registryPort.resolveDigests([{ host: 'docker.io', repo: JM, tag: 'stg' }])();
      const tick = await real.tick({ cluster: real.ports().cluster, registry: registryPort });
      expect(tick.outcome.result).toBe('complete');
      expect(tick.apiRequests).toHaveLength(1);
      expect(tick.tokenRequests).toEqual([IMAGES.map(({ repo }) => scope(repo))]);
      expect([...tick.registryRequests].sort()).toEqual(IMAGES.map(({ repo }) => head(repo, 'token')));
    });

    it("the CronJob's tick (a fresh registry port per process) pays one HEAD more: the anonymous probe that learns the challenge", async () => {
      const real = await steady();
      const tick = await real.tick();
      expect(tick.outcome.result).toBe('complete');
      expect(tick.apiRequests).toHaveLength(1);
      expect(tick.tokenRequests).toEqual([IMAGES.map(({ repo }) => scope(repo))]);
      const [probe, ...resolving] = tick.registryRequests;
      expect(probe).toBe(head(JM, 'anonymous'));
      expect([...resolving].sort()).toEqual(IMAGES.map(({ repo }) => head(repo, 'token')));
    });

    it("the token realm known (IMAGE_REFRESH_AUTH_URL, as Docker Hub's is): 1 Kubernetes request, 1 token, 1 HEAD per unpinned image — 4 registry requests", async () => {
      const authUrl = `${registry.tokens.realm}?service=${TOKEN_SERVICE}`;
      const real = await steady({ IMAGE_REFRESH_AUTH_URL: authUrl });
      const tick = await real.tick();
      expect(tick.outcome.result).toBe('complete');
      expect(tick.outcome.events.filter((e) => e.code === 'DIGEST_UNCHANGED')).toHaveLength(3);
      expect(tick.apiRequests.map((r) => `${r.method} ${r.path}`)).toEqual([
        'GET /apis/apps/v1/namespaces/tracebloc/deployments/stg-jobs-manager',
      ]);
      expect(tick.tokenRequests).toEqual([IMAGES.map(({ repo }) => scope(repo))]);
      expect([...tick.registryRequests].sort()).toEqual(IMAGES.map(({ repo }) => head(repo, 'token')));
      expect(tick.tokenRequests.length + tick.registryRequests.length).toBe(4);
    });

    // docs/behaviour.md §3.4b: FLEET_HALT_REF rides in the same batch — its scope
    // in the one token request, one HEAD more — and a halt seen before costs
    // nothing else; a new one is read (manifest and document) and its
    // signature checked, once.
    it('FLEET_HALT_REF set: its scope in the one token, one HEAD more; a halt verified before costs only that HEAD', async () => {
      const authUrl = `${registry.tokens.realm}?service=${TOKEN_SERVICE}`;
      const key = newSigningKey('ecdsa-p256');
      const config: TickConfig = simConfig({
        ...BOUNDS,
        IMAGE_REFRESH_REGISTRY_URL: registry.url,
        IMAGE_REFRESH_AUTH_URL: authUrl,
        FLEET_HALT_REF: `docker.io/${HALT}:stg-halt`,
        SIGNATURE_PUBLIC_KEYS: '/keys/fleet.pub',
      });
      const builds = new Map(IMAGES.map(({ repo }) => [repo, simDigest(`${repo}#1`)]));
      const real = await RealStack.start({ config, registry, pollIntervalMs: 25, stepMs: 15 }, builds);
      stack = real;
      const keys = parsePublicKeys('/keys/fleet.pub', key.publicPem);
      if (E.isLeft(keys)) throw new Error(keys.left.message);
      // As the CLI wires them (wiring/connect.ts): the halt's reader, the verifier of its trust, the wall clock.
      const ports = () => {
        const options = { baseUrl: registry.url, timeoutMs: 1_000, fetch: localOnlyHttp };
        const verifier = createSignatureVerifier({ registry: options, keys: keys.right });
        return {
          ...real.ports(),
          fleetHalt: createFleetHaltReader({ registry: options }),
          signatures: { verify: (target: SignatureTarget) => () => verifier.verify(target) },
          clock: {
            now: () => () => Promise.resolve(E.right(Date.now())),
            sleep: () => () => Promise.resolve(E.right(undefined)),
          },
        };
      };
      const first = await real.tick(ports());
      expect(first.outcome.writes.map((w) => w.kind)).toEqual(['recordTopologyFingerprint', 'recordDigests']);
      const scopes = [...IMAGES.map(({ repo }) => scope(repo)), scope(HALT)];

      const none = await real.tick(ports());
      expect(none.outcome.exitCode).toBe(0);
      expect(none.outcome.halt?.state).toBe('none');
      expect(none.apiRequests).toHaveLength(1);
      expect(none.tokenRequests).toEqual([scopes]);
      expect([...none.registryRequests].sort()).toEqual(
        [...IMAGES.map(({ repo }) => head(repo, 'token')), `HEAD /v2/${HALT}/manifests/stg-halt token`].sort(),
      );

      const token = registry.tokens.mint([`repository:${HALT}:pull,push`]);
      const document = renderFleetHalt({
        reason: 'build 2 loses jobs',
        expires: new Date(Date.now() + 3_600_000).toISOString().replace(/\.\d{3}Z$/, 'Z'),
        repositories: { [JM]: { digests: [`sha256:${'a'.repeat(64)}`] } },
      });
      const { digest } = await publishFleetHalt(registry.direct, HALT, 'stg-halt', document, token);
      await pushSigTag(registry.direct, HALT, digest, [sigLayer(key, simpleSigningPayload(HALT, digest))], token);
      const verified = await real.tick(ports());
      expect(verified.outcome.halt?.state).toBe('inForce');
      expect(verified.outcome.writes.map((w) => w.kind)).toEqual(['recordFleetHalt']);
      // Its one write: the halt kept beside its digest.
      expect(nonEvents(verified.apiRequests).filter((r) => !r.startsWith('GET '))).toEqual([
        'PATCH /apis/apps/v1/namespaces/tracebloc/deployments/stg-jobs-manager',
      ]);

      const known = await real.tick(ports());
      expect(known.outcome.halt?.state).toBe('inForce');
      expect(known.outcome.writes).toEqual([]);
      // No write: GETs of the Deployment only (the tick's, and the events port's uid read for RefreshHalted).
      expect(nonEvents(known.apiRequests).filter((r) => !r.startsWith('GET '))).toEqual([]);
      expect(known.tokenRequests).toEqual([scopes]);
      expect([...known.registryRequests].sort()).toEqual([...none.registryRequests].sort());
    });

    it('a pinned image is neither in the token scopes nor HEADed (I13 on the wire)', async () => {
      const real = await steady({ PODS_MONITOR_PINNED: '1' });
      const tick = await real.tick();
      expect(tick.outcome.result).toBe('complete');
      expect(tick.apiRequests).toHaveLength(1);
      expect(tick.tokenRequests).toEqual([[scope(JM), scope(RM)]]);
      expect(tick.registryRequests).toEqual([head(JM, 'anonymous'), head(JM, 'token'), head(RM, 'token')]);
    });
  },
);
