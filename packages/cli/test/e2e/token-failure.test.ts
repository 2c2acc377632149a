import { afterEach, beforeAll, expect, it } from 'vitest';
import { JM, PM, RECORD, RESOLVE_FAILURE_STREAK, RM } from './support/chart-facts.js';
import { type Stage, startStage } from './support/cluster-stage.js';
import { linesWith, theLine } from './support/run-bundle.js';
import { type Builds, describeOnStoryRegistry } from './support/story-registry.js';

// The script's words for a failed token request: `WARN: could not fetch auth
// token for docker.io/<repo>` (image-refresh.sh's get_latest_digest), which
// operators grep for. Ours says them in the one RESOLVE_FAILED line of that
// image, with the cause in the same line, and the image is skipped alone
// (docs/behaviour.md §3.3, I15). Told to what ships: the bundle against the real
// docker-registry with token auth and its token server, which answers 503 for
// the repositories a case names.

const CASE_MS = 40_000;
const phraseFor = (repo: string) => `could not fetch auth token for docker.io/${repo}`;

describeOnStoryRegistry(
  import.meta.url,
  'a failed token request says "could not fetch auth token for docker.io/<repo>", with its cause',
  (world) => {
    let first: Builds;
    let stage: Stage | undefined;

    beforeAll(async () => {
      first = await world.pushAll();
    });
    afterEach(async () => {
      world.registry.tokens.behaviour = 'grant';
      world.registry.tokens.healAll();
      world.registry.proxy.disarm(PM);
      await stage?.close();
      stage = undefined;
    });
    const tick = async () => {
      stage = await startStage(world.endpoint);
      return { run: await stage.tick(), stage };
    };

    it(
      "pods-monitor's own token answers 503 (the token server refuses batches): its line says so, the others are recorded",
      async () => {
        world.registry.tokens.behaviour = 'refuse-batch';
        world.registry.tokens.failFor(PM, { kind: 'status', code: 503 });
        const { run, stage: on } = await tick();
        expect(run.exitCode).toBe(0);
        expect(theLine(run.stderr, phraseFor(PM))).toMatch(
          new RegExp(
            `^\\[image-refresh\\] WARN: could not resolve latest digest of ${PM}:stg: could not fetch auth token for docker\\.io/${PM} \\(Transport \\(HTTP 503\\): token endpoint GET http://127\\.0\\.0\\.1:\\d+/token answered HTTP 503: the token service is unavailable \\(injected 503\\)\\); skipping this image this tick, the others go on$`,
          ),
        );
        expect(linesWith(run.stderr, 'could not fetch auth token')).toHaveLength(1);
        expect(on.bookkeeping()).toEqual({
          [RECORD.jm]: first.jm,
          [RECORD.rm]: first.rm,
          [RESOLVE_FAILURE_STREAK]: '1',
        });
      },
      CASE_MS,
    );

    it(
      'the one batched token request answers 503: every image says it, naming its own repository, and none is recorded',
      async () => {
        world.registry.tokens.failFor(PM, { kind: 'status', code: 503 });
        const { run, stage: on } = await tick();
        expect(run.exitCode).toBe(0);
        for (const repo of [JM, PM, RM]) {
          expect(theLine(run.stderr, phraseFor(repo))).toContain(`could not resolve latest digest of ${repo}:stg: `);
        }
        // Nothing recorded; the registry's silence counted (docs/behaviour.md §3.3, I46).
        expect(on.bookkeeping()).toEqual({ [RESOLVE_FAILURE_STREAK]: '1' });
      },
      CASE_MS,
    );

    it(
      'a manifest HEAD that fails (429) is not a token failure: its line does not say so',
      async () => {
        world.registry.proxy.arm(PM, 'RateLimited');
        const { run } = await tick();
        expect(theLine(run.stderr, `could not resolve latest digest of ${PM}:stg`)).toContain('(RateLimited: ');
        expect(linesWith(run.stderr, 'could not fetch auth token')).toEqual([]);
      },
      CASE_MS,
    );
  },
);
