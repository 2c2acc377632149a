import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { newSigningKey } from '../../../k8s-adapter/test/support/signature-sig-tag.js';
import { JM } from './support/chart-facts.js';
import { type Stage, type StageRun, startStage } from './support/cluster-stage.js';
import {
  PUSHGATEWAY_SETUP_TIMEOUT_MS,
  type Pushgateway,
  pushgatewayBinaryMissing,
  startPushgateway,
} from './support/pushgateway.js';
import { describeOnStoryRegistry } from './support/story-registry.js';

// What the summary and the metrics call what the new guards decide, told to
// what ships: the bundled CLI against the fake API server and a real
// docker-registry, pushing to a real Pushgateway. Three edges follow one tag
// and see the same new jobs-manager build, which is unsigned and never
// becomes Ready: under VERIFY_SIGNATURES=enforce it is rejected, under
// ON_ROLLOUT_FAILURE=revert it is rolled back and then held in quarantine,
// under MIN_DIGEST_AGE it soaks. Each ends under its own outcome — the one an
// SRE alerts on (deploy/prometheusrule.yaml) — and pushes its own gauge.
// Before, the rejection ended `outcome=complete exit=1` and pushed
// tick_outcome{outcome="complete"}, the hold and the soak ended `complete`,
// and none had a gauge: every case was red on the unfixed CLI.

const STORY_MS = 90_000;
const BOUNDS = { ROLLOUT_TIMEOUT: '6s' };

if (pushgatewayBinaryMissing !== undefined) console.warn(`SKIPPED ${import.meta.url}: ${pushgatewayBinaryMissing}`);

describeOnStoryRegistry(
  import.meta.url,
  'a rejection, a rollback, a quarantine hold and a soak: their own outcome and gauge, on the bundled CLI',
  (world) => {
    let gateway: Pushgateway;
    const stages: Record<'trust' | 'wayBack' | 'soak', Stage> = {} as never;
    const files = mkdtempSync(join(tmpdir(), 'image-refresh-alertable-'));
    const publicKey = join(files, 'cosign.pub');
    const env: Record<keyof typeof stages, Record<string, string>> = {
      trust: { VERIFY_SIGNATURES: 'enforce', SIGNATURE_PUBLIC_KEYS: publicKey },
      wayBack: { ON_ROLLOUT_FAILURE: 'revert' },
      soak: { MIN_DIGEST_AGE: '1h' },
    };
    const tick = (edge: keyof typeof stages): Promise<StageRun> =>
      stages[edge].tick({
        ...BOUNDS,
        ...env[edge],
        PUSHGATEWAY_URL: gateway.url,
        METRICS_GROUPING: `edge=${edge}`,
      });
    /** This edge's image_refresh_ gauges on the gateway, `name{labels}` → value, its own labels only. */
    const pushed = async (edge: string): Promise<Record<string, number>> =>
      Object.fromEntries(
        (await gateway.samples())
          .filter((s) => s.name.startsWith('image_refresh_') && s.labels.edge === edge)
          .map((s) => {
            const { edge: _e, job: _j, instance: _i, ...own } = s.labels;
            const labels = Object.entries(own)
              .map(([k, v]) => `${k}=${v}`)
              .join(',');
            return [labels === '' ? s.name : `${s.name}{${labels}}`, s.value];
          }),
      );

    beforeAll(async () => {
      if (pushgatewayBinaryMissing !== undefined) return;
      writeFileSync(publicKey, newSigningKey('ecdsa-p256').publicPem);
      gateway = await startPushgateway();
      await world.pushAll();
      for (const edge of Object.keys(env) as (keyof typeof stages)[]) {
        stages[edge] = await startStage(world.endpoint);
        expect((await tick(edge)).exitCode).toBe(0);
      }
      // One new jobs-manager build for all three edges: unsigned, and its pods never become Ready.
      await world.pushNeverReady(JM);
    }, STORY_MS + PUSHGATEWAY_SETUP_TIMEOUT_MS);
    afterAll(async () => {
      for (const stage of Object.values(stages)) await stage.close();
      await gateway?.stop();
      rmSync(files, { recursive: true, force: true });
    });

    it.skipIf(pushgatewayBinaryMissing !== undefined)(
      'VERIFY_SIGNATURES=enforce rejects the unsigned build: outcome=signatureRejected, exit 1, signatures_rejected 1',
      async () => {
        const run = await tick('trust');
        expect(run.exitCode).toBe(1);
        expect(run.stderr.at(-1)).toBe(
          '[image-refresh] summary: outcome=signatureRejected exit=1 findings=1 writes=0 re-images=0 unresolved=0',
        );
        expect(await pushed('trust')).toMatchObject({
          'image_refresh_tick_outcome{outcome=signatureRejected}': 1,
          image_refresh_exit_code: 1,
          image_refresh_signatures_rejected: 1,
          image_refresh_rolled_back: 0,
          image_refresh_digests_soaking: 0,
          image_refresh_quarantined_digests: 0,
        });
      },
      STORY_MS,
    );

    it.skipIf(pushgatewayBinaryMissing !== undefined)(
      'ON_ROLLOUT_FAILURE=revert rolls it back (rolled_back 1, quarantined 1), then holds it: outcome=quarantineHeld, exit 0',
      async () => {
        const rolled = await tick('wayBack');
        expect(rolled.exitCode).toBe(1);
        expect(rolled.stderr.at(-1)).toMatch(/^\[image-refresh\] summary: outcome=rolledBack exit=1 /);
        expect(await pushed('wayBack')).toMatchObject({
          'image_refresh_tick_outcome{outcome=rolledBack}': 1,
          image_refresh_rolled_back: 1,
          image_refresh_quarantined_digests: 1,
          image_refresh_signatures_rejected: 0,
        });
        const held = await tick('wayBack');
        expect(held.exitCode).toBe(0);
        expect(held.stderr.at(-1)).toBe(
          '[image-refresh] summary: outcome=quarantineHeld exit=0 findings=0 writes=0 re-images=0 unresolved=0',
        );
        const m = await pushed('wayBack');
        expect(m).toMatchObject({
          'image_refresh_tick_outcome{outcome=quarantineHeld}': 1,
          image_refresh_rolled_back: 0,
          image_refresh_quarantined_digests: 1,
        });
        // POST replaces the outcome metric whole: the rollback's outcome is gone.
        expect(m['image_refresh_tick_outcome{outcome=rolledBack}']).toBeUndefined();
      },
      STORY_MS,
    );

    it.skipIf(pushgatewayBinaryMissing !== undefined)(
      'MIN_DIGEST_AGE=1h holds it to soak: outcome=soaking, exit 0, digests_soaking 1',
      async () => {
        const run = await tick('soak');
        expect(run.exitCode).toBe(0);
        expect(run.stderr.at(-1)).toMatch(
          /^\[image-refresh\] summary: outcome=soaking exit=0 findings=0 writes=1 \(writePendingDigests\) re-images=0 unresolved=0$/,
        );
        expect(await pushed('soak')).toMatchObject({
          'image_refresh_tick_outcome{outcome=soaking}': 1,
          image_refresh_exit_code: 0,
          image_refresh_digests_soaking: 1,
          image_refresh_rolled_back: 0,
        });
      },
      STORY_MS,
    );
  },
);
