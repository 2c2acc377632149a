import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { shortDigest } from '@image-refresh/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registryBinaryMissing } from '../../../k8s-adapter/test/parity/support/parity-registry.js';
import {
  annotationsOf,
  imagesOf,
  JOBS_MANAGER,
  REQUESTS_PROXY,
} from '../../../k8s-adapter/test/support/fake-api-chart.js';
import { attachBundle, bundleOver, cosignStatement } from '../../../k8s-adapter/test/support/signature-bundles.js';
import { newSigningKey } from '../../../k8s-adapter/test/support/signature-sig-tag.js';
import { bundleEnv, STORY_BOUNDS } from './support/chart-env.js';
import { CHART_WORLD_SETUP_TIMEOUT_MS, type ChartWorld, startChartWorld } from './support/chart-world.js';
import { type BundleRun, linesWith, runBundle, theLine } from './support/run-bundle.js';

// VERIFY_SIGNATURES=enforce (docs/behaviour.md §3.4a step 3), told to what
// ships: the bundled CLI against the fake Kubernetes API server and Debian's
// docker-registry with token auth. The signing side is sigstore's own libraries
// (@sigstore/sign builds the bundle, @sigstore/oci attaches it; Debian's
// registry answers 404 to referrers, so it lands on the sha256-<hex> fallback
// tag): an unsigned jobs-manager build is published → a finding, nothing rolls,
// no attempt is spent; it is signed → the next tick re-images it, naming the
// key. And a key file that is not a public key: exit 2 before any request.

const JM = 'tracebloc/jobs-manager';
const PM = 'tracebloc/pods-monitor';
const RM = 'tracebloc/resource-monitor';
const RECORD_JM = 'tracebloc.io/last-refreshed-jobs-manager-digest';
const ATTEMPT = 'tracebloc.io/refresh-attempt';
const CHAPTER_MS = 60_000;

if (registryBinaryMissing !== undefined) console.warn(`SKIPPED ${import.meta.url}: ${registryBinaryMissing}`);

