import * as E from 'fp-ts/lib/Either.js';
import * as O from 'fp-ts/lib/Option.js';
import * as TE from 'fp-ts/lib/TaskEither.js';
import { describe, expect, it, vi } from 'vitest';
import { createActor, toPromise } from 'xstate';
import { timeout } from '../src/domain/port-error.js';
import { portBounds } from '../src/machine/port-bounds.js';
import { tickActors } from '../src/machine/tick-actors.js';
import type { TickOutcome } from '../src/machine/tick-outcome.js';
import { provideTickPorts, runTick, type TickPorts } from '../src/run-tick.js';
import { platformTimers } from '../src/shell/backstop.js';
import { callPort, portCalls } from '../src/shell/port-calls.js';
import { simConfig, simDigest, simPorts } from '../src/sim/index.js';
import { anEdge, JM } from './support/edge.js';

// Defects of a port or of the wiring are failures of that one call, named in
// the tick's own lines — never a crash and never a silent pass. Each case
// states its edge; Stryker showed these paths unread (pnpm mutation).

/** The port calls of docs/behaviour.md §3, each reached by the drifting edge below. */
const SPEC_ACTORS = [
  'readGate',
  'patchBookkeeping',
  'resolveDigests',
  'setImages',
  'waitForRollout',
] as const satisfies readonly (keyof typeof tickActors)[];

const said = (outcome: TickOutcome) => outcome.events.map((e) => e.message).join('\n');

describe('an actor the machine was not given', () => {
  it.each(SPEC_ACTORS)('%s is named in the tick that needed it', async (name) => {
    const edge = anEdge();
    // The first tick records the digests; the second has drift, a streak to clear and a re-image to do.
    await edge.tick();
    edge.world.publish(JM, simDigest(`${JM}#2`));
    edge.world.setAnnotation('tracebloc.io/refresh-skip-streak', '2');
    const machine = provideTickPorts(simPorts(edge.world), edge.config).provide({
      actors: { [name]: tickActors[name] } as never,
    });
    const outcome: TickOutcome = await toPromise(createActor(machine, { input: edge.config }).start());
    expect(said(outcome)).toContain(`unexpected failure: Error: actor ${name} was not provided`);
  });
});

describe('every actor of the machine, left unprovided', () => {
  // The wiring's mistake reaches the tick's line by the actor's own name (above); each actor beyond
  // the five spec calls, too, fails rather than answers, and names itself.
  it.each(Object.keys(tickActors) as (keyof typeof tickActors)[])('%s fails naming itself', async (name) => {
    const logic = tickActors[name] as unknown as Parameters<typeof createActor>[0];
    const actor = createActor(logic, { input: {} }).start();
    await expect(toPromise(actor)).rejects.toThrow(`actor ${name} was not provided`);
  });
});

describe('a rollout wait that fails with something other than a rollout error', () => {
  it.each([
    [null, 'Transport: unexpected failure: null'],
    ['boom', 'Transport: unexpected failure: boom'],
    [{ _tag: 'RolloutFailed', message: 7 }, 'Transport: unexpected failure: [object Object]'],
    [{ _tag: 'Elsewhere', message: 'm' }, 'Transport: unexpected failure: [object Object]'],
    [timeout('no answer'), 'Timeout: no answer'],
    [{ _tag: 'RolloutTimedOut', message: '0 of 1 updated' }, 'RolloutTimedOut: 0 of 1 updated'],
    [{ _tag: 'RolloutFailed', message: 'deadline' }, 'RolloutFailed: deadline'],
  ])('%j is reported as %s', async (error, reported) => {
    const config = simConfig();
    const edge = anEdge();
    await edge.tick();
    edge.world.publish(JM, simDigest(`${JM}#2`));
    const sim = simPorts(edge.world);
    const ports: TickPorts = { ...sim, cluster: { ...sim.cluster, waitForRollout: () => TE.left(error as never) } };
    const outcome = await runTick(config, ports);
    expect(outcome.result).toBe('reimageFailed');
    expect(outcome.findings.map((f) => f.code)).toEqual(['ROLLOUT_FAILED']);
    expect(outcome.findings[0]?.message).toContain(`(${reported});`);
  });
});

