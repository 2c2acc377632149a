import { describe, expect, it } from 'vitest';
import { controlPlaneMissing } from '../../../k8s-adapter/test/support/real-cluster/admin.js';
import { ATTEMPT, JM, RECORD } from '../e2e/support/chart-facts.js';
import { theLine } from '../e2e/support/run-bundle.js';
import { describeOnStoryRegistry } from '../e2e/support/story-registry.js';
import { startRealStage } from './support/real-stage.js';

// The bound and fail-closed stories on the real control plane: a progress
// deadline the real Deployment controller enforces, and the faults a real
// apiserver cannot be told to make — a hang, a dropped connection, a 500 on
// one request — made by the API proxy in front of it (api-proxy.ts).

const STORY_MS = 90_000;
const JOBS_MANAGER = 'stg-jobs-manager';
const missing = controlPlaneMissing();

describe.skipIf(missing !== undefined)(
  `on a real control plane${missing === undefined ? '' : ` (skipped: ${missing})`}`,
  () => {
    describeOnStoryRegistry(import.meta.url, 'bounds and faults of a tick on the bundled CLI', (world) => {
      it(
        "a never-ready build under progressDeadlineSeconds=2: the controller's ProgressDeadlineExceeded fails the tick long before ROLLOUT_TIMEOUT=60s",
        async () => {
          const stage = await startRealStage(world.endpoint, { progressDeadlineSeconds: 2 });
          try {
            const first = await world.pushAll();
            expect((await stage.tick()).exitCode).toBe(0);
            await world.pushNeverReady(JM);
            const run = await stage.tick({ ROLLOUT_TIMEOUT: '60s' });
            expect(run.exitCode).toBe(1);
            expect(theLine(run.stderr, 'exceeded its progress deadline')).toContain(
              `RolloutFailed: deployment "${JOBS_MANAGER}" exceeded its progress deadline`,
            );
            expect(run.elapsedMs).toBeLessThan(30_000);
            expect(await stage.bookkeeping()).toMatchObject({ [ATTEMPT]: '1', [RECORD.jm]: first.jm });
          } finally {
            await stage.close();
          }
        },
        STORY_MS,
      );

      it(
        'the settled guard GET hangs: exit 1 at API_TIMEOUT=2s naming the Timeout, not a benign skip, and nothing written but its Event',
        async () => {
          const stage = await startRealStage(world.endpoint);
          try {
            await world.pushAll();
            stage.release.proxy.inject({ route: 'get', name: JOBS_MANAGER }, { kind: 'hang' });
            const run = await stage.tick({ API_TIMEOUT: '2s' });
            expect(run.exitCode).toBe(1);
            expect(theLine(run.stderr, 'not a benign skip')).toContain('Timeout');
            expect(run.elapsedMs).toBeLessThan(2_000 + 4_000);
            // Nothing written but the finding's own Event (RefreshDeploymentUnreadable), which the apiserver took.
            expect(run.api.filter((r) => r.method !== 'GET').map((r) => `${r.method} ${r.route} ${r.status}`)).toEqual([
              'POST event 201',
            ]);
            expect(await stage.bookkeeping()).toEqual({});
          } finally {
            await stage.close();
          }
        },
        STORY_MS,
      );

      it(
        "a proxy's plain-text 500 on the record write, then a dropped connection on it: exit 1 each time with the cause, nothing recorded, and the next clean tick records",
        async () => {
          const stage = await startRealStage(world.endpoint);
          try {
            const first = await world.pushAll();
            const record = { route: 'patch', name: JOBS_MANAGER, bodyIncludes: RECORD.jm } as const;
            stage.release.proxy.inject(record, {
              kind: 'raw',
              code: 500,
              contentType: 'text/plain',
              body: 'upstream connect error or disconnect/reset before headers',
            });
            const refused = await stage.tick();
            expect(refused.exitCode).toBe(1);
            expect(theLine(refused.stderr, 'could not record the new digests')).toContain('upstream connect error');
            stage.release.proxy.inject(record, { kind: 'reset' });
            const dropped = await stage.tick();
            expect(dropped.exitCode).toBe(1);
            expect(theLine(dropped.stderr, 'could not record the new digests')).toContain('Transport');
            expect(await stage.bookkeeping()).toEqual({});
            expect((await stage.tick()).exitCode).toBe(0);
            expect(await stage.bookkeeping()).toMatchObject({ [RECORD.jm]: first.jm });
          } finally {
            await stage.close();
          }
        },
        STORY_MS,
      );
    });
  },
);
