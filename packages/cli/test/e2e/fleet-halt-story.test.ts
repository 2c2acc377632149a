import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { renderFleetHalt } from '@image-refresh/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ANNOTATION } from '../../../core/test/support/chart.js';
import { registryBinaryMissing } from '../../../k8s-adapter/test/parity/support/parity-registry.js';
import { annotationsOf, imagesOf } from '../../../k8s-adapter/test/support/fake-api-chart.js';
import { publishFleetHalt } from '../../../k8s-adapter/test/support/fleet-halt-publish.js';
import {
  newSigningKey,
  pushSigTag,
  sigLayer,
  simpleSigningPayload,
} from '../../../k8s-adapter/test/support/signature-sig-tag.js';
import { bundleEnv, STORY_BOUNDS } from './support/chart-env.js';
import { CHART_WORLD_SETUP_TIMEOUT_MS, type ChartWorld, startChartWorld } from './support/chart-world.js';
import { type BundleRun, runBundle, theLine } from './support/run-bundle.js';

// FLEET_HALT_REF (docs/behaviour.md §3.4b), told to what ships: the bundled
// CLI against the fake Kubernetes API server and Debian's docker-registry
// with token auth. The halt is published as the README's recipe publishes it
// — the document pushed as an OCI artifact (what `oras push` writes) and its
// manifest digest signed with the key the edge trusts (what `cosign sign`
// writes, a `.sig` tag) — while VERIFY_SIGNATURES stays off. The story: a
// steady tick costs one HEAD more; ring 0 rolls a bad build; a signed halt
// with a pin sends it back and holds the tag's build; an unsigned halt fails
// closed; a halt that names nothing lets a fixed build through; a tag that
// answers 404 lifts the halt this edge recorded.

const JM = 'tracebloc/jobs-manager';
const PM = 'tracebloc/pods-monitor';
const RM = 'tracebloc/resource-monitor';
const HALT = 'tracebloc/fleet-control';
const RECORD_JM = 'tracebloc.io/last-refreshed-jobs-manager-digest';
const ATTEMPT = 'tracebloc.io/refresh-attempt';
const CHAPTER_MS = 60_000;
const ref = (digest: string) => `docker.io/${JM}@${digest}`;

if (registryBinaryMissing !== undefined) console.warn(`SKIPPED ${import.meta.url}: ${registryBinaryMissing}`);