describe.skipIf(registryBinaryMissing !== undefined)(
  `VERIFY_SIGNATURES=enforce, the bundled CLI on the fake API server and a real registry${registryBinaryMissing === undefined ? '' : ` (skipped: ${registryBinaryMissing})`}`,
  () => {
    let world: ChartWorld;
    const key = newSigningKey('ecdsa-p256');
    const digest: Record<string, string> = {};
    const files = { publicKey: '', privateKey: '', missing: '' };

    beforeAll(async () => {
      world = await startChartWorld('image-refresh-e2e-signatures-');
      files.publicKey = join(world.home, 'cosign.pub');
      files.privateKey = join(world.home, 'cosign.key');
      files.missing = join(world.home, 'rotated.pub');
      writeFileSync(files.publicKey, key.publicPem);
      writeFileSync(files.privateKey, key.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString());
      digest.jm1 = await world.registry.push(JM, 'stg');
      digest.pm1 = await world.registry.push(PM, 'stg');
      digest.rm1 = await world.registry.push(RM, 'stg');
    }, CHART_WORLD_SETUP_TIMEOUT_MS);

    afterAll(async () => {
      await world?.close();
    });

    const env = (): Record<string, string> =>
      bundleEnv(world, STORY_BOUNDS, {
        VERIFY_SIGNATURES: 'enforce',
        SIGNATURE_PUBLIC_KEYS: files.publicKey,
      });
    const tick = (overrides: Readonly<Record<string, string>> = {}): Promise<BundleRun> =>
      runBundle(['tick'], { ...env(), ...overrides });
    const requestsSoFar = () => ({
      api: world.cluster.server.requests.length,
      registry: world.registry.proxy.seen.length,
    });

    it('a SIGNATURE_PUBLIC_KEYS file that is a private key, or missing: exit 2 naming the variable and the file, no request', async () => {
      const before = requestsSoFar();
      const privateKey = await tick({ SIGNATURE_PUBLIC_KEYS: files.privateKey });
      expect(privateKey.exitCode).toBe(2);
      expect(theLine(privateKey.stderr, 'SIGNATURE_PUBLIC_KEYS')).toBe(
        `[image-refresh] ERROR: configuration: SIGNATURE_PUBLIC_KEYS=${JSON.stringify(files.privateKey)}: holds a private key (PRIVATE KEY), not a public key: mount only the public half (cosign.pub)`,
      );
      expect(privateKey.stderr.join('\n')).not.toContain('BEGIN PRIVATE KEY');
      const missing = await tick({ SIGNATURE_PUBLIC_KEYS: `${files.publicKey},${files.missing}` });
      expect(missing.exitCode).toBe(2);
      expect(theLine(missing.stderr, 'SIGNATURE_PUBLIC_KEYS')).toBe(
        `[image-refresh] ERROR: configuration: SIGNATURE_PUBLIC_KEYS=${JSON.stringify(files.missing)}: cannot be read (ENOENT)`,
      );
      const status = await runBundle(['status'], { ...env(), SIGNATURE_PUBLIC_KEYS: files.privateKey });
      expect(status.exitCode).toBe(2);
      expect(theLine(status.stderr, 'SIGNATURE_PUBLIC_KEYS')).toContain('holds a private key');
      expect(requestsSoFar()).toEqual(before);
    });

    it(
      'first install under enforce: the baseline is recorded as always, report-only, exit 0',
      async () => {
        const run = await tick();
        expect(run.exitCode).toBe(0);
        expect(linesWith(run.stderr, 'first observation; recording without re-imaging')).toHaveLength(3);
        expect(theLine(run.stderr, `signature of ${JM}@${digest.jm1}`)).toMatch(
          /not verified \(first observation, nothing rolled\): no cosign signature tag sha256-[0-9a-f]{64}\.sig; no sigstore bundle/,
        );
        expect(annotationsOf(world.cluster.jobsManager())[RECORD_JM]).toBe(digest.jm1);
      },
      CHAPTER_MS,
    );

    it(
      'an unsigned build is published: a finding (exit 1, the line, the Event), nothing rolls, no attempt spent',
      async () => {
        digest.jm2 = await world.registry.push(JM, 'stg');
        const run = await tick();
        expect(run.exitCode).toBe(1);
        expect(theLine(run.stderr, 'SIGNATURE NOT VERIFIED')).toMatch(
          new RegExp(`^\\[image-refresh\\] ERROR: SIGNATURE NOT VERIFIED for ${JM}@${digest.jm2}: `),
        );
        expect(imagesOf(world.cluster.jobsManager()).api).toBe('docker.io/tracebloc/jobs-manager:stg');
        expect(imagesOf(world.cluster.requestsProxy()).proxy).toBe('docker.io/tracebloc/jobs-manager:stg');
        const annotations = annotationsOf(world.cluster.jobsManager());
        expect(annotations[ATTEMPT]).toBeUndefined();
        expect(annotations[RECORD_JM]).toBe(digest.jm1);
        expect(world.cluster.server.events.counted()).toContain('Warning RefreshSignatureRejected ×1');
      },
      CHAPTER_MS,
    );

    it(
      'it is signed (a sigstore bundle by @sigstore/sign, attached by @sigstore/oci): the next tick re-images it, naming the key',
      async () => {
        const jm2 = digest.jm2 ?? '';
        await attachBundle(world.registry.url, JM, jm2, await bundleOver(key, cosignStatement(jm2)));
        const run = await tick();
        expect(run.exitCode).toBe(0);
        expect(theLine(run.stderr, `signature of ${JM}@${jm2}`)).toBe(
          `[image-refresh] signature of ${JM}@${jm2} verified by ${files.publicKey}`,
        );
        expect(imagesOf(world.cluster.jobsManager()).api).toBe(`docker.io/${JM}@${jm2}`);
        expect(imagesOf(world.cluster.requestsProxy()).proxy).toBe(`docker.io/${JM}@${jm2}`);
        expect(annotationsOf(world.cluster.jobsManager())[RECORD_JM]).toBe(jm2);
        const signed = `(signature verified by ${files.publicKey})`;
        const move = `${shortDigest(digest.jm1 ?? '')} → ${shortDigest(jm2)} ${signed}`;
        expect(
          world.cluster.server.events
            .all()
            .filter((e) => e.reason === 'RefreshReimaged')
            .map((e) => e.message),
        ).toEqual([
          `deployment/${JOBS_MANAGER} re-imaged: api ${move} | deployment/${REQUESTS_PROXY} re-imaged: proxy ${move}`,
        ]);
      },
      CHAPTER_MS,
    );

    it(
      'status shows per image: verified by which key, or not verified and why',
      async () => {
        const run = await runBundle(['status'], env());
        expect(run.exitCode).toBe(0);
        const header = run.stdout.indexOf(theLine(run.stdout, 'signatures (VERIFY_SIGNATURES=enforce'));
        expect(run.stdout.slice(header + 1)).toEqual([
          `jobs-manager      ${shortDigest(digest.jm2 ?? '')} verified by ${files.publicKey}`,
          expect.stringMatching(
            new RegExp(`^pods-monitor      ${shortDigest(digest.pm1 ?? '')} NOT verified: no cosign signature tag`),
          ),
          expect.stringMatching(/^resource-monitor {2}sha256:\S+ NOT verified: no cosign signature tag/),
        ]);
        const json = await runBundle(['status', '--json'], env());
        const images = (JSON.parse(json.stdout.join('')) as { images: { image: string; signature: unknown }[] }).images;
        expect(images.find((i) => i.image === 'jobs-manager')?.signature).toEqual({
          state: 'verified',
          digest: digest.jm2,
          by: files.publicKey,
          why: null,
        });
      },
      CHAPTER_MS,
    );
  },
);
