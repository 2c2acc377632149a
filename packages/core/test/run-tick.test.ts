import * as TE from 'fp-ts/lib/TaskEither.js';
import { describe, expect, it, vi } from 'vitest';
import type { TickOutcome } from '../src/machine/tick-outcome.js';
import type { TickPorts } from '../src/run-tick.js';
import { runTick, runTickAsActor } from '../src/run-tick.js';
import { SimWorld, simConfig, simDigest, simPorts } from '../src/sim/index.js';
import { ANNOTATION } from './support/chart.js';
import { JM, RM } from './support/edge.js';

// The runner: a plain fold over port answers (I20), bounded whatever the ports
// do (I17), and the same outcomes as running the machine as an xstate actor.

const driftingWorld = () => {
  const config = simConfig();
  const world = new SimWorld(config);
  world.annotations = {
    'tracebloc.io/last-refreshed-jobs-manager-digest': simDigest(`${JM}#1`),
    [ANNOTATION.skipStreak]: '4',
  };
  world.publish(JM, simDigest(`${JM}#2`));
  world.publish(RM, simDigest(`${RM}#7`));
  return { config, world };
};

/** A fresh simulated edge on `config` whose ports are the simulator's, with `override`'s on top. */
const simEdgeWith = (override: (sim: TickPorts) => Partial<TickPorts>, config = simConfig()) => {
  const world = new SimWorld(config);
  const sim = simPorts(world);
  const ports: TickPorts = { ...sim, ...override(sim) };
  return { config, world, ports };
};

describe('runTick', () => {
  it('is deterministic: the same port answers give the same outcome and the same calls (I20)', async () => {
    const a = driftingWorld();
    const b = driftingWorld();
    const first = await runTick(a.config, simPorts(a.world));
    const second = await runTick(b.config, simPorts(b.world));
    expect(second).toEqual(first);
    expect(b.world.calls).toEqual(a.world.calls);
  });

  it('gives the same outcome as the machine run as a started xstate actor with provided port actors', async () => {
    const a = driftingWorld();
    const b = driftingWorld();
    const driven = await runTick(a.config, simPorts(a.world));
    const asActor = await runTickAsActor(b.config, simPorts(b.world));
    expect(asActor).toEqual(driven);
    expect(b.world.calls).toEqual(a.world.calls);
    expect(driven.reimages.length).toBeGreaterThan(0);
  });

  it('ends a port call that never answers as a Timeout at its bound, not a millisecond earlier (I17)', async () => {
    // No `timers` option: runTick arms the platform's own setTimeout, the very
    // backstop a CronJob pod runs. vitest fakes that global so the test steps
    // over the 2 s grace instead of sleeping through it — a real wait cost 2 s
    // for every mutant this test covers under Stryker (pnpm mutation).
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const never = () => () => new Promise<never>(() => undefined);
      const { config, ports } = simEdgeWith(
        (sim) => ({ cluster: { ...sim.cluster, readGate: never } }),
        simConfig({ API_TIMEOUT: '20ms', SETTLE_TIMEOUT: '10ms' }),
      );
      let outcome: TickOutcome | undefined;
      const ended = runTick(config, ports).then((o) => {
        outcome = o;
      });
      // bound = settle 10 ms + api 20 ms + 2 s grace
      await vi.advanceTimersByTimeAsync(2_029);
      expect(outcome, 'the tick ended before its bound').toBeUndefined();
      await vi.advanceTimersByTimeAsync(1);
      await ended;
      expect(outcome?.result).toBe('deploymentUnreadable');
      expect(outcome?.findings.map((f) => f.message)).toEqual([
        "ERROR: cannot read deployment/stg-jobs-manager (Timeout: reading the gate got no answer within 2.03s, the tick's own bound on it) -- not a benign skip; failing the tick so it is visible",
      ]);
    } finally {
      vi.useRealTimers();
    }
  });

  it('a port that throws instead of returning Left is a failure of that call, not a crash', async () => {
    const { config, world, ports } = simEdgeWith((sim) => ({
      cluster: {
        ...sim.cluster,
        // The guard's read answers; the streak read (no settle window) throws.
        readGate: (settleWithinMs) => {
          if (settleWithinMs > 0) return sim.cluster.readGate(settleWithinMs);
          throw new Error('boom');
        },
      },
    }));
    world.setBehaviour('jobs-manager', 'neverReady');
    const outcome = await runTick(config, ports);
    expect(outcome.result).toBe('skipStreakUncountable');
    expect(outcome.findings[0]?.message).toContain('unexpected failure: Error: boom');
  });

  it('a registry port that fails as a whole leaves every image unresolved, never recorded', async () => {
    const { config, ports } = simEdgeWith(() => ({
      registry: { resolveDigests: () => () => Promise.reject(new Error('socket hang up')) },
    }));
    const outcome = await runTick(config, ports);
    expect(outcome.result).toBe('complete');
    expect(outcome.events.filter((e) => e.code === 'RESOLVE_FAILED')).toHaveLength(3);
    // Only the silence, counted (I46).
    expect(outcome.writes.map((w) => w.kind)).toEqual(['writeResolveFailureStreak']);
    expect(outcome.unresolved).toEqual(['jobs-manager', 'pods-monitor', 'resource-monitor']);
  });

  it('Left values from ports pass through with their tag and the server message', async () => {
    const { config, ports } = simEdgeWith((sim) => ({
      cluster: {
        ...sim.cluster,
        readGate: () =>
          TE.left({ _tag: 'Forbidden', status: 403, message: 'deployments.apps "stg-jobs-manager" is forbidden' }),
      },
    }));
    const outcome = await runTick(config, ports);
    expect(outcome.findings.map((f) => f.message)).toEqual([
      'ERROR: cannot read deployment/stg-jobs-manager (Forbidden (HTTP 403): deployments.apps "stg-jobs-manager" is forbidden) -- not a benign skip; failing the tick so it is visible',
    ]);
  });
});
