import * as E from 'fp-ts/lib/Either.js';
import type { TaskEither } from 'fp-ts/lib/TaskEither.js';
import { describe, expect, it } from 'vitest';
import type { LiveWorkload, WorkloadRef } from '../src/domain/workloads.js';
import { driveTick, type PortAnswer } from '../src/machine/drive-tick.js';
import { portBounds } from '../src/machine/port-bounds.js';
import { platformTimers } from '../src/shell/backstop.js';
import { callPort, portCalls } from '../src/shell/port-calls.js';
import { readEachWorkload } from '../src/shell/read-each-workload.js';
import { simDigest, simPorts } from '../src/sim/index.js';
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
