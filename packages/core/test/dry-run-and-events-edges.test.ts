import * as TE from 'fp-ts/lib/TaskEither.js';
import { describe, expect, it } from 'vitest';
import { dryRunPorts } from '../src/dry-run.js';
import { interruptedBy } from '../src/machine/interrupted.js';
import type { TickEvent } from '../src/machine/tick-event.js';
import { runTick, type TickPorts, type Timers } from '../src/run-tick.js';
import { SimWorld, simConfig, simDigest, simPorts } from '../src/sim/index.js';
import { JM, PM } from './support/edge.js';

// The two things done around the tick rather than by it: the --dry-run ports
// (the plan, said and not done) and publishing its findings as Kubernetes
// Events (I18b: an Event that cannot be written is a WARN and changes nothing
// else). Each case asserts what an operator sees: the lines, the Events the
// cluster received, the exit code.

const JM_KEY = 'tracebloc.io/last-refreshed-jobs-manager-digest';
const PM_KEY = 'tracebloc.io/last-refreshed-pods-monitor-digest';

/** A settled edge where the jobs-manager and pods-monitor tags both moved: one set image, two containers. */
const bothMoved = (env: Record<string, string> = {}) => {
  const config = simConfig(env);
  const world = new SimWorld(config);
  world.annotations = { [JM_KEY]: simDigest(`${JM}#1`), [PM_KEY]: simDigest(`${PM}#1`) };
  world.publish(JM, simDigest(`${JM}#2`));
  world.publish(PM, simDigest(`${PM}#2`));
  return { config, world };
};

const at = (repo: string, build: number) => `docker.io/${repo}@${simDigest(`${repo}#${build}`)}`;

describe('--dry-run', () => {
  it('a set image of two containers names both; each pretend set image counts as the re-image it would be', async () => {
    const { config, world } = bothMoved();
    const wouldDo: string[] = [];
    const outcome = await runTick(
      config,
      dryRunPorts(simPorts(world), config, (a) => wouldDo.push(a)),
    );
    expect(wouldDo).toContain(
      `set image deployment/stg-jobs-manager -n tracebloc api=${at(JM, 2)} pods-monitor-container=${at(PM, 2)}`,
    );
    expect(outcome.reimages.map((r) => [r.workload.id, r.rolledOut])).toEqual([
      ['jobs-manager', true],
      ['requests-proxy', true],
    ]);
    expect(world.calls.map((c) => c.op)).not.toContain('setImages');
  });

  it('an Event is said in at most 120 characters of its message, and nothing reaches the cluster', async () => {
    const { config, world } = bothMoved();
    const wouldDo: string[] = [];
    await runTick(
      config,
      dryRunPorts(simPorts(world), config, (a) => wouldDo.push(a)),
    );
    const events = wouldDo.filter((line) => line.startsWith('record the '));
    expect(events).toHaveLength(1);
    const prefix = 'record the Normal Event RefreshReimaged: ';
    expect(events[0]?.startsWith(prefix)).toBe(true);
    // The message of two moved containers is longer than 120 characters: it is cut there.
    expect(events[0]?.slice(prefix.length)).toHaveLength(120);
    expect(world.kubeEvents).toEqual([]);
  });

  it('without an Events port, a dry run says no Event either', async () => {
    const { config, world } = bothMoved();
    const { events: _none, ...withoutEvents } = simPorts(world);
    const wouldDo: string[] = [];
    const outcome = await runTick(
      config,
      dryRunPorts(withoutEvents, config, (a) => wouldDo.push(a)),
    );
    expect(outcome.result).toBe('complete');
    expect(wouldDo.filter((line) => line.startsWith('record the '))).toEqual([]);
    expect(wouldDo.filter((line) => line.startsWith('set image '))).toHaveLength(2);
  });
});

/** Timers that end a bound at the next turn of the event loop: the sim answers first, a port that never does times out. */
const promptTimers: Timers = {
  setTimeout: (callback) => setTimeout(callback, 0),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

const withEvents = (ports: TickPorts, record: NonNullable<TickPorts['events']>['record']): TickPorts => ({
  ...ports,
  events: { record },
});

describe('Kubernetes Events after the tick (I18b)', () => {
  it('an Event that fails with a port error is one WARN naming it and its cause; exit, result and writes stay', async () => {
    const { config, world } = bothMoved();
    const streamed: TickEvent[] = [];
    const plain = await runTick(config, simPorts(bothMoved().world));
    const outcome = await runTick(
      config,
      withEvents(simPorts(world), () => TE.left({ _tag: 'Forbidden', message: 'events is forbidden', status: 403 })),
      { onEvent: (e) => streamed.push(e) },
    );
    const warning = {
      level: 'warn',
      code: 'EVENT_NOT_RECORDED',
      message:
        "WARN: could not record the Kubernetes Event RefreshReimaged (Forbidden (HTTP 403): events is forbidden); the tick's outcome is unchanged",
    };
    expect(outcome.events.at(-1)).toEqual(warning);
    expect(streamed.at(-1)).toEqual(warning);
    expect([outcome.result, outcome.exitCode]).toEqual([plain.result, plain.exitCode]);
    expect(outcome.writes).toEqual(plain.writes);
    expect(outcome.events.slice(0, -1)).toEqual(plain.events);
  });

  it('an Event port that rejects with something else: the WARN quotes it', async () => {
    const { config, world } = bothMoved();
    const outcome = await runTick(
      config,
      withEvents(simPorts(world), () => () => Promise.reject(new Error('socket hang up'))),
    );
    expect(outcome.events.at(-1)?.message).toBe(
      "WARN: could not record the Kubernetes Event RefreshReimaged (Error: socket hang up); the tick's outcome is unchanged",
    );
    expect(outcome.exitCode).toBe(0);
  });

  it('IMAGE_REFRESH_EVENTS=0: no Event is sent even with an Events port', async () => {
    const { config, world } = bothMoved({ IMAGE_REFRESH_EVENTS: '0' });
    const outcome = await runTick(config, simPorts(world));
    expect(world.kubeEvents).toEqual([]);
    expect(world.calls.map((c) => c.op)).not.toContain('recordEvent');
    expect(outcome.result).toBe('complete');
  });

  it('a tick`s Event that never answers is bounded by the API bound; an interrupted tick`s by 1.5 s at most', async () => {
    const never = () => () => new Promise<never>(() => undefined);
    const finished = bothMoved();
    const complete = await runTick(finished.config, withEvents(simPorts(finished.world), never), {
      timers: promptTimers,
    });
    expect(complete.events.at(-1)?.message).toBe(
      "WARN: could not record the Kubernetes Event RefreshReimaged (Timeout: recording a Kubernetes Event got no answer within 17s, the tick's own bound on it); the tick's outcome is unchanged",
    );

    const stopped = bothMoved();
    const controller = new AbortController();
    controller.abort(interruptedBy('SIGTERM'));
    const interrupted = await runTick(stopped.config, withEvents(simPorts(stopped.world), never), {
      timers: promptTimers,
      signal: controller.signal,
    });
    expect(interrupted.exitCode).toBe(143);
    expect(interrupted.events.at(-1)?.message).toBe(
      "WARN: could not record the Kubernetes Event RefreshInterrupted (Timeout: recording a Kubernetes Event got no answer within 1.5s, the tick's own bound on it); the tick's outcome is unchanged",
    );
  });
});
