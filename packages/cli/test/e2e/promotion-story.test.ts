import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseFleetHalt, parseFleetPromotion } from '@image-refresh/core';
import * as E from 'fp-ts/lib/Either.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registryBinaryMissing } from '../../../k8s-adapter/test/parity/support/parity-registry.js';
import { JOBS_MANAGER, REQUESTS_PROXY } from '../../../k8s-adapter/test/support/fake-api-chart.js';
import { publishFleetPromotion } from '../../../k8s-adapter/test/support/fleet-halt-publish.js';
import {
  newSigningKey,
  pushSigTag,
  sigLayer,
  simpleSigningPayload,
} from '../../../k8s-adapter/test/support/signature-sig-tag.js';
import { prometheusBinariesMissing, type Stack, startStack } from '../promote/support/prometheus.js';
import { JM, pinned, RECORD } from './support/chart-facts.js';
import { type Stage, type StageRun, startStage } from './support/cluster-stage.js';
import { type BundleRun, linesWith, runBundle, theLine } from './support/run-bundle.js';
import { STORY_SETUP_TIMEOUT_MS, type StoryRegistry, startStoryRegistry } from './support/story-registry.js';

// The fleet promotion end to end (docs/fleet-promotion.md), told to what
// ships: every edge is the bundled CLI ticking against its own fake
// Kubernetes API server (its own cluster, namespace and gate), all of them
// pulling from one Debian docker-registry with token auth and pushing their
// evidence to Debian's Pushgateway under their own `edge` grouping label;
// Debian's Prometheus scrapes the gateway every second with honor_labels, as
// the doc asks of a fleet's Prometheus; `image-refresh promote` (the bundle
// too) judges what Prometheus holds. The promotion it writes is published as
// the doc's "Publishing" says — `oras push` with the promotion's media type,
// `cosign sign` on the manifest digest with the key the ring-1 edges trust.
//
// The story: the canary rolls build 2 while the ring-1 edges wait for its
// promotion; promote says not yet, then — once the canary has run it for
// `--for` — yes; an unsigned promotion opens nothing (fail closed); signed, it
// moves both ring-1 edges; their evidence then promotes to ring 2 on three
// edges. Last, a canary rolls build 3 back: promote says no, naming it, and
// renders the fleet halt of it.

const PROMOTION = 'tracebloc/fleet-control';
const PROMOTION_TAG = 'stg-promotion';
const PROMOTION_REF = `docker.io/${PROMOTION}:${PROMOTION_TAG}`;
/** The image's name as the profile and the metrics name it: what a promotion names. */
const IMAGE = 'jobs-manager';
/** With PUSHGATEWAY_URL set, the record write carries the time beside the digest: the evidence's "since". */
const RECORDED_AT_JM = 'tracebloc.io/last-refreshed-jobs-manager-at';
const QUARANTINE_JM = 'tracebloc.io/quarantined-jobs-manager-digest';
const PROMOTION_KEPT = 'tracebloc.io/fleet-promotion-digest';
/** The soak `promote` asks for: short, and waited for on the wall clock (the evidence's times are real). */
const SOAK = '2s';
const SOAK_MS = 2_000;
const CHAPTER_MS = 60_000;

const missing = registryBinaryMissing ?? prometheusBinariesMissing;
if (missing !== undefined) console.warn(`SKIPPED ${import.meta.url}: ${missing}`);

interface Edge {
  readonly name: string;
  readonly ring: number;
  readonly stage: Stage;
  tick(extra?: Readonly<Record<string, string>>): Promise<StageRun>;
}

