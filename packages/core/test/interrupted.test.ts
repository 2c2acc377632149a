import * as TE from 'fp-ts/lib/TaskEither.js';
import { describe, expect, it } from 'vitest';
import { topologyFingerprint } from '../src/domain/topology-fingerprint.js';
import { interruptedBy } from '../src/machine/interrupted.js';
import { runTick, type TickPorts } from '../src/run-tick.js';
import { SimWorld, simConfig, simDigest, simPorts } from '../src/sim/index.js';
import { ANNOTATION } from './support/chart.js';
import { JM } from './support/edge.js';

// docs/behaviour.md §3, Signals: a tick whose signal aborted starts no further
// port call and ends `interrupted`, exit 143 (SIGTERM) or 130 (SIGINT) — I18's
// extension: exit 130/143 iff the tick was interrupted — with one line saying
// where it was and what its bookkeeping holds. A read or wait cut short by the
// abort is not fed to the machine (no "rollout failed"); a write that landed
// is.

const drifting = () => {
  const config = simConfig();
  const world = new SimWorld(config);
  world.annotations = {
    'tracebloc.io/last-refreshed-jobs-manager-digest': simDigest(`${JM}#1`),
    // A topology this edge found true before: no ownership read interleaves (§3.4c).
    [config.topology.keys.topologyFingerprint]: topologyFingerprint(config.topology),
  };
  world.publish(JM, simDigest(`${JM}#2`));
  return { config, world };
};

/** The sim's ports, with the signal aborted by `signal` once `op` is called; the op then answers `answer`. */
const abortingAt = (
  ports: TickPorts,
  op: keyof TickPorts['cluster'],
  controller: AbortController,
  signal: 'SIGTERM' | 'SIGINT',
  answer: 'cut off' | 'as the world says',
): TickPorts => ({
  ...ports,
  cluster: {
    ...ports.cluster,
    [op]: (...args: never[]) => {
      controller.abort(interruptedBy(signal));
      const real = (ports.cluster[op] as (...a: never[]) => TE.TaskEither<unknown, unknown>)(...args);
      return answer === 'cut off' ? TE.left({ _tag: 'Transport', message: 'aborted' }) : real;
    },
  },
});

const ANNOTATION_RECORD_JM = 'tracebloc.io/last-refreshed-jobs-manager-digest';

/** The sim's ports, with SIGTERM arriving while the first bookkeeping patch that changes `key` is in flight; it lands. */
const abortingAtPatch = (ports: TickPorts, key: string, controller: AbortController): TickPorts => ({
  ...ports,
  cluster: {
    ...ports.cluster,
    patchBookkeeping: (changes) => {
      if (key in changes) controller.abort(interruptedBy('SIGTERM'));
      return ports.cluster.patchBookkeeping(changes);
    },
  },
});

describe('an interrupted tick', () => {
  it('SIGTERM during the rollout wait: exit 143, no call after it, the attempt stays, no finding', async () => {
    const { config, world } = drifting();
    const controller = new AbortController();
    const ports = abortingAt(simPorts(world), 'waitForRollout', controller, 'SIGTERM', 'cut off');
    const outcome = await runTick(config, ports, { signal: controller.signal });
    expect(outcome.result).toBe('interrupted');
    expect(outcome.exitCode).toBe(143);
    expect(outcome.findings).toEqual([]);
    expect(outcome.events.at(-1)).toEqual({
      level: 'warn',
      code: 'INTERRUPTED',
      message: `interrupted by SIGTERM while waiting for deployment/${config.topology.gate.name}: refresh-attempt=1 stays, digests not recorded`,
    });
    expect(outcome.events.some((e) => e.code === 'ROLLOUT_FAILED')).toBe(false);
    // Nothing started after the wait but the RefreshInterrupted Event.
    expect(world.calls.filter((c) => c.op !== 'recordEvent').at(-1)?.op).toBe('waitForRollout');
    expect(world.calls.filter((c) => c.op === 'recordEvent').map((c) => c.detail)).toEqual([
      expect.stringContaining('RefreshInterrupted'),
    ]);
    expect(outcome.writes.map((w) => w.kind)).toEqual(['writeRefreshAttempt']);
  });

  it('SIGINT while the attempt write is in flight: the write that landed is kept, exit 130, no re-image started', async () => {
    const { config, world } = drifting();
    const controller = new AbortController();
    const ports = abortingAt(simPorts(world), 'patchBookkeeping', controller, 'SIGINT', 'as the world says');
    const outcome = await runTick(config, ports, { signal: controller.signal });
    expect(outcome.exitCode).toBe(130);
    expect(outcome.events.at(-1)?.message).toBe(
      `interrupted by SIGINT before set image deployment/${config.topology.gate.name}: refresh-attempt=1 stays, digests not recorded`,
    );
    expect(world.calls.some((c) => c.op === 'setImages')).toBe(false);
    expect(world.annotations[ANNOTATION.refreshAttempt]).toBe('1');
  });

  it('SIGTERM while the record write is in flight, and it lands: exit 143, the line says the digests were recorded', async () => {
    const { config, world } = drifting();
    const controller = new AbortController();
    const ports = abortingAtPatch(simPorts(world), ANNOTATION_RECORD_JM, controller);
    const outcome = await runTick(config, ports, { signal: controller.signal });
    expect([outcome.result, outcome.exitCode]).toEqual(['interrupted', 143]);
    expect(outcome.events.at(-1)?.message).toBe(
      'interrupted by SIGTERM after recording the digests: refresh-attempt cleared, digests recorded',
    );
    expect(world.annotations[ANNOTATION_RECORD_JM]).toBe(simDigest(`${JM}#2`));
  });

  it('SIGTERM while a settled tick clears its streak: the resolve never starts, and refresh-attempt, not yet read, is "unchanged" (not a guessed 0)', async () => {
    const { config, world } = drifting();
    world.annotations[ANNOTATION.skipStreak] = '2';
    world.annotations[ANNOTATION.refreshAttempt] = '2';
    const controller = new AbortController();
    const ports = abortingAtPatch(simPorts(world), ANNOTATION.skipStreak, controller);
    const outcome = await runTick(config, ports, { signal: controller.signal });
    expect(outcome.exitCode).toBe(143);
    expect(outcome.events.at(-1)?.message).toBe(
      'interrupted by SIGTERM before resolving digests from the registry: refresh-attempt unchanged, digests not recorded',
    );
    expect(world.calls.some((c) => c.op === 'resolveDigest')).toBe(false);
    expect(world.annotations[ANNOTATION.refreshAttempt]).toBe('2');
  });

  it('without a signal, the same world completes (the control)', async () => {
    const { config, world } = drifting();
    const outcome = await runTick(config, simPorts(world));
    expect([outcome.result, outcome.exitCode]).toEqual(['complete', 0]);
  });
});
