import { ENV } from './environment.js';
import type { ConfigError } from './tick-config.js';

// FLEET_HALT_REF and FLEET_HALT_EXIT (docs/behaviour.md §3.4b): where the
// fleet's halt is published, and whether a halt that holds a change back is
// a finding. Unset (the default) there is no halt: no request, no
// annotation, no line — the script's tick (I35).

/** FLEET_HALT_REF, parsed: the halt's tag on its registry. */
export interface FleetHaltConfig {
  /** As the operator wrote it, for lines: `docker.io/acme/fleet-control:stg-halt`. */
  readonly reference: string;
  /** Its registry host: `docker.io` for Docker Hub (a reference without a host), else `host[:port]`. */
  readonly host: string;
  /** `acme/fleet-control`: the repository on that registry. */
  readonly repo: string;
  readonly tag: string;
  /** FLEET_HALT_EXIT=1: a halt that holds a change back makes the tick exit 1. */
  readonly exitOnHold: boolean;
}

/** Docker Hub's names for itself: a halt under any of them, or under no host, lives on Docker Hub. */
const DOCKER_HUB = /^(?:docker\.io|index\.docker\.io|registry-1\.docker\.io)\//;
/** A repository path as the distribution spec's grammar has it, at least `namespace/name`. */
const REPOSITORY = /^[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*(?:\/[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*)+$/;
const TAG = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$/;
/** A first path component with a dot, a colon or `localhost` names a registry host (Docker's own rule). */
const HOST = /^([^/]*[.:][^/]*|localhost)\//;

/** What a fleet document's reference must be, with an example tag of its kind (`stg-halt`, `stg-promotion`). */
const meaningFor = (exampleTag: string): string =>
  `must be a tag of a repository, on Docker Hub or host[:port]/, e.g. docker.io/acme/fleet-control:${exampleTag} or registry.example:5000/acme/fleet-control:${exampleTag}`;

/**
 * `[host[:port]/]<namespace>/<name>:<tag>` (no host: Docker Hub), or why not:
 * where a signed fleet document (a halt, a promotion) is published.
 */
export const parseFleetHaltReference = (
  reference: string,
  document: { readonly noun: string; readonly exampleTag: string } = { noun: 'a halt', exampleTag: 'stg-halt' },
): { readonly host: string; readonly repo: string; readonly tag: string } | { readonly problem: string } => {
  const MEANING = meaningFor(document.exampleTag);
  if (reference.includes('@'))
    return { problem: `names a digest; ${MEANING} (the tag is what ${document.noun} is published under)` };
  const onHub = reference.replace(DOCKER_HUB, '');
  const host = onHub === reference ? HOST.exec(reference)?.[1] : undefined;
  const path = host === undefined ? onHub : reference.slice(host.length + 1);
  const colon = path.lastIndexOf(':');
  if (colon < 0) return { problem: `has no tag; ${MEANING}` };
  const repo = path.slice(0, colon);
  const tag = path.slice(colon + 1);
  if (!REPOSITORY.test(repo)) return { problem: `names no repository of the form namespace/name; ${MEANING}` };
  if (!TAG.test(tag)) return { problem: `has a tag that is not a valid image tag; ${MEANING}` };
  return { host: host ?? 'docker.io', repo, tag };
};

const read = (env: Readonly<Record<string, string | undefined>>, name: string): string | undefined => {
  const value = env[name]?.trim();
  return value === '' ? undefined : value;
};

/**
 * Parse FLEET_HALT_REF and FLEET_HALT_EXIT. Unset FLEET_HALT_REF gives no
 * config, and FLEET_HALT_EXIT is then only checked for its value. The trust
 * the halt is verified with is VERIFY_SIGNATURES's (signature-config.ts,
 * `neededBy`): its absence is named there.
 */
export const parseFleetHaltConfig = (
  env: Readonly<Record<string, string | undefined>>,
): { readonly config: FleetHaltConfig | undefined; readonly problems: readonly ConfigError[] } => {
  const problems: ConfigError[] = [];
  const exitRaw = read(env, ENV.fleetHaltExit);
  if (exitRaw !== undefined && exitRaw !== '0' && exitRaw !== '1') {
    problems.push({
      variable: ENV.fleetHaltExit,
      value: exitRaw,
      problem: 'must be "1" (a halt that holds a change back exits 1) or "0" (it exits 0, a decision, not a fault)',
    });
  }
  const reference = read(env, ENV.fleetHaltRef);
  if (reference === undefined) return { config: undefined, problems };
  const parsed = parseFleetHaltReference(reference);
  if ('problem' in parsed) {
    problems.push({ variable: ENV.fleetHaltRef, value: reference, problem: parsed.problem });
    return { config: undefined, problems };
  }
  return { config: { reference, ...parsed, exitOnHold: exitRaw === '1' }, problems };
};
