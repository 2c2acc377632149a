import * as O from 'fp-ts/lib/Option.js';
import * as T from 'fp-ts/lib/Task.js';
import * as TE from 'fp-ts/lib/TaskEither.js';
import { describe, expect, it } from 'vitest';
import type { BookkeepingChanges } from '../src/domain/bookkeeping.js';
import { settled } from '../src/domain/settledness.js';
import type { WorkloadRef } from '../src/domain/workloads.js';
import {
  type InterruptedContext,
  type InterruptPoint,
  interruptedAfterTheTick,
  interruptedBy,
  interruptedOutcome,
} from '../src/machine/interrupted.js';
import { runTick, type TickPorts } from '../src/run-tick.js';
import { SimWorld, simConfig, simDigest, simPorts } from '../src/sim/index.js';
import { ANNOTATION } from './support/chart.js';
import { JM, RM } from './support/edge.js';

// The INTERRUPTED line (docs/behaviour.md §3, Signals), at every kind of port
// call a signal can cut short: the line must say where the tick was (the
// settled guard's wait, a bookkeeping read, which write, which workload) and
// what its bookkeeping holds — the skip counted or not, refresh-attempt as it
// stands, digests recorded or not — because that line is all an operator has to
// decide whether the next tick picks up cleanly (I18's extension: exit 143 /
// 130).

type Op = keyof TickPorts['cluster'] | 'resolveDigests';
type Answer = 'cut off' | 'lands';

/**
 * The sim's ports, with the tick's signal aborted (with `reason`) by the first
 * call for which `when` holds; that call then never reaches the world and
 * fails as an aborted request would ('cut off'), or answers as the world says
 * ('lands').
 */
const stoppingAt = (
  ports: TickPorts,
  when: (op: Op, args: readonly unknown[]) => boolean,
  answer: Answer,
  controller: AbortController,
  // Required, not defaulted: an `undefined` reason is a case of its own (the platform's AbortError).
  reason: unknown,
): TickPorts => {
  let stopped = false;
  const stopsHere = (op: Op, args: readonly unknown[]): boolean => {
    if (stopped || !when(op, args)) return false;
    stopped = true;
    controller.abort(reason);
    return true;
  };
  const cluster = Object.fromEntries(
    Object.entries(ports.cluster).map(([op, call]) => [
      op,
      (...args: never[]) =>
        stopsHere(op as Op, args) && answer === 'cut off'
          ? TE.left({ _tag: 'Transport', message: 'aborted' })
          : (call as (...a: never[]) => TE.TaskEither<unknown, unknown>)(...args),
    ]),
  ) as unknown as TickPorts['cluster'];
  return {
    ...ports,
    cluster,
    registry: {
      ...ports.registry,
      resolveDigests: (requests) =>
        stopsHere('resolveDigests', [requests]) && answer === 'cut off'
          ? T.of([])
          : ports.registry.resolveDigests(requests),
    },
  };
};

const SIGTERM = interruptedBy('SIGTERM');

/** The jobs-manager Deployment as the machine hands it to a call's input. */
const jobsManager: WorkloadRef = {
  id: 'jobs-manager',
  kind: 'Deployment',
  name: 'stg-jobs-manager',
  namespace: 'tracebloc',
};

const JM_RECORD = 'tracebloc.io/last-refreshed-jobs-manager-digest';
const RM_RECORD = 'tracebloc.io/last-refreshed-resource-monitor-digest';

/** A settled edge where jobs-manager's tag moved to build 2. */
const drifting = (annotations: Record<string, string> = {}) => {
  const config = simConfig();
  const world = new SimWorld(config);
  world.annotations = { [JM_RECORD]: simDigest(`${JM}#1`), ...annotations };
  world.publish(JM, simDigest(`${JM}#2`));
  return { config, world };
};

