import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseFleetHalt, parseFleetPromotion } from '@image-refresh/core';
import * as E from 'fp-ts/lib/Either.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expositionOf, prometheusBinariesMissing, type Stack, startStack } from './support/prometheus.js';
import { D, D2, OLD, runPromote, theLine } from './support/run-promote.js';

// `image-refresh promote` on real parts (docs/fleet-promotion.md): Debian's
// Prometheus scraping Debian's Pushgateway every second with honor_labels,
// edges' groups pushed as exposition text the way a tick pushes them. The
// queries are judged by the real PromQL engine: the `or` of labelled parts,
// the client-side join on grouping labels, the quarantine's subquery, the
// ring's changes().

if (prometheusBinariesMissing !== undefined) console.warn(`SKIPPED ${import.meta.url}: ${prometheusBinariesMissing}`);

const HOUR = 3_600;

describe.skipIf(prometheusBinariesMissing !== undefined)(
  `promote against a real Prometheus scraping a real Pushgateway${prometheusBinariesMissing === undefined ? '' : ` (skipped: ${prometheusBinariesMissing})`}`,
  () => {
    let stack: Stack;
    let dir: string;
    const now = Math.floor(Date.now() / 1_000);
    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), 'promote-real-'));
      stack = await startStack();
      const edge = (name: string) => `/job/image-refresh/namespace/shop/edge/${name}`;
      // Two canaries that ran web@D for 3 h; canary-2 rolled api@D2 back and quarantined it.
      await stack.push(
        edge('canary-1'),
        expositionOf(
          {
            ring: 0,
            recorded: {
              web: { digest: D, sinceSeconds: now - 3 * HOUR },
              api: { digest: D2, sinceSeconds: now - 3 * HOUR },
            },
          },
          now,
        ),
      );
      await stack.push(
        edge('canary-2'),
        expositionOf(
          {
            ring: 0,
            recorded: {
              web: { digest: D, sinceSeconds: now - 3 * HOUR },
              api: { digest: OLD, sinceSeconds: now - 9 * HOUR },
            },
            quarantined: { api: { digest: D2, repository: 'shop/api' } },
          },
          now,
        ),
      );
      // Ring 1 runs the old build: not asked about a promotion to ring 1.
      await stack.push(
        edge('ring1-a'),
        expositionOf({ ring: 1, recorded: { web: { digest: OLD, sinceSeconds: now - 9 * HOUR } } }, now),
      );
      // Ring 1, running jobs@D: one unsettled (skipped ticks), one frozen; the evidence for a promotion of jobs to ring 2.
      await stack.push(
        edge('settling'),
        expositionOf({ ring: 1, skipStreak: 3, recorded: { jobs: { digest: D, sinceSeconds: now - 3 * HOUR } } }, now),
      );
      await stack.push(
        edge('icebox'),
        expositionOf(
          { ring: 1, outcome: 'frozen', recorded: { jobs: { digest: D, sinceSeconds: now - 3 * HOUR } } },
          now,
        ),
      );
      // A grouping without an edge label: named, not counted.
      await stack.push('/job/image-refresh/namespace/orphan', expositionOf({ ring: 0 }, now));
      // An edge whose ring changes between two scrapes: refused.
      await stack.push(
        edge('flipper'),
        expositionOf({ ring: 0, recorded: { web: { digest: D, sinceSeconds: now - 3 * HOUR } } }, now),
      );
      await stack.scraped();
      await stack.push(
        edge('flipper'),
        expositionOf({ ring: 1, recorded: { web: { digest: D, sinceSeconds: now - 3 * HOUR } } }, now),
      );
      await stack.scraped();
    }, 40_000);
    afterAll(async () => {
      await stack?.stop();
      if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
    });

    it('promotes web@D to ring 1 on the two canaries, names the unlabelled grouping and refuses the flipping edge', async () => {
      const out = join(dir, 'promotion.json');
      const run = await runPromote([
        '--prometheus',
        stack.prometheusUrl,
        '--image',
        'web',
        '--digest',
        D,
        '--ring',
        '1',
        '--for',
        '2h',
        '--min-edges',
        '2',
        '--out',
        out,
      ]);
      expect(run.stderr).toEqual([]);
      expect(run.exitCode).toBe(0);
      expect(theLine(run.stdout, 'PROMOTE')).toContain('2 edge(s) of rings < 1 ran it for at least 2h, clean');
      expect(theLine(run.stdout, 'canary-1 ')).toMatch(/canary-1\s+0\s+sha256:d{12}….*\syes\s+ran it 3h/);
      expect(theLine(run.stdout, 'canary-2 ')).toMatch(/\syes\s/);
      expect(theLine(run.stdout, 'namespace=orphan')).toMatch(/not counted\s+no edge label/);
      expect(theLine(run.stdout, 'flipper')).toMatch(/not counted\s+its ring changed within the last hour/);
      expect(run.stdout.filter((line) => line.includes('ring1-a'))).toEqual([]);
      const written = parseFleetPromotion(readFileSync(out, 'utf8'), Date.now());
      if (E.isLeft(written)) throw new Error(written.left);
      expect(written.right.promotions.map((p) => [p.image, p.digest, p.ring])).toEqual([['web', D, 1]]);
      expect(written.right.promotions[0]?.evidence).toContain(
        `2 edge(s) of rings < 1 ran it for >= 2h clean (min 2); ${stack.prometheusUrl}`,
      );
    });

    it('says no, not yet, when --for is longer than the canaries ran it', async () => {
      const run = await runPromote([
        '--prometheus',
        stack.prometheusUrl,
        '--image',
        'web',
        '--digest',
        D,
        '--ring',
        '1',
        '--for',
        '4h',
      ]);
      expect(run.exitCode).toBe(1);
      expect(theLine(run.stdout, 'NOT YET')).toContain('2 of 2 edge(s) of rings < 1 have not run it for 4h');
      expect(theLine(run.stdout, 'canary-1 ')).toMatch(
        /not yet\s+recorded it 3h\S* ago, ran it \S+ to its last push \(\d+s ago\), needs 4h/,
      );
    });

    it('an unsettled and a frozen edge say no, by the real PromQL of the one `unsettled` part', async () => {
      const run = await runPromote([
        '--prometheus',
        stack.prometheusUrl,
        '--image',
        'jobs',
        '--digest',
        D,
        '--ring',
        '2',
        '--for',
        '2h',
      ]);
      expect(run.exitCode).toBe(1);
      expect(theLine(run.stdout, 'settling ')).toMatch(
        /\sno\s+its gate was unsettled — skipped ticks, up to 3 in a row — within the last 2h$/,
      );
      expect(theLine(run.stdout, 'icebox ')).toMatch(
        /\sno\s+frozen — its gate unsettled for MAX_SKIP_TICKS ticks — within the last 2h$/,
      );
    });

    it('a canary rolled api@D2 back: no, naming the edge and the tick; --halt-on-rollback writes its halt', async () => {
      const out = join(dir, 'halt.json');
      const run = await runPromote([
        '--prometheus',
        stack.prometheusUrl,
        '--image',
        'api',
        '--digest',
        D2,
        '--ring',
        '1',
        '--for',
        '2h',
        '--halt-on-rollback',
        '--out',
        out,
      ]);
      expect(run.exitCode).toBe(1);
      expect(theLine(run.stdout, 'NO:')).toMatch(
        /NO: edge canary-2 \(ring 0\) rolled it back and quarantined it at \d{4}-/,
      );
      expect(theLine(run.stdout, 'rollback: edge canary-2')).toContain('shop/api@sha256:eeeeeeeeeeee…');
      const halt = parseFleetHalt(readFileSync(out, 'utf8'), Date.now());
      if (E.isLeft(halt)) throw new Error(halt.left);
      expect(halt.right.repositories).toEqual({ 'shop/api': { digests: [D2], pin: undefined } });
      expect(halt.right.reason).toMatch(/on edge canary-2 at \d{4}-/);
      expect(halt.right.expiresAtMs - Date.now()).toBeGreaterThan(23 * HOUR * 1_000);
      expect(halt.right.expiresAtMs - Date.now()).toBeLessThanOrEqual(24 * HOUR * 1_000);
    });
  },
);
