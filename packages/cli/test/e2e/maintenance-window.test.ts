import { describe, expect, it } from 'vitest';
import { JOBS_MANAGER } from '../../../k8s-adapter/test/support/fake-api-chart.js';
import { JM, pinned, RECORD } from './support/chart-facts.js';
import { patchesOf, type Stage } from './support/cluster-stage.js';
import { theLine } from './support/run-bundle.js';
import { type TinyRegistry, tinyDigest } from './support/tiny-registry.js';
import { tinyStagePerTest } from './support/tiny-stage.js';

// Maintenance windows (docs/behaviour.md §3.4d) told to what ships: the
// bundled CLI, a child process per tick, against the fake API server and a
// tiny registry, on the process's own clock (Date.now) and the runtime's zone
// database, as in a CronJob. The windows are written around now: one that
// opens in 20 hours, for an hour; one open all week.

const CASE_MS = 60_000;
const HOUR = 3_600_000;
const DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const SECONDS = (workload: string) => `tracebloc.io/rollout-seconds-${workload}`;

/** `<day> HH:00-HH:00 UTC` of the whole hours starting `fromHours` from now, for `hours`. */
const windowAround = (fromHours: number, hours: number): { text: string; opensMs: number } => {
  const opens = new Date(Date.now() + fromHours * HOUR);
  opens.setUTCMinutes(0, 0, 0);
  const hh = (h: number) => `${String(h % 24).padStart(2, '0')}:00`;
  const start = opens.getUTCHours();
  const end = start + hours;
  return {
    text: `${DAYS[opens.getUTCDay()]} ${hh(start)}-${end === 24 ? '24:00' : hh(end)} UTC`,
    opensMs: opens.getTime(),
  };
};

let registry: TinyRegistry;
let stage: Stage;
const startTinyStage = tinyStagePerTest();

describe('maintenance windows on the bundle', () => {
  it(
    'outside every window a new build waits: exit 0, outcome=outsideWindow, the line with the next opening, nothing written',
    async () => {
      ({ registry, stage } = await startTinyStage());
      expect((await stage.tick()).exitCode).toBe(0);
      // Opens 20 hours from now, for an hour: closed now, whatever the time of day.
      const window = windowAround(20, 1);
      registry.bump();
      const held = await stage.tick({ MAINTENANCE_WINDOW: window.text });
      expect(held.exitCode).toBe(0);
      expect(held.stderr.at(-1)).toMatch(/summary: outcome=outsideWindow exit=0 findings=0 writes=0 re-images=0/);
      expect(theLine(held.stderr, 'outside the maintenance window')).toBe(
        `[image-refresh] outside the maintenance window: next opens ${new Date(window.opensMs).toISOString().replace('.000Z', 'Z')}`,
      );
      expect(patchesOf(held)).toEqual([]);
      expect(stage.images()[JOBS_MANAGER]?.api).not.toBe(pinned(JM, tinyDigest(JM, 'stg', 2)));
    },
    CASE_MS,
  );

  it(
    'inside a window with room the build rolls out, and each rollout is kept on the gate in whole seconds',
    async () => {
      ({ registry, stage } = await startTinyStage());
      expect((await stage.tick()).exitCode).toBe(0);
      // Open all week: whatever the time, the window has room (every day's windows touch into one stretch).
      const window = 'Mon-Sun 00:00-24:00 UTC';
      registry.bump();
      const build2 = tinyDigest(JM, 'stg', 2);
      const rolled = await stage.tick({ MAINTENANCE_WINDOW: window });
      expect(rolled.exitCode).toBe(0);
      expect(theLine(rolled.stderr, 'inside the maintenance window')).toMatch(
        /^\[image-refresh\] inside the maintenance window: needs ~\d+[smh]\w*, \d+[hm]\w* left$/,
      );
      expect(stage.images()[JOBS_MANAGER]?.api).toBe(pinned(JM, build2));
      const annotations = stage.bookkeeping();
      expect(annotations[RECORD.jm]).toBe(build2);
      for (const workload of ['jobs-manager', 'requests-proxy', 'resource-monitor']) {
        expect(annotations[SECONDS(workload)], workload).toMatch(/^[0-9]+$/);
      }
    },
    CASE_MS,
  );
});