describe.skipIf(missing !== undefined)(
  `the fleet promotion on real parts: bundled edges, Pushgateway, Prometheus, registry${missing === undefined ? '' : ` (skipped: ${missing})`}`,
  () => {
    let world: StoryRegistry;
    let stack: Stack;
    let dir: string;
    let publicKey: string;
    const key = newSigningKey('ecdsa-p256');
    const edges: Edge[] = [];
    const digest: Record<string, string> = {};

    const edge = (name: string): Edge => {
      const found = edges.find((e) => e.name === name);
      if (found === undefined) throw new Error(`no edge ${name}`);
      return found;
    };
    const canary = () => edge('canary-1');
    const ring1 = () => edges.filter((e) => e.ring === 1);

    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), 'image-refresh-e2e-promotion-'));
      publicKey = join(dir, 'fleet.pub');
      writeFileSync(publicKey, key.publicPem);
      // Started side by side; whichever started is closed by afterAll even when the other failed.
      const [registry, prometheus] = await Promise.allSettled([startStoryRegistry(), startStack()]);
      if (registry.status === 'fulfilled') world = registry.value;
      if (prometheus.status === 'fulfilled') stack = prometheus.value;
      if (registry.status === 'rejected') throw registry.reason;
      if (prometheus.status === 'rejected') throw prometheus.reason;
      for (const [name, ring] of [
        ['canary-1', 0],
        ['ring1-a', 1],
        ['ring1-b', 1],
      ] as const) {
        const stage = await startStage(world.endpoint);
        const env = {
          ROLLOUT_RING: String(ring),
          PUSHGATEWAY_URL: stack.gateway.url,
          METRICS_GROUPING: `edge=${name}`,
          // The gate counts on ring >= 1 only (docs/fleet-promotion.md): the canary makes the evidence.
          ...(ring === 0 ? {} : { FLEET_PROMOTION_REF: PROMOTION_REF, SIGNATURE_PUBLIC_KEYS: publicKey }),
        };
        edges.push({ name, ring, stage, tick: (extra = {}) => stage.tick({ ...env, ...extra }) });
      }
      // Build 1 of every image, installed on every edge: the first install records it.
      const first = await world.pushAll();
      digest.jm1 = first.jm;
      for (const e of edges) expect((await e.tick()).exitCode).toBe(0);
    }, STORY_SETUP_TIMEOUT_MS + 60_000);

    afterAll(async () => {
      for (const e of edges) await e.stage.close();
      await stack?.stop();
      await world?.close();
      if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
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
    /** `oras push` of a promotion file under the tag; its manifest digest. */
    const publish = async (file: string) =>
      (
        await publishFleetPromotion(
          world.registry.direct,
          PROMOTION,
          PROMOTION_TAG,
          readFileSync(file, 'utf8'),
          token(PROMOTION),
        )
      ).digest;

    const promote = (args: readonly string[]): Promise<BundleRun> =>
      runBundle(['promote', '--prometheus', stack.prometheusUrl, '--image', IMAGE, ...args], { HOME: dir });

    /**
     * Until `edges` have recorded `jm` for `SOAK` on the wall clock, then a
     * steady tick of each (promote counts a run only up to the edge's last
     * push), and Prometheus has scraped since.
     */
    const soaked = async (names: readonly Edge[]) => {
      const since = Math.max(
        ...names.map((e) => Date.parse(e.stage.bookkeeping()[RECORDED_AT_JM]?.split(' ')[1] ?? '')),
      );
      expect(Number.isFinite(since)).toBe(true);
      // The recorded time is whole seconds; the failure window (`--for`) must also be past the tick's own push.
      const wait = since + SOAK_MS + 1_500 - Date.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      for (const e of names) expect((await e.tick()).exitCode).toBe(0);
      await stack.scraped();
    };

    it(
      'build 2: the canary rolls it; the ring-1 edges, with no promotion published (404), wait for it and exit 0',
      async () => {
        digest.jm2 = await world.push(JM);
        const rolled = await canary().tick();
        expect(rolled.exitCode).toBe(0);
        expect(canary().stage.images()[JOBS_MANAGER]?.api).toBe(pinned(JM, digest.jm2));
        expect(canary().stage.bookkeeping()[RECORD.jm]).toBe(digest.jm2);
        for (const e of ring1()) {
          const run = await e.tick();
          expect(run.exitCode).toBe(0);
          expect(theLine(run.stderr, 'waiting for promotion of')).toContain(
            `waiting for promotion of ${IMAGE}@${digest.jm2} to ring 1`,
          );
          expect(e.stage.images()[JOBS_MANAGER]?.api).not.toBe(pinned(JM, digest.jm2));
          expect(e.stage.bookkeeping()[RECORD.jm]).toBe(digest.jm1);
        }
      },
      CHAPTER_MS,
    );

    it(
      'promote to ring 1: not yet while the canary has run it for less than --for; then yes, writing promotion.json',
      async () => {
        await stack.scraped();
        // The canary has run it for seconds, not an hour: the same evidence, judged against a longer soak.
        const early = await promote(['--digest', digest.jm2 ?? '', '--ring', '1', '--for', '1h']);
        expect(early.exitCode).toBe(1);
        expect(theLine(early.stdout, 'NOT YET')).toContain('to ring 1: NO, NOT YET');
        expect(theLine(early.stdout, 'canary-1 ')).toMatch(
          /not yet\s+recorded it \d+s ago, ran it \d+s to its last push \(\d+s ago\), needs 1h/,
        );

        await soaked([canary()]);
        const out = join(dir, 'promotion.json');
        const run = await promote(['--digest', digest.jm2 ?? '', '--ring', '1', '--for', SOAK, '--out', out]);
        expect(run.exitCode).toBe(0);
        expect(theLine(run.stdout, 'PROMOTE')).toContain(`1 edge(s) of rings < 1 ran it for at least ${SOAK}, clean`);
        expect(theLine(run.stdout, 'canary-1 ')).toMatch(/\syes\s/);
        const written = parseFleetPromotion(readFileSync(out, 'utf8'), Date.now());
        if (E.isLeft(written)) throw new Error(written.left);
        expect(written.right.promotions.map((p) => [p.image, p.digest, p.ring])).toEqual([[IMAGE, digest.jm2, 1]]);
      },
      CHAPTER_MS,
    );

    it(
      'published unsigned, the promotion opens nothing: PROMOTION UNVERIFIED, exit 1, nothing re-imaged',
      async () => {
        digest.promotion = await publish(join(dir, 'promotion.json'));
        const e = edge('ring1-a');
        const run = await e.tick();
        expect(run.exitCode).toBe(1);
        expect(theLine(run.stderr, 'PROMOTION UNVERIFIED')).toMatch(
          new RegExp(
            `^\\[image-refresh\\] ERROR: PROMOTION UNVERIFIED: ${PROMOTION_REF.replace(/[./]/g, '\\$&')}: its signature did not verify: .*; no changed digest is acted on this tick`,
          ),
        );
        expect(e.stage.images()[JOBS_MANAGER]?.api).not.toBe(pinned(JM, digest.jm2 ?? ''));
        expect(e.stage.bookkeeping()[RECORD.jm]).toBe(digest.jm1);
        expect(e.stage.cluster.server.events.counted()).toContain('Warning RefreshPromotionUnverified ×1');
      },
      CHAPTER_MS,
    );

    it(
      'signed with the key the edges trust: both ring-1 edges move to build 2 and record it',
      async () => {
        await sign(PROMOTION, digest.promotion ?? '');
        for (const e of ring1()) {
          const run = await e.tick();
          expect(run.exitCode).toBe(0);
          expect(linesWith(run.stderr, 'waiting for promotion')).toEqual([]);
          expect(e.stage.images()[JOBS_MANAGER]?.api).toBe(pinned(JM, digest.jm2 ?? ''));
          expect(e.stage.images()[REQUESTS_PROXY]?.proxy).toBe(pinned(JM, digest.jm2 ?? ''));
          expect(e.stage.bookkeeping()[RECORD.jm]).toBe(digest.jm2);
          // The promotion verified is kept beside the record: the next tick's HEAD finds it known.
          expect(e.stage.bookkeeping()[PROMOTION_KEPT]).toBe(digest.promotion);
        }
      },
      CHAPTER_MS,
    );

    it(
      'a steady ring-1 tick under the kept promotion reads it with one HEAD, and touches nothing',
      async () => {
        const e = edge('ring1-b');
        const run = await e.tick();
        expect(run.exitCode).toBe(0);
        expect(run.stderr.at(-1)).toMatch(/summary: outcome=complete exit=0 findings=0 writes=0 re-images=0 /);
        const promotionRequests = run.registry.filter((r) => r.url.includes(PROMOTION));
        expect(promotionRequests.map((r) => `${r.method} ${r.url}`)).toEqual([
          `HEAD /v2/${PROMOTION}/manifests/${PROMOTION_TAG}`,
        ]);
      },
      CHAPTER_MS,
    );

    it(
      'promote to ring 2 on the three edges of rings 0 and 1: too thin for --min-edges 4, yes for 3',
      async () => {
        await soaked(ring1());
        const base = ['--digest', digest.jm2 ?? '', '--ring', '2', '--for', SOAK];
        const thin = await promote([...base, '--min-edges', '4']);
        expect(thin.exitCode).toBe(3);
        expect(theLine(thin.stdout, 'TOO THIN')).toContain('to ring 2: TOO THIN');

        const out = join(dir, 'promotion-2.json');
        const run = await promote([...base, '--min-edges', '3', '--from', join(dir, 'promotion.json'), '--out', out]);
        expect(run.exitCode).toBe(0);
        expect(theLine(run.stdout, 'PROMOTE')).toContain(`3 edge(s) of rings < 2 ran it for at least ${SOAK}, clean`);
        for (const name of ['canary-1', 'ring1-a', 'ring1-b'])
          expect(theLine(run.stdout, `${name} `)).toMatch(/\syes\s/);
        const written = parseFleetPromotion(readFileSync(out, 'utf8'), Date.now());
        if (E.isLeft(written)) throw new Error(written.left);
        expect(written.right.promotions.map((p) => [p.image, p.digest, p.ring])).toEqual([[IMAGE, digest.jm2, 2]]);
      },
      CHAPTER_MS,
    );

    it(
      'the canary rolls build 3 back (ON_ROLLOUT_FAILURE=revert): promote says no, naming it; --halt-on-rollback writes its halt',
      async () => {
        digest.jm3 = await world.pushNeverReady(JM);
        const run = await canary().tick({ ON_ROLLOUT_FAILURE: 'revert' });
        expect(run.exitCode).toBe(1);
        expect(theLine(run.stderr, 'ROLLED BACK')).toContain(`from ${digest.jm3} to ${digest.jm2}`);
        expect(canary().stage.bookkeeping()[QUARANTINE_JM]).toBe(digest.jm3);
        await stack.scraped();

        const out = join(dir, 'halt.json');
        const no = await promote([
          '--digest',
          digest.jm3 ?? '',
          '--ring',
          '1',
          '--for',
          SOAK,
          '--halt-on-rollback',
          '--out',
          out,
        ]);
        expect(no.exitCode).toBe(1);
        expect(theLine(no.stdout, 'NO:')).toMatch(
          /NO: edge canary-1 \(ring 0\) rolled it back and quarantined it at \d{4}-/,
        );
        expect(theLine(no.stdout, 'rollback: edge canary-1')).toContain(`${JM}@${(digest.jm3 ?? '').slice(0, 19)}…`);
        const halt = parseFleetHalt(readFileSync(out, 'utf8'), Date.now());
        if (E.isLeft(halt)) throw new Error(halt.left);
        expect(halt.right.repositories).toEqual({ [JM]: { digests: [digest.jm3], pin: undefined } });
        expect(halt.right.reason).toMatch(/on edge canary-1 at \d{4}-/);

        // The gate kept build 3 from ring 1 all along: nothing promoted it.
        for (const e of ring1()) {
          const held = await e.tick();
          expect(held.exitCode).toBe(0);
          expect(theLine(held.stderr, 'waiting for promotion of')).toContain(
            `waiting for promotion of ${IMAGE}@${digest.jm3} to ring 1`,
          );
          expect(e.stage.images()[JOBS_MANAGER]?.api).toBe(pinned(JM, digest.jm2 ?? ''));
        }
      },
      CHAPTER_MS,
    );
  },
);
