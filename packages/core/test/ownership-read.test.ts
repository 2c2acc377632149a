import * as E from 'fp-ts/lib/Either.js';
import type { TaskEither } from 'fp-ts/lib/TaskEither.js';
import { describe, expect, it, vi } from 'vitest';
import type { LiveWorkload, WorkloadRef } from '../src/domain/workloads.js';
import { driveTick, type PortAnswer } from '../src/machine/drive-tick.js';
import { portBounds } from '../src/machine/port-bounds.js';
import { runTick } from '../src/run-tick.js';
import { platformTimers } from '../src/shell/backstop.js';
import { callPort, portCalls } from '../src/shell/port-calls.js';
import { readEachWorkload } from '../src/shell/read-each-workload.js';
import { SimWorld, simConfig, simDigest, simPorts } from '../src/sim/index.js';
import { aSteadyEdge, JM, RM } from './support/edge.js';

// docs/behaviour.md §3.4c: the ownership check reads every workload it needs
// in one call, each read started at once, and fails closed on whatever that
// call leaves unanswered — each workload it could not read named in its own line.

const ref = (id: string): WorkloadRef => ({ id, kind: 'Deployment', name: id, namespace: 'shop' });

describe('the one read of the workloads the check needs', () => {
  it('starts every read before any answers: the time of one request, not one per workload', async () => {
    const started: string[] = [];
    const release: (() => void)[] = [];
    const observeWorkload =
      (workload: WorkloadRef): TaskEither<never, LiveWorkload> =>
      () => {
        started.push(workload.id);
        const live: LiveWorkload = {
          settledness: { _tag: 'Settled', message: 'ready' },
          images: { [workload.id]: workload.name },
          imageOwners: {},
        };
        return new Promise((resolve) => release.push(() => resolve(E.right(live))));
      };
    const answers = readEachWorkload({ observeWorkload } as never, [ref('web'), ref('worker')])();
    await Promise.resolve();
    expect(started).toEqual(['web', 'worker']);
    for (const r of release) r();
    const read = await answers;
    expect(
      E.isRight(read) && read.right.map((a) => (E.isRight(a) ? Object.keys(a.right.images) : a.left._tag)),
    ).toEqual([['web'], ['worker']]);
  });
});

describe('the bound of the one read', () => {
  it("is one request's, not the settle window's: a read that never answers ends the tick at API_TIMEOUT + the grace", async () => {
    const config = simConfig({ API_TIMEOUT: '20ms', SETTLE_TIMEOUT: '10s' });
    const world = new SimWorld(config);
    expect((await runTick(config, simPorts(world))).result).toBe('complete');
    world.publish(JM, simDigest(`${JM}#2`));
    const sim = simPorts(world);
    const never = () => () => new Promise<never>(() => undefined);
    const ports = {
      ...sim,
      cluster: {
        ...sim.cluster,
        observeWorkload: (workload: WorkloadRef, settleWithinMs?: number) =>
          settleWithinMs === 0 ? never() : sim.cluster.observeWorkload(workload, settleWithinMs),
      },
    };
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      let outcome: Awaited<ReturnType<typeof runTick>> | undefined;
      const ended = runTick(config, ports).then((o) => {
        outcome = o;
      });
      // bound = api 20 ms + 2 s grace
      await vi.advanceTimersByTimeAsync(2_019);
      expect(outcome, 'the tick ended before its bound').toBeUndefined();
      await vi.advanceTimersByTimeAsync(1);
      await ended;
      expect([outcome?.result, outcome?.reimages]).toEqual(['ownershipUnchecked', []]);
      expect(outcome?.events.filter((e) => e.code === 'OWNERSHIP_UNCHECKED').map((e) => e.message)).toEqual([
        "ERROR: cannot read deployment/stg-requests-proxy in tracebloc (Timeout: reading the workloads the ownership check needs got no answer within 2.02s, the tick's own bound on it), so whether its containers run what the profile says cannot be checked; nothing is re-imaged or recorded this tick",
      ]);
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('a read that throws', () => {
  it('fails only its own workload: the others are read, and the line names it alone', async () => {
    const live: LiveWorkload = { settledness: { _tag: 'Settled', message: 'ready' }, images: {}, imageOwners: {} };
    const observeWorkload = (workload: WorkloadRef): TaskEither<never, LiveWorkload> => {
      if (workload.id === 'worker') throw new Error('the port broke');
      return () => Promise.resolve(E.right(live));
    };
    const read = await readEachWorkload({ observeWorkload } as never, [ref('web'), ref('worker')])();
    expect(read).toEqual(
      E.right([E.right(live), E.left({ _tag: 'Transport', message: 'unexpected failure: Error: the port broke' })]),
    );
  });
});

/** A steady edge with two builds published, whose ownership read answers as `answer` says. */
const ownershipReadAnswering = async (answer: PortAnswer) => {
  const edge = await aSteadyEdge();
  edge.world.publish(JM, simDigest(`${JM}#2`));
  edge.world.publish(RM, simDigest(`${RM}#2`));
  const calls = portCalls(simPorts(edge.world), portBounds(edge.config));
  const outcome = await driveTick(edge.config, (src, input) =>
    src === 'observeOwnedWorkloads'
      ? Promise.resolve(answer)
      : callPort(calls, platformTimers(), src, input).then((r) =>
          E.isRight(r) ? { ok: true, value: r.right } : { ok: false, error: r.left },
        ),
  );
  return { outcome, unchecked: outcome.events.filter((e) => e.code === 'OWNERSHIP_UNCHECKED').map((e) => e.message) };
};

describe('what the read leaves unanswered fails closed', () => {
  it('a port that answered fewer workloads than asked: each one left out is named, nothing is set', async () => {
    const { outcome, unchecked } = await ownershipReadAnswering({ ok: true, value: [] });
    expect([outcome.result, outcome.exitCode, outcome.reimages]).toEqual(['ownershipUnchecked', 1, []]);
    expect(unchecked).toEqual([
      expect.stringMatching(
        /^ERROR: cannot read deployment\/stg-requests-proxy .*\(Malformed: the cluster port gave no answer for this workload\)/,
      ),
      expect.stringMatching(
        /^ERROR: cannot read daemonset\/stg-resource-monitor .*\(Malformed: the cluster port gave no answer/,
      ),
    ]);
  });

  it('the call failing as a whole: every workload it was to read is named with the cause', async () => {
    const cause = { _tag: 'Timeout', message: 'reading the workloads got no answer' } as const;
    const { outcome, unchecked } = await ownershipReadAnswering({ ok: false, error: cause });
    expect([outcome.result, outcome.exitCode, outcome.writes]).toEqual(['ownershipUnchecked', 1, []]);
    expect(unchecked).toEqual([
      expect.stringMatching(
        /^ERROR: cannot read deployment\/stg-requests-proxy .*\(Timeout: reading the workloads got no answer\)/,
      ),
      expect.stringMatching(/^ERROR: cannot read daemonset\/stg-resource-monitor .*\(Timeout: reading the workloads/),
    ]);
  });
});
