import * as TE from 'fp-ts/lib/TaskEither.js';
import { describe, expect, it } from 'vitest';
import { interruptedBy } from '../src/machine/interrupted.js';
import type { TickEvent } from '../src/machine/tick-event.js';
import { runTick } from '../src/run-tick.js';
import { SimWorld, simConfig, simDigest, simPorts } from '../src/sim/index.js';
import { JM } from './support/edge.js';

// A CronJob's log is what `onEvent` streams, not the outcome returned at the
// end: when the pod is stopped, the INTERRUPTED line (docs/behaviour.md §3,
// Signals) must reach the log as the last line, once — a stream that missed it,
// or said another line in its place, would leave the operator with a log that
// just stops.

describe('an interrupted tick, as its log streams it', () => {
  it('the INTERRUPTED line is streamed last and once, and the stream is the outcome`s events', async () => {
    const config = simConfig();
    const world = new SimWorld(config);
    world.annotations = { 'tracebloc.io/last-refreshed-jobs-manager-digest': simDigest(`${JM}#1`) };
    world.publish(JM, simDigest(`${JM}#2`));
    const ports = simPorts(world);
    const controller = new AbortController();
    const streamed: TickEvent[] = [];
    const outcome = await runTick(
      config,
      {
        ...ports,
        cluster: {
          ...ports.cluster,
          waitForRollout: () => {
            controller.abort(interruptedBy('SIGTERM'));
            return TE.left({ _tag: 'Transport', message: 'aborted' });
          },
        },
      },
      { signal: controller.signal, onEvent: (event) => streamed.push(event) },
    );
    expect(outcome.result).toBe('interrupted');
    // Several lines came before it (the release line, the drift, set image …).
    expect(streamed.length).toBeGreaterThan(2);
    expect(streamed).toEqual(outcome.events);
    expect(streamed.filter((e) => e.code === 'INTERRUPTED')).toHaveLength(1);
    expect(streamed.at(-1)?.code).toBe('INTERRUPTED');
  });

  it('a signal before the first call: the one line streamed is the INTERRUPTED line', async () => {
    const config = simConfig();
    const controller = new AbortController();
    controller.abort(interruptedBy('SIGINT'));
    const streamed: TickEvent[] = [];
    const outcome = await runTick(config, simPorts(new SimWorld(config)), {
      signal: controller.signal,
      onEvent: (event) => streamed.push(event),
    });
    expect(outcome.exitCode).toBe(130);
    expect(streamed.map((e) => e.code)).toEqual(outcome.events.map((e) => e.code));
    expect(streamed.at(-1)?.message).toMatch(/^interrupted by SIGINT before the settled guard read /);
  });

  it('a mirror tick calls no port: a signal given before it changes nothing, it ends mirrorInert', async () => {
    // drive-tick's "the last write landed" check needs a call made: here the
    // machine goes from checkingMirror to mirrorInert without one.
    const config = simConfig({ IMAGE_REGISTRY: 'registry.corp.example:5000' });
    const world = new SimWorld(config);
    const controller = new AbortController();
    controller.abort(interruptedBy('SIGTERM'));
    const outcome = await runTick(config, simPorts(world), { signal: controller.signal });
    expect(outcome.result).toBe('mirrorInert');
    expect(outcome.exitCode).toBe(0);
    expect(world.calls).toEqual([]);
  });
});
