import * as E from 'fp-ts/lib/Either.js';
import { describe, expect, it } from 'vitest';
import { parseMaintenanceWindows } from '../src/config/maintenance-window-grammar.js';
import { parseTickConfig } from '../src/config/parse-config.js';
import type { TickConfig } from '../src/config/tick-config.js';
import type { Digest } from '../src/domain/digest.js';
import { containersToJudge } from '../src/domain/ownership.js';
import { EMPTY_PLAN, type RefreshPlan } from '../src/domain/plan.js';
import { judgeWindowRoom } from '../src/domain/window-room.js';
import { simConfig } from '../src/sim/index.js';
import { aSteadyEdge } from './support/edge.js';

// What a plan stakes and waits for, at the edges of the topology and the
// clock: containers named alike in two workloads (docs/behaviour.md §3.4c),
// a window open all week at the end of its look-ahead (§3.4d), and the live
// pass's own read of the gate.

const D = `sha256:${'1'.repeat(64)}` as Digest;

/** Two workloads whose containers share the name `app`, each running its own image. */
const twinConfig = (): TickConfig => {
  const parsed = parseTickConfig(
    { IMAGE_TAG: 'stg' },
    {
      annotationPrefix: 'shop.example.com',
      gate: 'front',
      images: [
        { name: 'front', repository: 'shop/front' },
        { name: 'back', repository: 'shop/back' },
      ],
      workloads: [
        { id: 'front', kind: 'Deployment', namespace: 'shop', name: 'front', containers: { app: 'front' } },
        { id: 'back', kind: 'Deployment', namespace: 'shop', name: 'back', containers: { app: 'back' } },
      ],
    },
  );
  if (E.isLeft(parsed)) throw new Error(JSON.stringify(parsed.left));
  return parsed.right;
};

describe('the containers a plan stakes, where two workloads name a container alike', () => {
  const config = twinConfig();
  const names = (plan: RefreshPlan) => containersToJudge(config, plan).map((m) => `${m.workload}/${m.container}`);
  const front = config.topology.workloads.find((w) => w.id === 'front');
  if (front === undefined) throw new Error('no front workload');

  it("a re-image of one workload's container stakes that container only", () => {
    const plan: RefreshPlan = {
      ...EMPTY_PLAN,
      changes: [{ workload: front, images: [{ container: 'app', image: `docker.io/shop/front@${D}` }] }],
    };
    expect(names(plan)).toEqual(['front/app']);
  });

  it("two first observations stake each workload's container, both", () => {
    expect(names({ ...EMPTY_PLAN, firstObservations: { front: D, back: D } })).toEqual(['front/app', 'back/app']);
  });
});

describe('a window open all week, at the end of the look-ahead', () => {
  const ALWAYS = parseMaintenanceWindows('Mon-Sun 00:00-24:00 Europe/Berlin');
  const windows = 'windows' in ALWAYS ? ALWAYS.windows : [];
  const KEY = 'tracebloc.io/rollout-seconds-jobs-manager';

  it('a plan that needs more than is left of the stretch waits for it to end, a known time, not for a window that never opens', () => {
    // 23:30 on the day the clocks go back (a 25-hour day): what is left of the
    // look-ahead's stretch is half an hour shorter than its longest stretch.
    const nowMs = Date.UTC(2026, 9, 25, 22, 30);
    const closesMs = Date.UTC(2026, 10, 9, 23);
    const judgement = judgeWindowRoom(
      simConfig({}),
      { windows, marginMs: 0, stageOutside: false },
      nowMs,
      ['jobs-manager'],
      { [KEY]: '1298700' },
    );
    expect(judgement).toEqual({
      _tag: 'NoRoom',
      nowMs,
      needsMs: 1_298_700_000,
      leftMs: closesMs - nowMs,
      opensMs: closesMs,
    });
  });
});

describe('RECONCILE_LIVE: the live pass reads the gate first, whatever it follows', () => {
  it('with every image of the gate pinned, the gate is still read, and its failed read is the one warned about', async () => {
    const edge = await aSteadyEdge({ RECONCILE_LIVE: '1', JOBS_MANAGER_PINNED: '1', PODS_MONITOR_PINNED: '1' });
    edge.world.armClusterFault({ op: 'observeWorkload' }, 'Transport');
    const outcome = await edge.tick();
    expect(outcome.result).toBe('complete');
    expect(edge.calls().filter((c) => c.startsWith('observeWorkload'))).toEqual([
      'observeWorkload jobs-manager',
      'observeWorkload resource-monitor',
    ]);
    expect(edge.line('LIVE_UNREADABLE')).toBe(
      'WARN: could not read deployment/stg-jobs-manager (Transport: simulated Transport on observeWorkload); it is not reconciled this tick',
    );
  });
});