/** jobs-manager never becomes Ready; with DECOUPLED_REFRESH=1 a moved resource-monitor is refreshed past it. */
const unsettled = (env: Record<string, string> = {}, annotations: Record<string, string> = {}) => {
  const config = simConfig(env);
  const world = new SimWorld(config);
  world.annotations = { [RM_RECORD]: simDigest(`${RM}#1`), ...annotations };
  world.publish(RM, simDigest(`${RM}#2`));
  world.setBehaviour('jobs-manager', 'neverReady');
  return { config, world };
};

const decoupled = (annotations: Record<string, string> = {}) => unsettled({ DECOUPLED_REFRESH: '1' }, annotations);

const settledGuardRead = (op: Op, [settleWithinMs]: readonly unknown[]) =>
  op === 'readGate' && (settleWithinMs as number) > 0;
const bookkeepingRead = (op: Op, [settleWithinMs]: readonly unknown[]) => op === 'readGate' && settleWithinMs === 0;
const patchOf =
  (key: string, value?: string | null) =>
  (op: Op, [changes]: readonly unknown[]): boolean =>
    op === 'patchBookkeeping' &&
    key in (changes as BookkeepingChanges) &&
    (value === undefined || (changes as BookkeepingChanges)[key] === value);
const callOn =
  (target: Op, id: string) =>
  (op: Op, [workload]: readonly unknown[]) =>
    op === target && (workload as WorkloadRef).id === id;

const lastLine = (outcome: { readonly events: readonly { readonly code: string; readonly message: string }[] }) => {
  const line = outcome.events.at(-1);
  expect(line?.code).toBe('INTERRUPTED');
  return line?.message;
};

