import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { neverReadyDigest } from '../../../k8s-adapter/test/support/never-ready-build.js';
import { controlPlaneMissing, eventually } from '../../../k8s-adapter/test/support/real-cluster/admin.js';
import { ATTEMPT, FLAP, JM, PM, pinned, RECORD, RM, STEADY_SUMMARY, STREAK } from '../e2e/support/chart-facts.js';
import { linesWith, theLine } from '../e2e/support/run-bundle.js';
import { type Builds, describeOnStoryRegistry } from '../e2e/support/story-registry.js';
import { humanSetsImage, REAL_BOUNDS, type RealStage, requestsOf, startRealStage } from './support/real-stage.js';

// The story an edge lives through, told to what ships and to a real control
// plane: the bundled CLI, a process per tick, as the shipped ServiceAccount
// (a TokenRequest token, the deploy/ Roles and nothing more), against
// kube-apiserver whose Deployment and DaemonSet controllers roll out every
// set image onto kwok's two nodes, and a real docker-registry with token
// auth. One release, chapter after chapter: first install → a steady tick →
// all three images drift and roll out (the pods run them) → a human's rollout
// that never finishes: skip, FROZEN, settled again → a build that is never
// Ready: two failed re-images, an operator undoing each, then the flap
// lockout → rearm → ON_ROLLOUT_FAILURE=revert rolls it back and quarantines
// it → every Event the ticks recorded, as `kubectl describe` shows them.
// Assertions: exit codes, what the apiserver holds and what the pods run,
// the requests it received (through the API proxy), and the one line that
// matters.

const CHAPTER_MS = 90_000;
const JOBS_MANAGER = 'stg-jobs-manager';
const REQUESTS_PROXY = 'stg-requests-proxy';
const RESOURCE_MONITOR = 'stg-resource-monitor';
const QUARANTINE_JM = 'tracebloc.io/quarantined-jobs-manager-digest';
const ON_TAG = {
  [JOBS_MANAGER]: {
    api: 'docker.io/tracebloc/jobs-manager:stg',
    'pods-monitor-container': 'docker.io/tracebloc/pods-monitor:stg',
  },
  [REQUESTS_PROXY]: { proxy: 'docker.io/tracebloc/jobs-manager:stg' },
  [RESOURCE_MONITOR]: { 'tracebloc-resource-monitor': 'docker.io/tracebloc/resource-monitor:stg' },
};

const missing = controlPlaneMissing();

