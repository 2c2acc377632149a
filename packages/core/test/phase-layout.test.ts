import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { actGuards } from '../src/machine/act/guards.js';
import { actEnds, actSteps } from '../src/machine/act/states.js';
import { admitGuards } from '../src/machine/admit/guards.js';
import { admitSteps } from '../src/machine/admit/states.js';
import { fleetHaltGuards } from '../src/machine/fleet-halt/guards.js';
import { fleetHaltSteps } from '../src/machine/fleet-halt/states.js';
import { fleetPromotionGuards } from '../src/machine/fleet-promotion/guards.js';
import { fleetPromotionSteps } from '../src/machine/fleet-promotion/states.js';
import { observeGuards } from '../src/machine/observe/guards.js';
import { observeEnds, observeSteps } from '../src/machine/observe/states.js';
import { ownershipGuards } from '../src/machine/ownership/guards.js';
import { ownershipEnds, ownershipSteps } from '../src/machine/ownership/states.js';
import { recordGuards } from '../src/machine/record/guards.js';
import { recordEnds, recordSteps } from '../src/machine/record/states.js';
import { resolveGuards } from '../src/machine/resolve/guards.js';
import { resolveEnds, resolveSteps } from '../src/machine/resolve/states.js';
import { tickMachine } from '../src/machine/tick-machine.js';
import { wayBackGuards } from '../src/machine/way-back/guards.js';
import { wayBackEnds, wayBackSteps } from '../src/machine/way-back/states.js';

// The layout of the tick machine as packages/core/README.md ("The tick, phase
// by phase") promises it, held as a test so that a phase or a step added later
// keeps it: the machine is its phases' steps in order, each guard a diagram
// shows is in the guard table of the folder its state lives in (state → phase
// folder → guard: two hops), and no machine file outgrows 400 lines.

const PHASES = [
  { folder: 'observe', steps: observeSteps, ends: observeEnds, guards: observeGuards },
  { folder: 'resolve', steps: resolveSteps, ends: resolveEnds, guards: resolveGuards },
  { folder: 'fleet-halt', steps: fleetHaltSteps, ends: {}, guards: fleetHaltGuards },
  { folder: 'fleet-promotion', steps: fleetPromotionSteps, ends: {}, guards: fleetPromotionGuards },
  { folder: 'admit', steps: admitSteps, ends: {}, guards: admitGuards },
  { folder: 'ownership', steps: ownershipSteps, ends: ownershipEnds, guards: ownershipGuards },
  { folder: 'act', steps: actSteps, ends: actEnds, guards: actGuards },
  { folder: 'way-back', steps: wayBackSteps, ends: wayBackEnds, guards: wayBackGuards },
  { folder: 'record', steps: recordSteps, ends: recordEnds, guards: recordGuards },
] as const;

/** Every guard name a state config refers to, through its transitions and its child states. */
const guardsIn = (config: unknown): string[] => {
  if (Array.isArray(config)) return config.flatMap(guardsIn);
  if (typeof config !== 'object' || config === null) return [];
  const node = config as Record<string, unknown>;
  const own = guardNames(node.guard);
  const nested = ['always', 'on', 'invoke', 'onDone', 'onError', 'states'].flatMap((key) => {
    const value = node[key];
    if (key === 'on' || key === 'states') {
      return typeof value === 'object' && value !== null ? Object.values(value).flatMap(guardsIn) : [];
    }
    return guardsIn(value);
  });
  return [...own, ...nested];
};

const guardNames = (guard: unknown): string[] => {
  if (typeof guard === 'string') return [guard];
  if (typeof guard === 'object' && guard !== null && typeof (guard as { type?: unknown }).type === 'string')
    return [(guard as { type: string }).type];
  // xstate's and()/or() carry the guards they combine.
  const combined = (guard as { guards?: unknown } | undefined)?.guards;
  return Array.isArray(combined) ? combined.flatMap(guardNames) : [];
};

const MACHINE = resolve(dirname(fileURLToPath(import.meta.url)), '../src/machine');
const files = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? files(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );

describe('the tick machine, phase by phase', () => {
  it('is its phases’ steps in the order a tick runs them, then their final states', () => {
    const composed = [...PHASES.flatMap((p) => Object.keys(p.steps)), ...PHASES.flatMap((p) => Object.keys(p.ends))];
    expect(Object.keys(tickMachine.root.states)).toEqual(composed);
  });

  it.each(PHASES)('$folder: every guard its states use is in $folder/guards.ts', ({ steps, ends, guards }) => {
    const used = [...new Set(Object.values({ ...steps, ...ends }).flatMap(guardsIn))];
    expect(used.filter((name) => !(name in guards))).toEqual([]);
  });

  it('every guard of the machine is some phase’s, one body per name', () => {
    const byName = new Map<string, Set<unknown>>();
    for (const { guards } of PHASES)
      for (const [name, body] of Object.entries(guards)) byName.set(name, (byName.get(name) ?? new Set()).add(body));
    expect([...byName].filter(([, bodies]) => bodies.size > 1).map(([name]) => name)).toEqual([]);
    expect(Object.keys(tickMachine.implementations.guards).sort()).toEqual([...byName.keys()].sort());
  });

  // Under Stryker the files on disk are its instrumented copies, every mutant
  // spelled out beside the original (admit/messages.ts: 484 lines): their
  // length says nothing of the source's, so the count is left to normal runs.
  it.skipIf(process.env.STRYKER_MUTATOR_WORKER !== undefined)('no machine file is over 400 lines', () => {
    const long = files(MACHINE)
      .map((file) => [relative(MACHINE, file), readFileSync(file, 'utf8').split('\n').length - 1] as const)
      .filter(([, lines]) => lines > 400);
    expect(long).toEqual([]);
  });
});