describe('where an interrupted tick was, in its line', () => {
  it('a signal that came before the tick: the settled guard never read, nothing written, no settledness reported', async () => {
    const { config, world } = drifting();
    const controller = new AbortController();
    controller.abort(interruptedBy('SIGTERM'));
    const outcome = await runTick(config, simPorts(world), { signal: controller.signal });
    expect([outcome.result, outcome.exitCode]).toEqual(['interrupted', 143]);
    expect(lastLine(outcome)).toBe(
      'interrupted by SIGTERM before the settled guard read deployment/stg-jobs-manager: the skip was not counted, nothing was written',
    );
    expect(outcome).not.toHaveProperty('settledness');
    expect(world.calls).toEqual([expect.objectContaining({ op: 'recordEvent' })]);
  });

  it('during the settled guard`s wait: it says the guard waited, and nothing was written', async () => {
    const { config, world } = drifting();
    const controller = new AbortController();
    const ports = stoppingAt(simPorts(world), settledGuardRead, 'cut off', controller, SIGTERM);
    const outcome = await runTick(config, ports, { signal: controller.signal });
    expect(lastLine(outcome)).toBe(
      'interrupted by SIGTERM while the settled guard waited for deployment/stg-jobs-manager: the skip was not counted, nothing was written',
    );
    expect(outcome.writes).toEqual([]);
  });

  it('during a bookkeeping read of a settled tick: the read is named, and the settledness the guard saw is kept', async () => {
    const { config, world } = drifting();
    const controller = new AbortController();
    const ports = stoppingAt(simPorts(world), bookkeepingRead, 'lands', controller, SIGTERM);
    const outcome = await runTick(config, ports, { signal: controller.signal });
    expect(lastLine(outcome)).toBe(
      'interrupted by SIGTERM while reading the bookkeeping of deployment/stg-jobs-manager: refresh-attempt unchanged, digests not recorded',
    );
    expect(outcome.settledness).toEqual(settled('deployment "stg-jobs-manager" successfully rolled out'));
    expect(outcome.digestChanges).toEqual([]);
  });

  it('during the registry`s answer: it names the resolve, and nothing moved', async () => {
    const { config, world } = drifting();
    const controller = new AbortController();
    const ports = stoppingAt(simPorts(world), (op) => op === 'resolveDigests', 'cut off', controller, SIGTERM);
    const outcome = await runTick(config, ports, { signal: controller.signal });
    expect(lastLine(outcome)).toBe(
      'interrupted by SIGTERM while resolving digests from the registry: refresh-attempt unchanged, digests not recorded',
    );
    expect(world.calls.some((c) => c.op === 'resolveDigest')).toBe(false);
  });

  it('during the set image: the workload is named, the attempt written before it stays', async () => {
    const { config, world } = drifting();
    const controller = new AbortController();
    const ports = stoppingAt(simPorts(world), callOn('setImages', 'jobs-manager'), 'cut off', controller, SIGTERM);
    const outcome = await runTick(config, ports, { signal: controller.signal });
    expect(lastLine(outcome)).toBe(
      'interrupted by SIGTERM while setting the image of deployment/stg-jobs-manager: refresh-attempt=1 stays, digests not recorded',
    );
    expect(outcome.reimages).toEqual([]);
  });

  it('a set image that landed is kept: the tick stops before the wait, not "while setting"', async () => {
    const { config, world } = drifting();
    const controller = new AbortController();
    const ports = stoppingAt(simPorts(world), callOn('setImages', 'jobs-manager'), 'lands', controller, SIGTERM);
    const outcome = await runTick(config, ports, { signal: controller.signal });
    expect(lastLine(outcome)).toBe(
      'interrupted by SIGTERM before waiting for deployment/stg-jobs-manager: refresh-attempt=1 stays, digests not recorded',
    );
    expect(outcome.reimages.map((r) => r.workload.id)).toEqual(['jobs-manager']);
  });

  it('during a settled tick`s streak clear: it names the streak', async () => {
    const { config, world } = drifting({ [ANNOTATION.skipStreak]: '3' });
    const controller = new AbortController();
    const ports = stoppingAt(simPorts(world), patchOf(ANNOTATION.skipStreak, null), 'cut off', controller, SIGTERM);
    const outcome = await runTick(config, ports, { signal: controller.signal });
    expect(lastLine(outcome)).toBe(
      'interrupted by SIGTERM while clearing refresh-skip-streak: refresh-attempt unchanged, digests not recorded',
    );
    expect(world.annotations[ANNOTATION.skipStreak]).toBe('3');
  });

  it('during the flap mark at MAX_REFRESH_ATTEMPTS: it names the flap marker, and the count stays', async () => {
    const { config, world } = drifting({ [ANNOTATION.refreshAttempt]: '3' });
    const controller = new AbortController();
    const ports = stoppingAt(simPorts(world), patchOf(ANNOTATION.flapDetected), 'cut off', controller, SIGTERM);
    const outcome = await runTick(config, ports, { signal: controller.signal });
    expect(lastLine(outcome)).toBe(
      'interrupted by SIGTERM while writing refresh-flap-detected: refresh-attempt=3 stays, digests not recorded',
    );
  });

  it('a failed attempt write: the count the tick read stays, not the one it meant to write', async () => {
    const { config, world } = drifting({ [ANNOTATION.refreshAttempt]: '1' });
    const controller = new AbortController();
    const ports = stoppingAt(simPorts(world), patchOf(ANNOTATION.refreshAttempt, '2'), 'cut off', controller, SIGTERM);
    const outcome = await runTick(config, ports, { signal: controller.signal });
    expect(lastLine(outcome)).toBe(
      'interrupted by SIGTERM while writing refresh-attempt: refresh-attempt=1 stays, digests not recorded',
    );
    expect(world.calls.some((c) => c.op === 'setImages')).toBe(false);
  });

  it('during the success reset: it names both annotations it clears', async () => {
    const { config, world } = drifting();
    const controller = new AbortController();
    const ports = stoppingAt(simPorts(world), patchOf(ANNOTATION.refreshAttempt, null), 'cut off', controller, SIGTERM);
    const outcome = await runTick(config, ports, { signal: controller.signal });
    expect(lastLine(outcome)).toBe(
      'interrupted by SIGTERM while clearing refresh-attempt and refresh-flap-detected: refresh-attempt=1 stays, digests not recorded',
    );
    expect(world.calls.filter((c) => c.op === 'setImages')).toHaveLength(2);
  });
});

