import { createServer } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { JM, PM, RM } from './support/chart-facts.js';
import { type Stage, startStage } from './support/cluster-stage.js';
import { linesWith, theLine } from './support/run-bundle.js';
import { describeOnStoryRegistry } from './support/story-registry.js';

// A dead registry is a finding, not green forever (docs/behaviour.md §3.3,
// I46), told to what ships: the bundle against the fake API server, first with
// the real registry, then pointed at a port nothing listens on for
// MAX_RESOLVE_FAILURE_TICKS ticks, then at the registry again.

const STREAK = 'tracebloc.io/refresh-resolve-failure-streak';
const CASE_MS = 120_000;

/** A 127.0.0.1 port that was free a moment ago and now refuses connections: a registry that is down. */
const deadPort = async (): Promise<number> => {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
};

describeOnStoryRegistry(import.meta.url, 'a registry that never answers (MAX_RESOLVE_FAILURE_TICKS)', (world) => {
  let stage: Stage;
  let dead: Record<string, string>;

  beforeAll(async () => {
    await world.pushAll();
    stage = await startStage(world.endpoint);
    const port = await deadPort();
    dead = {
      IMAGE_REFRESH_REGISTRY_URL: `http://127.0.0.1:${port}`,
      IMAGE_REFRESH_AUTH_URL: `http://127.0.0.1:${port}/token`,
      REGISTRY_TIMEOUT: '1s',
      MAX_RESOLVE_FAILURE_TICKS: '3',
    };
  });
  afterAll(async () => {
    await stage?.close();
  });

  it(
    'counts each silent tick, exits 1 with REGISTRY UNREACHABLE at the ceiling, and clears once the registry answers',
    async () => {
      expect((await stage.tick()).exitCode).toBe(0);

      for (const tick of [1, 2]) {
        const run = await stage.tick(dead);
        expect(run.exitCode, `silent tick ${tick}`).toBe(0);
        expect(theLine(run.stderr, 'the registry did not answer')).toBe(
          `[image-refresh] WARN: the registry did not answer for ${JM}, ${PM}, ${RM} -- tick ${tick}/3 in a row (${STREAK}); at 3: REGISTRY UNREACHABLE, exit 1`,
        );
        expect(run.stderr.at(-1)).toMatch(/ re-images=0 unresolved=3$/);
        expect(stage.bookkeeping()[STREAK]).toBe(String(tick));
      }

      const unreachable = await stage.tick(dead);
      expect(unreachable.exitCode).toBe(1);
      expect(theLine(unreachable.stderr, 'REGISTRY UNREACHABLE for')).toMatch(
        new RegExp(
          `^\\[image-refresh\\] ERROR: REGISTRY UNREACHABLE for 3 ticks: ${JM}, ${PM}, ${RM} — (Transport|Timeout)`,
        ),
      );
      expect(unreachable.stderr.at(-1)).toMatch(/^\[image-refresh\] summary: outcome=registryUnreachable exit=1 /);
      expect(
        stage.cluster.server.events
          .all()
          .filter((e) => e.reason === 'RefreshRegistryUnreachable')
          .map((e) => e.type),
      ).toEqual(['Warning']);

      const answered = await stage.tick();
      expect(answered.exitCode).toBe(0);
      expect(linesWith(answered.stderr, 'the registry answered every image again after 3 tick(s)')).toHaveLength(1);
      expect(answered.stderr.at(-1)).toMatch(/ unresolved=0$/);
      expect(stage.bookkeeping()[STREAK]).toBeUndefined();
    },
    CASE_MS,
  );
});
