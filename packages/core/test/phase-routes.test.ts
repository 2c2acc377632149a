import { describe, expect, it } from 'vitest';
import { type AnyActorRef, createActor, type InspectionEvent, toPromise } from 'xstate';
import type { TickConfig } from '../src/config/tick-config.js';
import type { TickOutcome } from '../src/machine/tick-outcome.js';
import { provideTickPorts } from '../src/run-tick.js';
import {
  SIM_HALT_ENVIRONMENT,
  SIM_PROMOTION_ENVIRONMENT,
  SIM_SIGNING_KEY,
  SimWorld,
  simConfig,
  simDigest,
  simPorts,
} from '../src/sim/index.js';

// README.md, Benchmarks: a check switched off is not entered on any tick (the
// check before it routes past it), the fleet halt's and the fleet promotion's
// phases, off by default, are routed past, and docs/behaviour.md §3.4a: a tick
// with nothing to admit passes every admission check in one step. Entering a
// check only to pass it changes no outcome, so only the states a tick visits
// can hold these promises.

type Environment = Record<string, string>;

/** Every state path (and its ancestors) the tick machine itself is in, microstep by microstep, plus the outcome. */
const statesVisited = async (config: TickConfig, world: SimWorld) => {
  const visited = new Set<string>();
  const note = (value: unknown, prefix: string): void => {
    if (typeof value === 'string') visited.add(`${prefix}${value}`);
    else if (typeof value === 'object' && value !== null)
      for (const [key, child] of Object.entries(value)) {
        visited.add(`${prefix}${key}`);
        note(child, `${prefix}${key}.`);
      }
  };
  let root: AnyActorRef | undefined;
  // Snapshots alone would miss a state passed by an eventless transition: every microstep is read.
  const inspect = (event: InspectionEvent) => {
    if ((event.type === '@xstate.snapshot' || event.type === '@xstate.microstep') && event.actorRef === root)
      note((event.snapshot as { value?: unknown }).value, '');
  };
  const actor = createActor(provideTickPorts(simPorts(world), config), { input: config, inspect });
  root = actor;
  const outcome: TickOutcome = await toPromise(actor.start());
  return { visited, outcome };
};

const JM = 'tracebloc/jobs-manager';
const ADMIT = 'admittingDigests';

/** A world whose first tick recorded every digest: its next tick, left alone, is steady. */
const recordedEdge = async (env: Environment) => {
  const config = simConfig(env);
  const world = new SimWorld(config);
  expect((await statesVisited(config, world)).outcome.result).toBe('complete');
  return { config, world };
};

/** The tick after a new build of jobs-manager is published. */
const reimageTick = async (env: Environment) => {
  const { config, world } = await recordedEdge(env);
  world.publish(JM, simDigest(`${JM}#2`));
  return statesVisited(config, world);
};

const steadyTick = async (env: Environment) => {
  const { config, world } = await recordedEdge(env);
  return statesVisited(config, world);
};

/** [switch, env that turns it on in the simulator, the state it is entered as]. */
const SWITCHED: readonly (readonly [string, Environment, string])[] = [
  ['FLEET_HALT_REF', SIM_HALT_ENVIRONMENT, 'judgingFleetHalt'],
  ['FLEET_PROMOTION_REF (its phase)', SIM_PROMOTION_ENVIRONMENT, 'judgingFleetPromotion'],
  ['FLEET_PROMOTION_REF (its admission check)', SIM_PROMOTION_ENVIRONMENT, `${ADMIT}.checkingPromotion`],
  ['MIN_DIGEST_AGE', { MIN_DIGEST_AGE: '1h' }, `${ADMIT}.checkingDigestAge`],
  ['MAINTENANCE_WINDOW', { MAINTENANCE_WINDOW: 'Fri 01:00-04:00 UTC' }, `${ADMIT}.checkingWindow`],
  [
    'VERIFY_SIGNATURES',
    { VERIFY_SIGNATURES: 'warn', SIGNATURE_PUBLIC_KEYS: SIM_SIGNING_KEY },
    `${ADMIT}.checkingSignatures`,
  ],
  ['PLATFORM_CHECK', { PLATFORM_CHECK: 'on' }, `${ADMIT}.checkingPlatforms`],
];

describe('a re-image tick with every switch at its default', () => {
  it.each(SWITCHED.map(([name, , state]) => [name, state]))(
    'never enters the phase of %s, being off',
    async (_, state) => {
      const { visited, outcome } = await reimageTick({});
      expect(visited).not.toContain(state);
      expect(outcome.reimages).not.toHaveLength(0);
      // The tick did go through admission: what it skipped, it skipped by a route.
      expect(visited).toContain(`${ADMIT}.checkingQuarantine`);
    },
  );
});

/** The first tick of a fresh install: its plan only records first observations. */
const firstTick = async (env: Environment) => {
  const config = simConfig(env);
  return statesVisited(config, new SimWorld(config));
};

// docs/behaviour.md §3.4c: OWNERSHIP_CHECK, on by default, is entered from the plan either way it goes.
describe('the ownership check', () => {
  it.each([
    ['a first tick, which only records', firstTick],
    ['a re-image tick', reimageTick],
  ])('%s enters it by default and never with OWNERSHIP_CHECK off', async (_, tick) => {
    expect((await tick({})).visited).toContain('checkingOwnership');
    const { visited, outcome } = await tick({ OWNERSHIP_CHECK: 'off' });
    expect(visited).not.toContain('checkingOwnership');
    expect(outcome.writes).not.toHaveLength(0);
  });
});

describe('a re-image tick with one switch on', () => {
  it.each(SWITCHED)('enters the phase of %s', async (_, env, state) => {
    expect((await reimageTick(env)).visited).toContain(state);
  });
});

/** Every switch of the table on at once, as the simulator allows. */
const ALL_CHECKS: Environment = Object.assign({}, ...SWITCHED.map(([, env]) => env));
const ADMISSION_CHECKS = SWITCHED.slice(2).map(([, , state]) => state);

// docs/behaviour.md §3.4a: nothing changed and no pending record to clear, so nothing to judge.
describe('a steady tick with every admission check on', () => {
  it('passes them all in one step, entering none', async () => {
    const { visited, outcome } = await steadyTick(ALL_CHECKS);
    expect(outcome.result).toBe('complete');
    expect([...visited].filter((s) => [`${ADMIT}.checkingQuarantine`, ...ADMISSION_CHECKS].includes(s))).toEqual([]);
    // It did reach admission, and left it for the plan.
    expect(visited).toContain(`${ADMIT}.checkingHalt`);
    expect(visited).toContain('comparingDigests');
  });

  it('while a re-image tick under the same switches enters every one of them', async () => {
    const { visited } = await reimageTick(ALL_CHECKS);
    expect(ADMISSION_CHECKS.filter((s) => !visited.has(s))).toEqual([]);
  });
});
