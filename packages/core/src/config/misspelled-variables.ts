import { closestName } from './did-you-mean.js';
import type { Environment } from './environment.js';
import type { Topology } from './profile/topology.js';
import type { TickConfig } from './tick-config.js';
import { CONFIG_VARIABLES } from './variables.js';

// A variable that is not one of ours but within two edits of one of ours is
// almost certainly a typo — `ON_ROLOUT_FAILURE=revert` silently meant "keep"
// before this (docs/behaviour.md §2). It is said, with the name it was likely
// meant to be; the environment's many other variables (PATH, HOSTNAME, …) are
// nowhere near ours and are left alone.

/** A variable set in the environment that is likely a misspelling of one of ours. */
export interface MisspelledVariable {
  readonly variable: string;
  /** The variable of ours it is closest to. */
  readonly meant: string;
}

/** The names of the variables the config reads. */
const CONFIG_NAMES: readonly string[] = CONFIG_VARIABLES.map((v) => v.name);

/** The variables a topology's profile pins its images and workloads by (docs/profiles.md). */
const pinsOf = (topology: Topology): readonly string[] =>
  [...topology.images, ...topology.workloads].map((entry) => entry.pinnedBy).filter((pin) => pin !== undefined);

/**
 * Every variable of `env` that is not one image-refresh reads but is within
 * two edits of one it does: the config's variables and the pins the
 * topology names. In the environment's order.
 */
export const misspelledVariables = (env: Environment, config?: TickConfig): readonly MisspelledVariable[] => {
  const ours = config === undefined ? CONFIG_NAMES : [...CONFIG_NAMES, ...pinsOf(config.topology)];
  return Object.keys(env).flatMap((variable) => {
    if (ours.includes(variable) || !/^[A-Z][A-Z0-9_]*$/.test(variable)) return [];
    const meant = closestName(variable, ours);
    return meant === undefined ? [] : [{ variable, meant }];
  });
};