describe('an interrupted unsettled tick says whether its skip was counted', () => {
  it('cut off before the streak write: the skip was not counted, nothing was written', async () => {
    const { config, world } = unsettled();
    const controller = new AbortController();
    const ports = stoppingAt(simPorts(world), bookkeepingRead, 'cut off', controller, SIGTERM);
    const outcome = await runTick(config, ports, { signal: controller.signal });
    expect(lastLine(outcome)).toBe(
      'interrupted by SIGTERM while reading the bookkeeping of deployment/stg-jobs-manager: the skip was not counted, nothing was written',
    );
    expect(outcome.settledness?._tag).toBe('Waiting');
  });

  it('the streak write landed: the skip was counted, with the value written — and nothing else is claimed', async () => {
    const { config, world } = unsettled({}, { [ANNOTATION.skipStreak]: '4' });
    const controller = new AbortController();
    const ports = stoppingAt(simPorts(world), patchOf(ANNOTATION.skipStreak), 'lands', controller, SIGTERM);
    const outcome = await runTick(config, ports, { signal: controller.signal });
    expect(lastLine(outcome)).toBe(
      'interrupted by SIGTERM after writing refresh-skip-streak: the skip was counted (refresh-skip-streak=5)',
    );
    expect(world.annotations[ANNOTATION.skipStreak]).toBe('5');
  });

  it('DECOUPLED_REFRESH=1, the streak write failed: the skip was not counted, nothing was written', async () => {
    const { config, world } = decoupled();
    const controller = new AbortController();
    const ports = stoppingAt(simPorts(world), patchOf(ANNOTATION.skipStreak), 'cut off', controller, SIGTERM);
    const outcome = await runTick(config, ports, { signal: controller.signal });
    expect(lastLine(outcome)).toBe(
      'interrupted by SIGTERM while writing refresh-skip-streak: the skip was not counted, nothing was written',
    );
  });

  it('DECOUPLED_REFRESH=1, during the decoupled pass: the counted skip and the pass`s own bookkeeping, both', async () => {
    const { config, world } = decoupled();
    const controller = new AbortController();
    const ports = stoppingAt(
      simPorts(world),
      callOn('observeWorkload', 'resource-monitor'),
      'lands',
      controller,
      SIGTERM,
    );
    const outcome = await runTick(config, ports, { signal: controller.signal });
    expect(lastLine(outcome)).toBe(
      'interrupted by SIGTERM while reading daemonset/stg-resource-monitor: the skip was counted (refresh-skip-streak=1), refresh-attempt unchanged, digests not recorded',
    );
  });

  it('DECOUPLED_REFRESH=1, after the pass put back an earlier count: the count it put back stays, not the one before it', async () => {
    const { config, world } = decoupled({ [ANNOTATION.refreshAttempt]: '1' });
    const controller = new AbortController();
    // The pass writes refresh-attempt=2, re-images, then puts back 1 (I25).
    const ports = stoppingAt(simPorts(world), patchOf(ANNOTATION.refreshAttempt, '1'), 'lands', controller, SIGTERM);
    const outcome = await runTick(config, ports, { signal: controller.signal });
    expect(lastLine(outcome)).toBe(
      'interrupted by SIGTERM before recording the digests: the skip was counted (refresh-skip-streak=1), refresh-attempt=1 stays, digests not recorded',
    );
    expect(outcome.writes.map((w) => w.annotations[ANNOTATION.refreshAttempt])).toEqual([undefined, '2', '1']);
  });
});

