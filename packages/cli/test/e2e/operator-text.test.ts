import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUILD_TIMEOUT_MS, ensureBundle } from './support/bundle.js';
import { type Stage, startStage } from './support/cluster-stage.js';
import { linesWith, runBundle } from './support/run-bundle.js';
import { startTinyRegistry, type TinyRegistry } from './support/tiny-registry.js';

// Text an operator reads, on the bundle: the registry budget said
// once per tick, not once per image; in --json, no cluster at all is not
// level info.

let registry: TinyRegistry;
let stage: Stage;
let home = '';

beforeAll(async () => {
  await ensureBundle();
  registry = await startTinyRegistry();
  stage = await startStage({ url: registry.url, seen: registry.seen });
  home = mkdtempSync(join(tmpdir(), 'image-refresh-text-home-'));
}, BUILD_TIMEOUT_MS);

afterAll(async () => {
  await stage?.close();
  await registry?.close();
  rmSync(home, { recursive: true, force: true });
});

describe('what the tick says', () => {
  it('"registry budget: …" once per tick, though all three images reported it', async () => {
    const run = await stage.tick();
    expect(registry.seen.filter((r) => r.method === 'HEAD').length).toBeGreaterThanOrEqual(3);
    expect(linesWith(run.stderr, 'registry budget:')).toEqual([
      expect.stringMatching(/^\[image-refresh\] {3}registry budget: ratelimit-remaining 90 of 100 /),
    ]);
  });

  it('a KUBECONFIG naming a file that does not exist is a configuration error: exit 2, named, before any call', async () => {
    const missing = join(home, 'no-such-kubeconfig');
    const run = await runBundle(['tick', '--json'], {
      HOME: home,
      RELEASE_NAME: 'stg',
      RELEASE_NAMESPACE: 'tracebloc',
      IMAGE_TAG: 'stg',
      KUBECONFIG: missing,
    });
    expect(run.exitCode).toBe(2);
    const events = run.stdout.map((l) => JSON.parse(l) as { level: string; code: string; message: string });
    expect(events.map((e) => e.code)).toEqual(['CONFIG_INVALID', 'SUMMARY']);
    expect(events[0]?.message).toBe(
      `ERROR: configuration: KUBECONFIG=${JSON.stringify(missing)}: KUBECONFIG names file(s) that do not exist: ${missing}`,
    );
  });
});

describe('what simulate says', () => {
  /** The decision cell of each row, by tick (the column after jobs-manager's state). */
  const decisions = (stdout: readonly string[]): Record<string, string> =>
    Object.fromEntries(
      stdout.flatMap((line) => {
        const row =
          /^(\d+)\s{2,}.*?\s{2,}(?:settled|not settled|unreadable|not checked)\s{2,}(.*?)\s{2,}\d+\s{2,}/.exec(line);
        return row === null ? [] : [[row[1] ?? '', row[2] ?? '']];
      }),
    );

  // Rows 3 and 4 said "re-image failed:" and nothing after it: a retry tick
  // patches nothing (jobs-manager already runs the build), so the list of
  // re-images it named was empty. Red on the unfixed CLI, which printed that.
  it('flapping-readiness: every failed re-image row says which workload failed and why', async () => {
    const run = await runBundle(['simulate', '--scenario', 'flapping-readiness'], { HOME: home });
    expect(run.exitCode).toBe(0);
    const rows = decisions(run.stdout);
    expect([rows['2'], rows['3'], rows['4']]).toEqual([
      're-image failed: jobs-manager rollout timed out',
      'retry failed: jobs-manager rollout timed out',
      'retry failed: jobs-manager rollout timed out',
    ]);
    expect(run.stdout.filter((line) => /failed:\s{2,}/.test(line))).toEqual([]);
  });
});
