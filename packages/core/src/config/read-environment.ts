import type { Environment } from './environment.js';
import type { ConfigError } from './tick-config.js';

// Reading variables the way the shell did (`${X:-default}`), and collecting
// every problem at once rather than stopping at the first: an operator fixing
// a values file should not redeploy once per typo (docs/behaviour.md §2).

/** Every problem of the environment, in the order found. */
export class Problems {
  readonly list: ConfigError[] = [];
  add(variable: string, value: string | undefined, problem: string): void {
    this.list.push({ variable, value, problem });
  }
}

/** Unset and empty are the same: the shell's `${X:-default}`. */
export const read = (env: Environment, variable: string): string | undefined => {
  const value = env[variable];
  return value === '' ? undefined : value;
};

/** A variable that must be set; `''` (and a problem) when it is not. */
export const required = (env: Environment, problems: Problems, variable: string, why: string): string => {
  const value = read(env, variable);
  if (value === undefined) problems.add(variable, undefined, `is required (${why})`);
  return value ?? '';
};

/** The two shapes of a Kubernetes name a variable may hand us, each with the sentence that says it. */
export interface NameShape {
  readonly pattern: RegExp;
  readonly problem: string;
}

export const NAMESPACE: NameShape = {
  pattern: /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/,
  problem: 'is not a valid namespace name (lowercase letters, digits and "-", at most 63)',
};

export const OBJECT_NAME: NameShape = {
  pattern: /^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$/,
  problem: 'is not a valid Kubernetes object name (lowercase letters, digits, "-" and ".", at most 253)',
};

/** `value`, with a problem when it is set and not of `shape`. */
export const kubernetesName = (problems: Problems, variable: string, value: string, shape: NameShape): string => {
  if (value !== '' && !shape.pattern.test(value)) problems.add(variable, value, shape.problem);
  return value;
};