describe('the signal an interrupted tick names', () => {
  const waitCutOff = async (reason: unknown) => {
    const { config, world } = drifting();
    const controller = new AbortController();
    const ports = stoppingAt(simPorts(world), callOn('waitForRollout', 'jobs-manager'), 'cut off', controller, reason);
    return runTick(config, ports, { signal: controller.signal });
  };
  const line = 'while waiting for deployment/stg-jobs-manager: refresh-attempt=1 stays, digests not recorded';

  it('an abort without a reason (the platform`s AbortError) is taken as SIGTERM: exit 143', async () => {
    const outcome = await waitCutOff(undefined);
    expect(outcome.exitCode).toBe(143);
    expect(lastLine(outcome)).toBe(`interrupted by SIGTERM ${line}`);
  });

  it('a null reason is SIGTERM too, not a crash', async () => {
    const outcome = await waitCutOff(null);
    expect([outcome.result, outcome.exitCode]).toEqual(['interrupted', 143]);
  });

  it('only a TickInterrupt value names the signal: a function that carries its fields is SIGTERM', async () => {
    const lookalike = Object.assign(() => undefined, { _tag: 'TickInterrupt', signal: 'SIGINT' });
    const outcome = await waitCutOff(lookalike);
    expect(outcome.exitCode).toBe(143);
    expect(lastLine(outcome)).toBe(`interrupted by SIGTERM ${line}`);
  });

  it('SIGINT: exit 130', async () => {
    const outcome = await waitCutOff(interruptedBy('SIGINT'));
    expect(outcome.exitCode).toBe(130);
    expect(lastLine(outcome)).toBe(`interrupted by SIGINT ${line}`);
  });
});

// The machine always hands its calls a full input; interruptedOutcome is also
// the one place that words a call it does not know (a new actor not yet named
// here) or an input missing its parts, and must still say something true.
describe('an interrupted outcome from parts the machine does not send today', () => {
  const context = (parts: Partial<InterruptedContext> = {}): InterruptedContext => ({
    config: simConfig(),
    settledness: O.some(settled('rolled out')),
    attempt: 0,
    events: [],
    writes: [],
    reimages: [],
    rollingBack: false,
    ...parts,
  });
  const say = (
    src: string,
    input: unknown,
    parts: Partial<InterruptedContext> = {},
    phase: InterruptPoint['phase'] = 'before',
  ) => interruptedOutcome(context(parts), { src, input, phase }, interruptedBy('SIGTERM')).events.at(-1)?.message;

  it('a call it has no words for is named by its actor', () => {
    expect(say('verifySignature', { settleWithinMs: 5 })).toBe(
      'interrupted by SIGTERM before verifySignature: refresh-attempt unchanged, digests not recorded',
    );
  });

  it('a call without its input: "a workload", "a bookkeeping write", the bookkeeping read', () => {
    expect(say('waitForRollout', undefined)).toBe(
      'interrupted by SIGTERM before waiting for a workload: refresh-attempt unchanged, digests not recorded',
    );
    expect(say('observeWorkload', undefined)).toMatch(/^interrupted by SIGTERM before reading a workload: /);
    expect(say('observeOwnedWorkloads', undefined)).toMatch(
      /^interrupted by SIGTERM before reading the workloads for the ownership check \(nothing was set\): /,
    );
    expect(say('observeOwnedWorkloads', {})).toMatch(/^interrupted by SIGTERM before reading the workloads for /);
    expect(say('patchBookkeeping', undefined)).toMatch(/^interrupted by SIGTERM before a bookkeeping write: /);
    expect(say('patchBookkeeping', {})).toMatch(/^interrupted by SIGTERM before a bookkeeping write: /);
    expect(say('readGate', undefined)).toMatch(
      /^interrupted by SIGTERM before reading the bookkeeping of deployment\/stg-jobs-manager: /,
    );
  });

  it.each([
    ['watchStability', 'while watching deployment/stg-jobs-manager stay complete (ROLLOUT_STABLE_FOR)'],
    ['verifySignatures', 'while checking signatures of new digests (nothing of them was acted on)'],
    ['waitStartJitter', 'while waiting START_JITTER before the registry'],
    ['readClock', 'while reading the clock'],
    ['readFleetHalt', 'while reading the fleet halt (nothing of it was acted on)'],
    ['readPlatforms', 'while reading the platforms of new digests (nothing of them was acted on)'],
    ['recordStagingEvent', 'while recording the RefreshStaging Event (nothing was switched)'],
    ['stageImages', 'while staging the new images on their nodes (no pod was switched)'],
  ])('a signal during %s says: %s', (src, where) => {
    expect(say(src, { workload: jobsManager }, {}, 'during')).toBe(
      `interrupted by SIGTERM ${where}: refresh-attempt unchanged, digests not recorded`,
    );
  });

  it('a signal during the ownership check names every workload its one read asked for', () => {
    const proxy = { id: 'requests-proxy', kind: 'Deployment', name: 'stg-requests-proxy', namespace: 'tracebloc' };
    const agent = { id: 'resource-monitor', kind: 'DaemonSet', name: 'stg-resource-monitor', namespace: 'agents' };
    expect(say('observeOwnedWorkloads', { workloads: [proxy, agent] }, {}, 'during')).toBe(
      'interrupted by SIGTERM while reading deployment/stg-requests-proxy, daemonset/stg-resource-monitor for the ownership check (nothing was set): refresh-attempt unchanged, digests not recorded',
    );
  });

  it.each([
    ['writeSkipStreak', 'writing refresh-skip-streak'],
    ['clearSkipStreak', 'clearing refresh-skip-streak'],
    ['writeRefreshAttempt', 'writing refresh-attempt'],
    ['markFlapDetected', 'writing refresh-flap-detected'],
    ['clearFlapState', 'clearing refresh-attempt and refresh-flap-detected'],
    ['recordDigests', 'recording the digests'],
    ['quarantineDigests', 'writing the quarantine of the failed digest'],
    ['writePendingDigests', 'writing the pending digests'],
    ['recordFleetHalt', 'recording the verified fleet halt'],
    ['liftFleetHalt', 'removing the record of the lifted fleet halt'],
  ])('a signal before the write %s names it: %s', (kind, words) => {
    expect(say('patchBookkeeping', { write: { kind, annotations: {} } })).toBe(
      `interrupted by SIGTERM before ${words}: refresh-attempt unchanged, digests not recorded`,
    );
  });

  it('an attempt write that removed the key does not count as a value that stays', () => {
    const writes = [{ kind: 'writeRefreshAttempt' as const, annotations: { [ANNOTATION.refreshAttempt]: null } }];
    expect(say('resolveDigests', {}, { writes })).toBe(
      'interrupted by SIGTERM before resolving digests from the registry: refresh-attempt unchanged, digests not recorded',
    );
  });
});