describe.skipIf(registryBinaryMissing !== undefined)(
  `FLEET_HALT_REF, the bundled CLI on the fake API server and a real registry${registryBinaryMissing === undefined ? '' : ` (skipped: ${registryBinaryMissing})`}`,
  () => {
    let world: ChartWorld;
    const key = newSigningKey('ecdsa-p256');
    const digest: Record<string, string> = {};
    let publicKey = '';

    beforeAll(async () => {
      world = await startChartWorld('image-refresh-e2e-halt-');
      publicKey = join(world.home, 'fleet.pub');
      writeFileSync(publicKey, key.publicPem);
      digest.jm1 = await world.registry.push(JM, 'stg');
      digest.pm1 = await world.registry.push(PM, 'stg');
      digest.rm1 = await world.registry.push(RM, 'stg');
      // CI signs every build with the key the fleet trusts: build 1 is the halt's pin.
      await sign(JM, digest.jm1);
    }, CHART_WORLD_SETUP_TIMEOUT_MS);

    afterAll(async () => {
      await world?.close();
    });

    const token = (repo: string) => world.registry.tokens.mint([`repository:${repo}:pull,push`]);
    /** `cosign sign --key cosign.key <repo>@<digest>`: a `.sig` tag beside it. */
    const sign = async (repo: string, signed: string) => {
      await pushSigTag(
        world.registry.direct,
        repo,
        signed,
        [sigLayer(key, simpleSigningPayload(repo, signed))],
        token(repo),
      );
    };
    /** `image-refresh halt render` + `oras push` (+ `cosign sign` unless unsigned): the artifact's digest. */
    const publishHalt = async (
      repositories: Record<string, { digests: '*' | string[]; pin?: string }>,
      options: { signed?: boolean; tag?: string } = {},
    ) => {
      const document = renderFleetHalt({
        reason: 'jobs-manager build 2 loses jobs on restart',
        expires: new Date(Date.now() + 24 * 3_600_000).toISOString().replace(/\.\d{3}Z$/, 'Z'),
        repositories,
      });
      const { digest: halt } = await publishFleetHalt(
        world.registry.direct,
        HALT,
        options.tag ?? 'stg-halt',
        document,
        token(HALT),
      );
      if (options.signed !== false) await sign(HALT, halt);
      return halt;
    };

    const env = (extra: Readonly<Record<string, string>> = {}): Record<string, string> =>
      bundleEnv(world, STORY_BOUNDS, {
        FLEET_HALT_REF: `docker.io/${HALT}:stg-halt`,
        SIGNATURE_PUBLIC_KEYS: publicKey,
        ...extra,
      });
    const tick = (extra: Readonly<Record<string, string>> = {}): Promise<BundleRun> => runBundle(['tick'], env(extra));
    const requestsSoFar = () => ({
      api: world.cluster.server.requests.length,
      registry: world.registry.proxy.seen.length,
      tokens: world.registry.tokens.scopeRequests.length,
    });
    const annotations = () => annotationsOf(world.cluster.jobsManager());
    const warnings = () => world.cluster.server.events.counted();

    it('FLEET_HALT_REF without any trust: exit 2 naming it and SIGNATURE_PUBLIC_KEYS, before any request', async () => {
      const before = requestsSoFar();
      const run = await tick({ SIGNATURE_PUBLIC_KEYS: '' });
      expect(run.exitCode).toBe(2);
      expect(theLine(run.stderr, 'FLEET_HALT_REF')).toMatch(
        /^\[image-refresh\] ERROR: configuration: FLEET_HALT_REF="docker\.io\/tracebloc\/fleet-control:stg-halt": a halt is obeyed only once its signature verifies, and no trust is configured to verify it with: set SIGNATURE_PUBLIC_KEYS/,
      );
      expect(requestsSoFar()).toEqual(before);
    });

    it(
      'no halt published (404): the first install records as always, saying so; exit 0',
      async () => {
        const run = await tick();
        expect(run.exitCode).toBe(0);
        expect(theLine(run.stderr, 'fleet halt')).toBe(
          `[image-refresh] fleet halt: none published under docker.io/${HALT}:stg-halt`,
        );
        expect(annotations()[RECORD_JM]).toBe(digest.jm1);
      },
      CHAPTER_MS,
    );

    it(
      'a steady tick with FLEET_HALT_REF costs one registry request more than without it — the HEAD — and nothing else',
      async () => {
        const count = async (extra: Readonly<Record<string, string>>) => {
          const before = requestsSoFar();
          const run = await tick(extra);
          expect(run.exitCode).toBe(0);
          const after = requestsSoFar();
          return {
            api: after.api - before.api,
            registry: world.registry.proxy.seen.slice(before.registry).map((r) => `${r.method} ${r.url}`),
            tokens: after.tokens - before.tokens,
          };
        };
        const without = await count({ FLEET_HALT_REF: '', SIGNATURE_PUBLIC_KEYS: '' });
        const withHalt = await count({});
        expect(withHalt.api).toBe(without.api);
        expect(withHalt.tokens).toBe(without.tokens);
        expect(withHalt.registry.length).toBe(without.registry.length + 1);
        expect(withHalt.registry.filter((r) => !without.registry.includes(r))).toEqual([
          `HEAD /v2/${HALT}/manifests/stg-halt`,
        ]);
      },
      CHAPTER_MS,
    );

    it(
      'ring 0 rolls build 2 (bad); a signed halt with build 1 as its pin sends it back: attempt counted, rolled, recorded, exit 0',
      async () => {
        digest.jm2 = await world.registry.push(JM, 'stg');
        await sign(JM, digest.jm2);
        expect((await tick()).exitCode).toBe(0);
        expect(imagesOf(world.cluster.jobsManager()).api).toBe(ref(digest.jm2));

        const jm2 = digest.jm2;
        const halt = await publishHalt({ [JM]: { digests: [jm2], pin: digest.jm1 ?? '' } });
        const run = await tick();
        expect(run.exitCode).toBe(0);
        expect(theLine(run.stderr, 'FLEET HALT in force')).toMatch(
          /^\[image-refresh\] FLEET HALT in force: jobs-manager build 2 loses jobs on restart \(until \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ\)$/,
        );
        expect(theLine(run.stderr, "sending it back to the halt's pin")).toContain(`runs ${jm2}`);
        expect(imagesOf(world.cluster.jobsManager()).api).toBe(ref(digest.jm1 ?? ''));
        expect(imagesOf(world.cluster.requestsProxy()).proxy).toBe(ref(digest.jm1 ?? ''));
        const a = annotations();
        expect(a[RECORD_JM]).toBe(digest.jm1);
        expect(a[ATTEMPT]).toBeUndefined();
        expect(a[ANNOTATION.fleetHaltDigest]).toBe(halt);
        expect(JSON.parse(a[ANNOTATION.fleetHaltDocument] ?? '').repositories[JM].pin).toBe(digest.jm1);
        expect(warnings()).toContain('Warning RefreshHalted ×1');
      },
      CHAPTER_MS,
    );

    it(
      'the halt in force holds the tag’s build back: nothing moves, nothing is recorded, no halt request but the HEAD',
      async () => {
        const before = requestsSoFar();
        const run = await tick();
        expect(run.exitCode).toBe(0);
        expect(theLine(run.stderr, 'is halted by the fleet halt')).toContain(`latest=${digest.jm2}`);
        expect(imagesOf(world.cluster.jobsManager()).api).toBe(ref(digest.jm1 ?? ''));
        expect(annotations()[RECORD_JM]).toBe(digest.jm1);
        const halted = world.registry.proxy.seen.slice(before.registry).filter((r) => r.url.includes(HALT));
        expect(halted.map((r) => `${r.method} ${r.url}`)).toEqual([`HEAD /v2/${HALT}/manifests/stg-halt`]);
        // FLEET_HALT_EXIT=1: the same halt holding the same change back is a finding.
        const strict = await tick({ FLEET_HALT_EXIT: '1' });
        expect(strict.exitCode).toBe(1);
        expect(theLine(strict.stderr, 'FLEET HALT holds back')).toContain(`${JM}@${digest.jm2}`);
      },
      CHAPTER_MS,
    );

    it(
      'an unsigned halt fails closed: exit 1, FLEET HALT UNVERIFIED, a Warning RefreshHaltUnverified, nothing re-imaged',
      async () => {
        digest.jm3 = await world.registry.push(JM, 'stg');
        await sign(JM, digest.jm3);
        await publishHalt({ [JM]: { digests: [digest.jm2 ?? ''] } }, { signed: false });
        const run = await tick();
        expect(run.exitCode).toBe(1);
        expect(theLine(run.stderr, 'FLEET HALT UNVERIFIED')).toMatch(
          new RegExp(
            `^\\[image-refresh\\] ERROR: FLEET HALT UNVERIFIED: docker\\.io/${HALT}:stg-halt: its signature did not verify: .*; nothing is re-imaged this tick`,
          ),
        );
        expect(imagesOf(world.cluster.jobsManager()).api).toBe(ref(digest.jm1 ?? ''));
        expect(annotations()[RECORD_JM]).toBe(digest.jm1);
        expect(warnings()).toContain('Warning RefreshHaltUnverified ×1');
        const status = await runBundle(['status'], env());
        expect(status.exitCode).toBe(0);
        expect(theLine(status.stdout, 'fleet halt')).toContain(': UNVERIFIED: its signature did not verify');
      },
      CHAPTER_MS,
    );

    it(
      'a signed halt that names nothing lifts it: the fixed build 3 rolls out',
      async () => {
        await publishHalt({});
        const run = await tick();
        expect(run.exitCode).toBe(0);
        expect(imagesOf(world.cluster.jobsManager()).api).toBe(ref(digest.jm3 ?? ''));
        expect(annotations()[RECORD_JM]).toBe(digest.jm3);
      },
      CHAPTER_MS,
    );

    it(
      'a halt tag that answers 404 where a halt was recorded: lifted, said once, its record removed',
      async () => {
        const run = await tick({ FLEET_HALT_REF: `docker.io/${HALT}:never-published` });
        expect(run.exitCode).toBe(0);
        expect(theLine(run.stderr, 'fleet halt lifted')).toMatch(
          new RegExp(
            `^\\[image-refresh\\] fleet halt lifted: docker\\.io/${HALT}:never-published answers 404; the halt sha256:`,
          ),
        );
        const a = annotations();
        expect(a[ANNOTATION.fleetHaltDigest]).toBeUndefined();
        expect(a[ANNOTATION.fleetHaltDocument]).toBeUndefined();
        const again = await tick({ FLEET_HALT_REF: `docker.io/${HALT}:never-published` });
        expect(theLine(again.stderr, 'fleet halt')).toContain('none published under');
      },
      CHAPTER_MS,
    );
  },
);
