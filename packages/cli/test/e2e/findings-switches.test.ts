import { shortDigest } from '@image-refresh/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Flapping, restAs, stageFlapping } from '../../../k8s-adapter/test/parity/support/world-controls.js';
import { JOBS_MANAGER, NS } from '../../../k8s-adapter/test/support/fake-api-chart.js';
import { seriesCount } from '../../../k8s-adapter/test/support/fake-api-events.js';
import type { JsonObject } from '../../../k8s-adapter/test/support/fake-api-patch.js';
import {
  ATTEMPT,
  FLAP,
  JM,
  JM_REF,
  ON_TAG,
  PM,
  pinned,
  RECORD,
  REIMAGE_SUMMARY,
  REIMAGED_BOTH,
  RM,
  STREAK,
  withoutPrefix,
} from './support/chart-facts.js';
import { patchesOf, type Stage, type StageRun, startStage } from './support/cluster-stage.js';
import { kubectlAnnotate } from './support/hand-edits.js';
import { linesWith, theLine } from './support/run-bundle.js';
import { type Builds, describeOnStoryRegistry } from './support/story-registry.js';

// FLAP_LOCKOUT_EXIT, IMAGE_REFRESH_EVENTS and REGISTRY_BUDGET_FLOOR
// (docs/behaviour.md §6), each both ways, told to what ships: the bundled CLI
// as a child process per tick against the fake API server and a real
// docker-registry (stage: support/cluster-stage.ts). Each story has its own
// fresh release on its own fake server and pushes its own first builds, so the
// stories share nothing but the registry process. Assertions are exit codes,
// what the API server holds and received, and the one line that matters — never
// a banner (the chart's bats suite learnt it in the pull request for
// backend#1964).
//
// The registry is reached through a budget proxy (support/registry-budget-
// proxy.ts) that stamps Docker Hub's ratelimit headers on manifest answers
// when a story sets a budget; docker-registry itself sends none.
//
// Mutations of src that redden this file, each run by hand in a private copy
// of the tree (bundle rebuilt there, copy discarded), with the case that
// caught it: the lockout's level fixed to warn, FLAP_LOCKOUT_EXIT ignored
// (the =1 case) and fixed to error (the default/=0 case); `rearm` clearing
// the skip streak instead of the flap state (the re-armed case); an Event
// named per tick instead of per reason and note shape, piling up (the FROZEN
// count case);
// no RefreshReimaged Event (the re-image case); IMAGE_REFRESH_EVENTS=0
// ignored after the tick (the twin case); the floor ignored, `< 0` (the
// low-budget case); `<=` for `<` (the at-the-floor case);
// REGISTRY_BUDGET_FLOOR not read, always 10 (the floor-0 case); a deferred
// tick dropping its first observations (the low-budget case); the budget
// checked before first observations are recorded (the first-install case).

// A story is several CLI runs of ~0.5–1.5 s each on a loaded 2-core machine.
const STORY_MS = 60_000;