// ON_ROLLOUT_FAILURE=revert: a rollout cut short by a signal is not a rollout
// that failed, so nothing is rolled back; the line says so, and what the next
// tick does with the build it leaves half-rolled (docs/behaviour.md §3, Signals).
describe('an interrupted re-image under ON_ROLLOUT_FAILURE=revert says what the way back did not do', () => {
  const attemptWritten = (n: number) => [
    { kind: 'writeRefreshAttempt' as const, annotations: { 'tracebloc.io/refresh-attempt': String(n) } },
  ];
  const lineOf = (env: Record<string, string>, parts: Partial<InterruptedContext>, src = 'waitForRollout') =>
    interruptedOutcome(
      {
        config: simConfig(env),
        settledness: O.some(settled('rolled out')),
        attempt: 0,
        events: [],
        writes: [],
        reimages: [],
        rollingBack: false,
        ...parts,
      },
      { src, input: { workload: jobsManager }, phase: 'during' },
      interruptedBy('SIGTERM'),
    ).events.at(-1)?.message;

  it('during the rollout wait: no rollback, the next tick retries as the next attempt once jobs-manager is settled', () => {
    expect(lineOf({ ON_ROLLOUT_FAILURE: 'revert' }, { writes: attemptWritten(1) })).toBe(
      'interrupted by SIGTERM while waiting for deployment/stg-jobs-manager: refresh-attempt=1 stays, digests not recorded; no rollback was made (ON_ROLLOUT_FAILURE=revert rolls back a rollout that failed, and this one was cut short): the next tick retries this build as attempt 2/3 once deployment/stg-jobs-manager is settled, and rolls it back if its rollout fails',
    );
  });

  it('at the last attempt: the next tick is the flap lockout, no retry and no rollback', () => {
    expect(lineOf({ ON_ROLLOUT_FAILURE: 'revert' }, { writes: attemptWritten(3) }, 'watchStability')).toMatch(
      /; no rollback was made \(.*\): the next tick finds refresh-attempt at MAX_REFRESH_ATTEMPTS=3: FLAP DETECTED, no retry and no rollback \(image-refresh rearm once the build is fixed\)$/,
    );
  });

  it('during the set image too: each call of a re-image is one a signal leaves half-rolled', () => {
    for (const src of ['setImages', 'waitForRollout', 'watchStability']) {
      expect(lineOf({ ON_ROLLOUT_FAILURE: 'revert' }, { writes: attemptWritten(1) }, src)).toContain(
        '; no rollback was made (ON_ROLLOUT_FAILURE=revert rolls back a rollout that failed, and this one was cut short): the next tick retries this build as attempt 2/3',
      );
    }
  });

  it('counts from the last attempt the tick wrote, else from the one it read', () => {
    const next = (parts: Partial<InterruptedContext>) =>
      /as attempt (\d)\/3|FLAP DETECTED/.exec(lineOf({ ON_ROLLOUT_FAILURE: 'revert' }, parts) ?? '')?.[0];
    // A decoupled pass writes refresh-attempt, then puts back the count it found (I25): the last one stands.
    expect(next({ writes: [...attemptWritten(3), ...attemptWritten(1)] })).toBe('as attempt 2/3');
    expect(next({ attempt: 2 })).toBe('as attempt 3/3');
    expect(
      next({
        attempt: 1,
        writes: [{ kind: 'writeRefreshAttempt', annotations: { 'tracebloc.io/refresh-attempt': null } }],
      }),
    ).toBe('as attempt 2/3');
    expect(next({ attempt: 3 })).toBe('FLAP DETECTED');
  });

  it('during the rollback itself: it is unfinished, nothing quarantined', () => {
    expect(lineOf({ ON_ROLLOUT_FAILURE: 'revert' }, { writes: attemptWritten(1), rollingBack: true })).toMatch(
      /refresh-attempt=1 stays, digests not recorded; the rollback to the recorded digests was cut short and nothing was quarantined: /,
    );
  });

  it('under keep (the script), or during a bookkeeping read, the line is as it was', () => {
    expect(lineOf({}, { writes: attemptWritten(1) })).toBe(
      'interrupted by SIGTERM while waiting for deployment/stg-jobs-manager: refresh-attempt=1 stays, digests not recorded',
    );
    expect(lineOf({ ON_ROLLOUT_FAILURE: 'revert' }, { writes: attemptWritten(1) }, 'readGate')).not.toContain(
      'rollback',
    );
  });
});