describe.skipIf(missing !== undefined)(
  `on a real control plane${missing === undefined ? '' : ` (skipped: ${missing})`}`,
  () => {
    describeOnStoryRegistry(
      import.meta.url,
      'the bundled CLI, tick after tick, as the shipped ServiceAccount',
      (world) => {
        let stage: RealStage;
        let first: Builds;
        let second: Builds;
        let neverReady = '';
        /** Every run of the story: each is checked for an Event the apiserver refused. */
        const runs: { readonly stderr: readonly string[] }[] = [];
        const tick = async (overrides: Readonly<Record<string, string>> = {}) => {
          const run = await stage.tick(overrides);
          runs.push(run);
          return run;
        };

        beforeAll(async () => {
          stage = await startRealStage(world.endpoint);
          first = await world.pushAll();
        }, CHAPTER_MS);
        afterAll(async () => {
          await stage?.close();
        });

        it('first install: records the three digests the tag points at and rolls nothing', async () => {
          const run = await tick();
          expect(run.exitCode).toBe(0);
          expect(linesWith(run.stderr, 'first observation; recording without re-imaging')).toHaveLength(3);
          expect(run.stderr.at(-1)).toBe(
            '[image-refresh] summary: outcome=complete exit=0 findings=0 writes=2 (recordTopologyFingerprint, recordDigests) re-images=0 unresolved=0',
          );
          expect(await stage.bookkeeping()).toEqual({
            [RECORD.jm]: first.jm,
            [RECORD.pm]: first.pm,
            [RECORD.rm]: first.rm,
          });
          expect(await stage.images()).toEqual(ON_TAG);
        });

        it('a steady tick costs exactly one API request: the GET of the jobs-manager Deployment', async () => {
          const run = await tick();
          expect(run.exitCode).toBe(0);
          expect(run.stderr.at(-1)).toBe(STEADY_SUMMARY);
          expect(requestsOf(run)).toEqual([`GET Deployment/${JOBS_MANAGER}`]);
        });

        it(
          'all three images drift: jobs-manager in one patch of both containers, then requests-proxy, then the DaemonSet; the real controllers roll every pod onto them',
          async () => {
            second = await world.pushAll();
            const run = await tick();
            expect(run.exitCode).toBe(0);
            const jm = { api: pinned(JM, second.jm), 'pods-monitor-container': pinned(PM, second.pm) };
            const patches = run.api.filter((r) => r.route === 'patch' && r.body.includes('"containers"'));
            expect(patches.map((p) => [`${p.kind}/${p.name}`, JSON.parse(p.body)])).toEqual([
              [
                `Deployment/${JOBS_MANAGER}`,
                {
                  spec: {
                    template: {
                      spec: {
                        containers: [
                          { name: 'api', image: jm.api },
                          { name: 'pods-monitor-container', image: jm['pods-monitor-container'] },
                        ],
                      },
                    },
                  },
                },
              ],
              [
                `Deployment/${REQUESTS_PROXY}`,
                { spec: { template: { spec: { containers: [{ name: 'proxy', image: jm.api }] } } } },
              ],
              [
                `DaemonSet/${RESOURCE_MONITOR}`,
                {
                  spec: {
                    template: {
                      spec: { containers: [{ name: 'tracebloc-resource-monitor', image: pinned(RM, second.rm) }] },
                    },
                  },
                },
              ],
            ]);
            expect(theLine(run.stderr, 'deployment/stg-jobs-manager rollout complete')).toContain('rollout complete');
            expect(await stage.bookkeeping()).toEqual({
              [RECORD.jm]: second.jm,
              [RECORD.pm]: second.pm,
              [RECORD.rm]: second.rm,
            });
            // What the controllers made of it: the pods themselves run the new builds, one per node for the DaemonSet.
            await eventually('every pod on the new builds', async () => {
              const pods = {
                jm: Object.values(await stage.podImages(JOBS_MANAGER)),
                rp: Object.values(await stage.podImages(REQUESTS_PROXY)),
                rm: Object.values(await stage.podImages(RESOURCE_MONITOR)),
              };
              const on =
                JSON.stringify(pods.jm) === JSON.stringify([jm]) &&
                JSON.stringify(pods.rp) === JSON.stringify([{ proxy: jm.api }]) &&
                pods.rm.length === 2 &&
                pods.rm.every((p) => p['tracebloc-resource-monitor'] === pinned(RM, second.rm));
              return on ? true : undefined;
            });
          },
          CHAPTER_MS,
        );

        it(
          'a rollout a human started that never finishes: skip 1/2 (exit 0), then IMAGE REFRESH IS FROZEN (exit 1); undone, it is settled again and the streak goes',
          async () => {
            await humanSetsImage(stage, JOBS_MANAGER, 'api', pinned(JM, neverReadyDigest()));
            await eventually('the unready pod beside the old one', async () => {
              const status = (await stage.release.jobsManager()).status;
              return status?.updatedReplicas === 1 && status.replicas === 2 ? true : undefined;
            });
            const skip = await tick({ MAX_SKIP_TICKS: '2' });
            expect(skip.exitCode).toBe(0);
            expect(theLine(skip.stderr, 'skipping this refresh tick')).toContain(
              `skipping this refresh tick 1/2; will retry when settled. Status: Waiting for deployment "${JOBS_MANAGER}" rollout to finish: 1 old replicas are pending termination...`,
            );
            expect((await stage.bookkeeping())[STREAK]).toBe('1');
            const frozen = await tick({ MAX_SKIP_TICKS: '2' });
            expect(frozen.exitCode).toBe(1);
            expect(theLine(frozen.stderr, 'IMAGE REFRESH IS FROZEN')).toContain(
              `has been unsettled for 2 consecutive ticks (>= MAX_SKIP_TICKS=2)`,
            );
            expect(frozen.api.filter((r) => r.route === 'patch' && r.body.includes('"containers"'))).toEqual([]);
            await humanSetsImage(stage, JOBS_MANAGER, 'api', pinned(JM, second.jm));
            await stage.release.settled();
            const settled = await tick({ MAX_SKIP_TICKS: '2' });
            expect(settled.exitCode).toBe(0);
            expect(theLine(settled.stderr, 'settled again')).toContain('settled again after 2 skipped tick(s)');
            expect(await stage.bookkeeping()).not.toHaveProperty(STREAK);
          },
          CHAPTER_MS,
        );

        it(
          'a build that is never Ready: each re-image fails at ROLLOUT_TIMEOUT (exit 1), an operator undoes it, and after MAX_REFRESH_ATTEMPTS the lockout: FLAP DETECTED, nothing set',
          async () => {
            neverReady = await world.pushNeverReady(JM);
            expect(neverReady).toMatch(/^sha256:dead/);
            for (const attempt of [1, 2]) {
              const run = await tick({ MAX_REFRESH_ATTEMPTS: '2' });
              expect(run.exitCode, `attempt ${attempt}`).toBe(1);
              expect(theLine(run.stderr, 'did not complete within ROLLOUT_TIMEOUT'), `attempt ${attempt}`).toContain(
                `ERROR: rollout of deployment/${JOBS_MANAGER} did not complete within ROLLOUT_TIMEOUT=${REAL_BOUNDS.ROLLOUT_TIMEOUT}`,
              );
              expect(await stage.bookkeeping(), `attempt ${attempt}`).toMatchObject({
                [ATTEMPT]: String(attempt),
                [RECORD.jm]: second.jm,
              });
              // The operator's `kubectl set image` back to the build that works: settled again for the next tick.
              await humanSetsImage(stage, JOBS_MANAGER, 'api', pinned(JM, second.jm));
              await stage.release.settled();
            }
            const lockout = await tick({ MAX_REFRESH_ATTEMPTS: '2' });
            expect(lockout.exitCode).toBe(0);
            expect(theLine(lockout.stderr, 'FLAP DETECTED')).toContain('MANUAL ATTENTION NEEDED');
            expect(linesWith(lockout.stderr, 'set image')).toEqual([]);
            expect(await stage.bookkeeping()).toMatchObject({ [ATTEMPT]: '2', [FLAP]: '2' });
          },
          CHAPTER_MS,
        );

        it(
          'rearm, then ON_ROLLOUT_FAILURE=revert: rolled back to the recorded digest by the real controller, the build quarantined; the next tick holds it',
          async () => {
            const rearm = await stage.run(['rearm']);
            runs.push(rearm);
            expect(rearm.exitCode).toBe(0);
            expect(await stage.bookkeeping()).not.toHaveProperty(ATTEMPT);
            const run = await tick({ ON_ROLLOUT_FAILURE: 'revert' });
            expect(run.exitCode).toBe(1);
            expect(theLine(run.stderr, 'ROLLED BACK')).toMatch(
              new RegExp(
                `^\\[image-refresh\\] ROLLED BACK deployment/${JOBS_MANAGER} from ${neverReady} to ${second.jm}: `,
              ),
            );
            expect(await stage.bookkeeping()).toMatchObject({ [RECORD.jm]: second.jm, [QUARANTINE_JM]: neverReady });
            await eventually('the pods back on the recorded build, the never-ready pod gone', async () => {
              const pods = Object.values(await stage.podImages(JOBS_MANAGER));
              return pods.length === 1 && pods[0]?.api === pinned(JM, second.jm) ? true : undefined;
            });
            const held = await tick({ ON_ROLLOUT_FAILURE: 'revert' });
            expect(held.exitCode).toBe(0);
            expect(theLine(held.stderr, 'is quarantined')).toContain(`latest=${neverReady} is quarantined`);
            expect(held.api.filter((r) => r.route === 'patch' && r.body.includes('"containers"'))).toEqual([]);
          },
          CHAPTER_MS,
        );

        it('every Event the ticks recorded was accepted by the real events.k8s.io/v1 validation and is shown by kubectl describe', () => {
          for (const run of runs) expect(linesWith(run.stderr, 'could not record the Kubernetes Event')).toEqual([]);
          const described = stage.kubectl([
            'describe',
            'deployment',
            JOBS_MANAGER,
            '-n',
            stage.release.namespaces.release,
          ]);
          const events = described.slice(described.indexOf('Events:'));
          for (const reason of [
            'RefreshSkipped',
            'RefreshFrozen',
            'RefreshReimaged',
            'RefreshRolloutFailed',
            'RefreshFlapDetected',
            'RefreshRolledBack',
            'RefreshQuarantined',
          ]) {
            expect(events, reason).toMatch(new RegExp(`\\b${reason}\\b.*image-refresh`));
          }
        });
      },
    );
  },
);