describeOnStoryRegistry(
  import.meta.url,
  `the findings' switches both ways, on the bundled CLI (ROLLOUT_TIMEOUT=500ms, SETTLE_TIMEOUT=300ms)`,
  (world) => {
    const newStage = () => startStage(world.endpoint);

    describe('FLAP_LOCKOUT_EXIT (MAX_REFRESH_ATTEMPTS=1, so one failed re-image reaches the lockout)', () => {
      let stage: Stage;
      let flapping: Flapping;
      let first: Builds;
      let jm2 = '';
      const base = { MAX_REFRESH_ATTEMPTS: '1' };
      const tick = async (overrides: Readonly<Record<string, string>> = {}): Promise<StageRun> => {
        const run = await stage.tick({ ...base, ...overrides });
        // The flapping workload is Ready again once the tick has waited on it.
        flapping.readyAgain();
        return run;
      };
      /** The lockout with drift pending, as the server holds it after every lockout tick. */
      const lockedOut = () => ({
        [RECORD.jm]: first.jm,
        [RECORD.pm]: first.pm,
        [RECORD.rm]: first.rm,
        [ATTEMPT]: '1',
        [FLAP]: '1',
      });
      let flapLine = '';

      beforeAll(async () => {
        stage = await newStage();
        flapping = stageFlapping(stage.cluster);
        first = await world.pushAll();
      });
      afterAll(async () => {
        flapping?.stop();
        await stage?.close();
      });

      it(
        'first install, then a flapping jobs-manager build fails its one attempt: exit 1, refresh-attempt=1, nothing recorded',
        async () => {
          expect((await tick()).exitCode).toBe(0);
          jm2 = await world.push(JM);
          flapping.add(JM_REF);
          const run = await tick();
          expect(run.exitCode).toBe(1);
          expect(theLine(run.stderr, 're-imaging control-plane workloads')).toContain('(attempt 1/1)');
          expect(run.stderr.at(-1)).toMatch(/summary: outcome=reimageFailed exit=1 /);
          expect(stage.bookkeeping()).toEqual({
            [RECORD.jm]: first.jm,
            [RECORD.pm]: first.pm,
            [RECORD.rm]: first.rm,
            [ATTEMPT]: '1',
          });
        },
        STORY_MS,
      );

      it(
        'FLAP_LOCKOUT_EXIT=1: the lockout tick with drift pending exits 1 with FLAP DETECTED, and so does the next one',
        async () => {
          for (const k of [1, 2]) {
            const run = await tick({ FLAP_LOCKOUT_EXIT: '1' });
            expect(run.exitCode, `lockout tick ${k}`).toBe(1);
            // The drift is still pending: that is what makes the lockout a finding.
            expect(theLine(run.stderr, 'digest changed'), `lockout tick ${k}`).toContain(`(${first.jm} -> ${jm2})`);
            flapLine = theLine(run.stderr, 'FLAP DETECTED');
            // A finding says so in its own first word, as every other finding does.
            expect(flapLine).toMatch(/^\[image-refresh\] ERROR: rollout for the current image/);
            expect(flapLine).toContain('failed 1 time(s) in a row (>= MAX_REFRESH_ATTEMPTS=1) -- FLAP DETECTED');
            expect(flapLine).toContain('MANUAL ATTENTION NEEDED');
            expect(linesWith(run.stderr, 'set image'), `lockout tick ${k}`).toEqual([]);
            expect(run.stderr.at(-1), `lockout tick ${k}`).toBe(
              '[image-refresh] summary: outcome=flapLockout exit=1 findings=1 writes=1 (markFlapDetected) re-images=0 unresolved=0',
            );
            expect(stage.bookkeeping(), `lockout tick ${k}`).toEqual(lockedOut());
          }
        },
        STORY_MS,
      );

      it(
        'FLAP_LOCKOUT_EXIT unset (the default) and =0: the same lockout exits 0, with the very same FLAP DETECTED line',
        async () => {
          for (const overrides of [{}, { FLAP_LOCKOUT_EXIT: '0' }]) {
            const what = JSON.stringify(overrides);
            const run = await tick(overrides);
            expect(run.exitCode, what).toBe(0);
            // The same line, a warning here: only the level word differs.
            expect(theLine(run.stderr, 'FLAP DETECTED'), what).toBe(flapLine.replace('] ERROR: ', '] WARN: '));
            expect(run.stderr.at(-1), what).toBe(
              '[image-refresh] summary: outcome=flapLockout exit=0 findings=0 writes=1 (markFlapDetected) re-images=0 unresolved=0',
            );
            expect(stage.bookkeeping(), what).toEqual(lockedOut());
          }
        },
        STORY_MS,
      );

      it(
        'after `image-refresh rearm`, FLAP_LOCKOUT_EXIT=1 ticks re-image as attempt 1 and exit 0: the finding lasted until re-armed',
        async () => {
          expect((await stage.run(['rearm'], base)).exitCode).toBe(0);
          flapping.delete(JM_REF);
          stage.cluster.server.store.setBehaviour('Deployment', NS, JOBS_MANAGER, 'settles');
          restAs(stage.cluster, JM_REF, 'settles');
          const run = await tick({ FLAP_LOCKOUT_EXIT: '1' });
          expect(run.exitCode).toBe(0);
          expect(linesWith(run.stderr, 'FLAP DETECTED')).toEqual([]);
          expect(theLine(run.stderr, 're-imaging control-plane workloads')).toContain('(attempt 1/1)');
          // jobs-manager kept the build the failed attempt set: not sent again, not a re-image (docs/behaviour.md §3.6).
          expect(theLine(run.stderr, 'not re-imaged')).toBe(
            `[image-refresh] deployment/stg-jobs-manager already runs ${pinned(JM, jm2)}; not re-imaged`,
          );
          expect(run.stderr.at(-1)).toBe(
            REIMAGE_SUMMARY.replace(REIMAGED_BOTH, 're-images=1 (deployment/stg-requests-proxy)'),
          );
          expect(stage.bookkeeping()).toEqual({ [RECORD.jm]: jm2, [RECORD.pm]: first.pm, [RECORD.rm]: first.rm });
        },
        STORY_MS,
      );
    });

    describe('IMAGE_REFRESH_EVENTS (MAX_SKIP_TICKS=1, so every unsettled tick is FROZEN): one release with Events on (the default), its twin with =0, and a triplet whose Role lacks the events rule (the chart swapped without it), tick for tick', () => {
      let on: Stage;
      let off: Stage;
      let denied: Stage;
      let first: Builds;
      let jm2 = '';
      const base = { MAX_SKIP_TICKS: '1' };
      /** Each step's outcome on the three releases, compared at the end. */
      const steps: { on: string; off: string; denied: string }[] = [];
      /** The RBAC-denied release's runs: Event requests sent, and its WARN lines about Events. */
      const deniedRuns: { eventRequests: number; warnings: string[] }[] = [];
      /** The same tick on the three releases at once (they share only the registry, which a tick only reads). */
      const tickAll = async (): Promise<[StageRun, StageRun]> => {
        const [a, b, c] = await Promise.all([
          on.tick(base),
          off.tick({ ...base, IMAGE_REFRESH_EVENTS: '0' }),
          denied.tick(base),
        ]);
        const outcome = (run: StageRun) => `exit=${run.exitCode} ${run.stderr.at(-1)}`;
        steps.push({ on: outcome(a), off: outcome(b), denied: outcome(c) });
        deniedRuns.push({
          eventRequests: c.api.filter((r) => r.route === 'event').length,
          warnings: linesWith(c.stderr, 'could not record the Kubernetes Event'),
        });
        return [a, b];
      };
      const events = () => on.cluster.server.events.all();
      const byReason = (reason: string): JsonObject => {
        const found = events().filter((e) => e.reason === reason);
        if (found.length !== 1) throw new Error(`expected one ${reason} Event, got ${JSON.stringify(events())}`);
        return found[0] as JsonObject;
      };
      const gateUid = () => String((on.cluster.jobsManager().metadata as JsonObject).uid);

      beforeAll(async () => {
        [on, off, denied] = await Promise.all([newStage(), newStage(), newStage()]);
        // What the apiserver answers a ServiceAccount whose Role has no events rule.
        denied.cluster.server.inject(
          { route: 'event' },
          {
            kind: 'status',
            code: 403,
            message:
              'events.events.k8s.io is forbidden: User "system:serviceaccount:tracebloc:stg-image-refresh" cannot create resource "events" in API group "events.k8s.io" in the namespace "tracebloc"',
          },
          Number.POSITIVE_INFINITY,
        );
        first = await world.pushAll();
      });
      afterAll(async () => {
        await on?.close();
        await off?.close();
        await denied?.close();
      });

      it(
        'a healthy first install sends no Event; a re-image records one Normal RefreshReimaged on the jobs-manager Deployment naming old → new digest per workload',
        async () => {
          const [install] = await tickAll();
          expect(install.exitCode).toBe(0);
          expect(install.api.filter((r) => r.route === 'event')).toEqual([]);
          jm2 = await world.push(JM);
          const [reimage] = await tickAll();
          expect(reimage.stderr.at(-1)).toBe(REIMAGE_SUMMARY);
          const event = byReason('RefreshReimaged');
          expect(event.series).toBeUndefined();
          expect(event).toMatchObject({
            type: 'Normal',
            message: `deployment/stg-jobs-manager re-imaged: api ${shortDigest(first.jm)} → ${shortDigest(jm2)} | deployment/stg-requests-proxy re-imaged: proxy ${shortDigest(first.jm)} → ${shortDigest(jm2)}`,
            involvedObject: {
              apiVersion: 'apps/v1',
              kind: 'Deployment',
              name: 'stg-jobs-manager',
              namespace: 'tracebloc',
              uid: gateUid(),
            },
            reportingComponent: 'tracebloc.io/image-refresh',
            reportingInstance: 'stg-image-refresh-e2e',
          });
          expect((event.metadata as JsonObject).namespace).toBe('tracebloc');
        },
        STORY_MS,
      );

      it(
        'jobs-manager never Ready: three FROZEN ticks exit 1; the server holds ONE Warning RefreshFrozen whose series count goes -, 2, 3, its message the first FROZEN line (an Event note is immutable)',
        async () => {
          for (const stage of [on, off, denied]) {
            stage.cluster.server.store.setBehaviour('Deployment', NS, JOBS_MANAGER, 'neverReady');
            restAs(stage.cluster, JM_REF, 'neverReady');
          }
          let firstLine = '';
          for (let k = 1; k <= 3; k++) {
            const [run] = await tickAll();
            expect(run.exitCode, `frozen tick ${k}`).toBe(1);
            const frozenLine = theLine(run.stderr, 'IMAGE REFRESH IS FROZEN');
            expect(frozenLine).toContain(`unsettled for ${k} consecutive ticks (>= MAX_SKIP_TICKS=1)`);
            if (k === 1) firstLine = frozenLine;
            expect(byReason('RefreshFrozen'), `frozen tick ${k}`).toMatchObject({
              type: 'Warning',
              message: withoutPrefix(firstLine),
              involvedObject: { kind: 'Deployment', name: 'stg-jobs-manager', uid: gateUid() },
            });
            expect(seriesCount(byReason('RefreshFrozen')), `frozen tick ${k}`).toBe(k);
            // Repeats are counted on the one Event, never piled up as new ones.
            expect(events(), `frozen tick ${k}`).toHaveLength(2);
          }
          expect(on.cluster.server.events.counted()).toEqual(['Normal RefreshReimaged ×1', 'Warning RefreshFrozen ×3']);
          expect(on.bookkeeping()[STREAK]).toBe('3');
        },
        STORY_MS,
      );

      it('IMAGE_REFRESH_EVENTS=0: the twin had the same exit codes, summaries (writes, re-images) and final state — and not one Event request reached its server', () => {
        expect(steps).toHaveLength(5);
        expect(steps.map((s) => s.off)).toEqual(steps.map((s) => s.on));
        expect(off.bookkeeping()).toEqual(on.bookkeeping());
        expect(off.bookkeeping()).toEqual({
          [RECORD.jm]: jm2,
          [RECORD.pm]: first.pm,
          [RECORD.rm]: first.rm,
          [STREAK]: '3',
        });
        expect(off.images()).toEqual(on.images());
        expect(off.cluster.server.requests.filter((r) => r.route === 'event').map((r) => r.method)).toEqual([]);
        expect(off.cluster.server.events.all()).toEqual([]);
        // The twin with Events on did send them (so the comparison above compares something).
        expect(on.cluster.server.requests.filter((r) => r.route === 'event').length).toBeGreaterThan(0);
        expect([
          ...on.cluster.server.unexpected,
          ...off.cluster.server.unexpected,
          ...denied.cluster.server.unexpected,
        ]).toEqual([]);
      });

      it('Events refused by RBAC: the same exit codes, summaries and final state as with Events on; one Event request per run at most, and every WARN names the missing Role rule and the off switch', () => {
        expect(steps.map((s) => s.denied)).toEqual(steps.map((s) => s.on));
        expect(denied.bookkeeping()).toEqual(on.bookkeeping());
        expect(denied.images()).toEqual(on.images());
        // The runs that had an Event to record tried once, were refused, and sent no more.
        expect(deniedRuns.map((r) => r.eventRequests)).toEqual([0, 1, 1, 1, 1]);
        const warnings = deniedRuns.flatMap((r) => r.warnings);
        expect(warnings.length).toBeGreaterThanOrEqual(4);
        for (const line of warnings) {
          expect(line).toContain('Forbidden');
          expect(line).toContain('apiGroups ["events.k8s.io"], resources ["events"], verbs ["create", "patch"]');
          expect(line).toContain('IMAGE_REFRESH_EVENTS=0');
        }
        expect(denied.cluster.server.events.all()).toEqual([]);
      });
    });

    describe('REGISTRY_BUDGET_FLOOR (default 10; the registry answers ratelimit-remaining through the budget proxy)', () => {
      let stage: Stage;
      let first: Builds;
      let jm2 = '';
      /** Manifest answers the proxy stamped during a run. */
      const stampedDuring = async (run: () => Promise<StageRun>): Promise<[StageRun, string[]]> => {
        const from = world.budget.stamped.length;
        const result = await run();
        return [result, world.budget.stamped.slice(from)];
      };

      beforeAll(async () => {
        stage = await newStage();
        first = await world.pushAll();
      });
      afterAll(async () => {
        world?.budget.setRemaining(undefined);
        await stage?.close();
      });

      it(
        'first install with ratelimit-remaining 5: the first observations are recorded anyway (recording pulls nothing), exit 0',
        async () => {
          world.budget.setRemaining(5);
          const [run, stamped] = await stampedDuring(() => stage.tick());
          expect(stamped.sort()).toEqual([`HEAD ${JM} 5`, `HEAD ${PM} 5`, `HEAD ${RM} 5`]);
          // Once per tick, though each of the three answers reported it.
          expect(linesWith(run.stderr, 'registry budget: ratelimit-remaining 5 of 100 per 21600 s')).toHaveLength(1);
          expect(run.exitCode).toBe(0);
          expect(linesWith(run.stderr, 'registry pull budget is low')).toEqual([]);
          expect(stage.bookkeeping()).toEqual({ [RECORD.jm]: first.jm, [RECORD.pm]: first.pm, [RECORD.rm]: first.rm });
        },
        STORY_MS,
      );

      it(
        'a new jobs-manager build while ratelimit-remaining 5 < 10: WARN registry pull budget is low, nothing re-imaged, the changed digest not recorded, exit 0 — a first observation still is',
        async () => {
          jm2 = await world.push(JM);
          // A human removed pods-monitor's record: this tick observes it afresh.
          kubectlAnnotate(stage.cluster, RECORD.pm, null);
          const templates = stage.templates();
          const run = await stage.tick();
          expect(run.exitCode).toBe(0);
          expect(theLine(run.stderr, 'digest changed')).toContain(`${JM}: digest changed (${first.jm} -> ${jm2})`);
          const low = theLine(run.stderr, 'registry pull budget is low');
          expect(low).toMatch(
            /^\[image-refresh\] WARN: registry pull budget is low \(ratelimit-remaining 5 < REGISTRY_BUDGET_FLOOR=10\): not starting a re-image this tick/,
          );
          expect(linesWith(run.stderr, 'set image')).toEqual([]);
          expect(run.stderr.at(-1)).toBe(
            '[image-refresh] summary: outcome=complete exit=0 findings=0 writes=1 (recordDigests) re-images=0 unresolved=0',
          );
          // The one write records pods-monitor's first observation and nothing else.
          expect(patchesOf(run)).toEqual([
            { target: 'Deployment/stg-jobs-manager', body: { metadata: { annotations: { [RECORD.pm]: first.pm } } } },
          ]);
          expect(stage.bookkeeping()).toEqual({ [RECORD.jm]: first.jm, [RECORD.pm]: first.pm, [RECORD.rm]: first.rm });
          expect(stage.images()).toEqual(ON_TAG);
          expect(stage.templates()).toEqual(templates);
          const event = stage.cluster.server.events.all().find((e) => e.reason === 'RefreshRegistryBudgetLow');
          expect(event).toMatchObject({ type: 'Warning', message: withoutPrefix(low) });
          expect(event?.series).toBeUndefined();
        },
        STORY_MS,
      );

      it(
        'ratelimit-remaining back at 10 (the floor is not below it): the next tick re-images and records the new digest',
        async () => {
          world.budget.setRemaining(10);
          const run = await stage.tick();
          expect(run.exitCode).toBe(0);
          expect(linesWith(run.stderr, 'registry pull budget is low')).toEqual([]);
          expect(run.stderr.at(-1)).toBe(REIMAGE_SUMMARY);
          expect(stage.bookkeeping()).toEqual({ [RECORD.jm]: jm2, [RECORD.pm]: first.pm, [RECORD.rm]: first.rm });
          expect(stage.images()['stg-jobs-manager']?.api).toBe(pinned(JM, jm2));
        },
        STORY_MS,
      );

      it(
        'REGISTRY_BUDGET_FLOOR=0 with ratelimit-remaining 3: a new build is re-imaged (only a 429 would hold it back)',
        async () => {
          const jm3 = await world.push(JM);
          world.budget.setRemaining(3);
          const [run, stamped] = await stampedDuring(() => stage.tick({ REGISTRY_BUDGET_FLOOR: '0' }));
          expect(stamped).toContain(`HEAD ${JM} 3`);
          expect(run.exitCode).toBe(0);
          expect(linesWith(run.stderr, 'registry pull budget is low')).toEqual([]);
          expect(run.stderr.at(-1)).toBe(REIMAGE_SUMMARY);
          expect(stage.bookkeeping()).toEqual({ [RECORD.jm]: jm3, [RECORD.pm]: first.pm, [RECORD.rm]: first.rm });
          expect(stage.images()['stg-requests-proxy']).toEqual({ proxy: pinned(JM, jm3) });
          expect(stage.cluster.server.unexpected).toEqual([]);
        },
        STORY_MS,
      );
    });
  },
);