// A tick that ended on its own, then a signal while the shell pushed its metrics or recorded its
// Events (docs/behaviour.md §3, Signals): the first signal wins, and the tick's own account stays.
describe('a signal after the tick ended', () => {
  const ended = async () => {
    const { config, world } = drifting();
    return runTick(config, simPorts(world));
  };

  it.each([
    ['SIGTERM', 143],
    ['SIGINT', 130],
  ] as const)('%s: result interrupted, exit %i, one line that names what the tick ended with', async (signal, exit) => {
    const outcome = await ended();
    expect(outcome.result).toBe('complete');
    const stopped = interruptedAfterTheTick(outcome, interruptedBy(signal), 'while pushing the metrics');
    expect(stopped).toEqual({
      ...outcome,
      result: 'interrupted',
      exitCode: exit,
      events: [
        ...outcome.events,
        {
          level: 'warn',
          code: 'INTERRUPTED',
          message: `interrupted by ${signal} while pushing the metrics: the tick had already ended complete (exit 0); what it wrote stands`,
        },
      ],
    });
  });

  it('a tick already interrupted, or whose config was refused, keeps its own outcome', async () => {
    const outcome = await ended();
    for (const result of ['interrupted', 'configInvalid'] as const) {
      const own = { ...outcome, result, exitCode: 2 as const };
      expect(interruptedAfterTheTick(own, SIGTERM, 'while pushing the metrics')).toBe(own);
    }
  });
});