describe('a registry port that misbehaves as a whole', () => {
  it('never answering ends at its bound: 3 requests of REGISTRY_TIMEOUT per repo and 1 per pass, plus the grace (I17)', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const config = simConfig();
      const edge = anEdge();
      const ports: TickPorts = {
        ...simPorts(edge.world),
        registry: { resolveDigests: () => () => new Promise(() => undefined) },
      };
      let outcome: TickOutcome | undefined;
      const ended = runTick(config, ports).then((o) => {
        outcome = o;
      });
      // (3 repos × 3 requests + the known realm's token) × 10 s + 2 s grace
      await vi.advanceTimersByTimeAsync(101_999);
      expect(outcome, 'the registry pass ended before its bound').toBeUndefined();
      await vi.advanceTimersByTimeAsync(1);
      await ended;
      expect(outcome?.events.filter((e) => e.code === 'RESOLVE_FAILED').map((e) => e.message)[0]).toContain(
        '(Timeout: asking the registry for the tags got no answer within 1m42s',
      );
    } finally {
      vi.useRealTimers();
    }
  });

  it('an answer missing for an image is a failure of that image, never a skip', async () => {
    const edge = anEdge();
    const ports: TickPorts = { ...simPorts(edge.world), registry: { resolveDigests: () => () => Promise.resolve([]) } };
    const outcome = await runTick(edge.config, ports);
    expect(outcome.events.filter((e) => e.code === 'RESOLVE_FAILED').map((e) => e.message)).toEqual(
      ['jobs-manager', 'pods-monitor', 'resource-monitor'].map(
        (image) =>
          `WARN: could not resolve latest digest of tracebloc/${image}:stg (Malformed: the registry port gave no answer for this image); skipping this image this tick, the others go on`,
      ),
    );
  });

  it('a runaway digest is quoted only up to 100 characters in the warning', async () => {
    const edge = anEdge();
    const runaway = `sha256:${'z'.repeat(300)}`;
    const ports: TickPorts = {
      ...simPorts(edge.world),
      registry: {
        resolveDigests: (requests) => () =>
          Promise.resolve(requests.map(() => E.right({ digest: runaway, rateLimitRemaining: O.none }))),
      },
    };
    const outcome = await runTick(edge.config, ports);
    expect(outcome.events.find((e) => e.code === 'RESOLVE_FAILED')?.message).toContain(
      `the registry answered ${JSON.stringify(runaway.slice(0, 100))}, which is not an OCI digest`,
    );
  });
});

describe('the backstop timers', () => {
  it('are all cleared once each call has answered: a finished tick leaves nothing to keep the pod alive', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const edge = anEdge();
      await runTick(edge.config, simPorts(edge.world));
      expect(vi.getTimerCount()).toBe(0);
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('a port call that throws as it starts, not as it is built', () => {
  it('is that call failed with the thrown error: the tick ends unreadable, naming it, and does not reject', async () => {
    const edge = anEdge();
    const sim = simPorts(edge.world);
    const ports: TickPorts = {
      ...sim,
      cluster: {
        ...sim.cluster,
        readGate: () => () => {
          throw new Error('the socket closed as the request started');
        },
      },
    };
    const outcome = await runTick(edge.config, ports);
    expect(outcome.result).toBe('deploymentUnreadable');
    expect(outcome.exitCode).toBe(1);
    expect(outcome.findings.map((e) => e.message)).toEqual([
      expect.stringContaining('Error: the socket closed as the request started'),
    ]);
  });
});

describe('a port call asked for by a name the table does not have', () => {
  it('fails with an error naming that actor, and calls nothing', async () => {
    const edge = anEdge();
    const calls = portCalls(simPorts(edge.world), portBounds(edge.config));
    const answer = await callPort(calls, platformTimers(), 'readMinds', {});
    expect(answer).toEqual(E.left(new Error('no port call behind actor readMinds')));
    expect(edge.world.calls).toEqual([]);
  });
});
