import { describe, expect, it } from 'vitest';
import type { Stage } from './support/cluster-stage.js';
import { startBundle } from './support/run-bundle-live.js';
import type { TinyRegistry } from './support/tiny-registry.js';
import { tinyStagePerTest } from './support/tiny-stage.js';

// Nothing in flight after the summary (docs/behaviour.md §3, Bounds): against
// an API that never answers the process lived on for seconds after its summary
// line, and an Event POST the tick had given up on still landed 3 s later.
// Every request carries the tick's signal, aborted once the summary is printed,
// and the process ends within 1 s of that line whatever the servers do.
// Mutation that reddens it: bin.ts without its exit backstop and tick.ts
// without aborting its signal (both: the process waits ~2 s on the Event's
// hanging POST).

const CASE_MS = 30_000;
const BOUNDS = { API_TIMEOUT: '1s', SETTLE_TIMEOUT: '300ms', REGISTRY_TIMEOUT: '1s', ROLLOUT_TIMEOUT: '500ms' };

let registry: TinyRegistry;
let stage: Stage;
const startTinyStage = tinyStagePerTest();

const newStage = async () => {
  ({ registry, stage } = await startTinyStage());
};

/** Runs a tick; how long the process lived after its summary line, and that line. */
const tickAfterSummary = async (env: Record<string, string>) => {
  const run = startBundle(['tick'], env);
  const { exitCode, elapsedMs } = await run.ended;
  const at = run.stderr.findIndex((line) => line.startsWith('[image-refresh] summary: '));
  if (at < 0) throw new Error(`no summary line:\n${run.stderr.join('\n')}`);
  return {
    exitCode,
    summary: run.stderr[at] ?? '',
    lastLine: run.stderr.at(-1),
    lingeredMs: elapsedMs - (run.stderrAt[at] ?? 0),
  };
};

describe('the process ends within 1 s of its summary line, whatever the servers do', () => {
  it(
    'an API server that never answers any request (API_TIMEOUT=4s: the Event takes a read and a POST, 8 s, past its own 6 s bound)',
    async () => {
      await newStage();
      stage.cluster.server.inject({}, { kind: 'hang' }, Number.POSITIVE_INFINITY);
      const run = await tickAfterSummary(stage.env({ ...BOUNDS, API_TIMEOUT: '4s' }));
      expect(run.summary).toMatch(/outcome=deploymentUnreadable exit=1 /);
      expect(run.exitCode).toBe(1);
      expect(run.lastLine).toBe(run.summary);
      expect(run.lingeredMs).toBeLessThan(1_000);
    },
    CASE_MS,
  );

  it(
    'a registry that never answers (REGISTRY_TIMEOUT=1s)',
    async () => {
      await newStage();
      registry.hang();
      const run = await tickAfterSummary(stage.env(BOUNDS));
      expect(run.summary).toMatch(/outcome=\w+ exit=\d /);
      expect(run.lingeredMs).toBeLessThan(1_000);
    },
    CASE_MS,
  );
});
