// A tool that keeps an edge's state in a JSON file instead of a cluster: its
// own ClusterPort and RegistryPort on that file, and ticks run with runTick.
// Usage: node dist/json-file-ports.js <state.json>   (config from the environment;
// with IMAGE_REFRESH_PROFILE=<profile.json>, that topology instead of the chart's)
import { readFileSync, writeFileSync } from 'node:fs';
import {
  type BookkeepingChanges,
  type ClusterPort,
  describeConfigError,
  describeWorkload,
  notFound,
  parseTickConfig,
  type RegistryPort,
  runTick,
  type Settledness,
} from '@image-refresh/core';
import * as E from 'fp-ts/lib/Either.js';
import * as O from 'fp-ts/lib/Option.js';
import * as TE from 'fp-ts/lib/TaskEither.js';

interface State {
  annotations: Record<string, string>;
  images: Record<string, Record<string, string>>;
  registry: Record<string, string>;
}
const file = process.argv[2] ?? 'state.json';
const load = (): State => JSON.parse(readFileSync(file, 'utf8')) as State;
const change = (edit: (s: State) => void) =>
  TE.fromIO(() => {
    const state = load();
    edit(state);
    writeFileSync(file, JSON.stringify(state, null, 2));
  });
const annotate = (changes: BookkeepingChanges) =>
  change((s) => {
    for (const [key, value] of Object.entries(changes)) {
      if (value === null) delete s.annotations[key];
      else s.annotations[key] = value;
    }
  });
const settled: Settledness = { _tag: 'Settled', message: 'a file is always settled' };

// The topology: a profile document, parsed and checked by core with the rest of the environment.
const profileFile = process.env.IMAGE_REFRESH_PROFILE;
const profile: unknown = profileFile === undefined ? undefined : JSON.parse(readFileSync(profileFile, 'utf8'));
const config = parseTickConfig(process.env, profile);
if (E.isLeft(config)) {
  for (const problem of config.left) console.error(describeConfigError(problem));
  process.exit(2);
}
const gate = config.right.topology.gate.id;

const cluster: ClusterPort = {
  // Every read: the whole object, bookkeeping annotations included; a file is always settled.
  readGate: () =>
    TE.fromIO(() => {
      const state = load();
      return {
        settledness: settled,
        annotations: state.annotations,
        images: state.images[gate] ?? {},
        imageOwners: {},
      };
    }),
  // Every bookkeeping write: core decides the changes, the port applies exactly those.
  patchBookkeeping: annotate,
  observeWorkload: (w) =>
    TE.fromIO(() => ({ settledness: settled, images: load().images[w.id] ?? {}, imageOwners: {} })),
  setImages: (w, images) => {
    const before = load().images[w.id] ?? {};
    return TE.map(() => ({ changed: images.some((i) => before[i.container] !== i.image) }))(
      change((s) => {
        s.images[w.id] = { ...s.images[w.id], ...Object.fromEntries(images.map((i) => [i.container, i.image])) };
      }),
    );
  },
  waitForRollout: () => TE.right(undefined),
};

const registry: RegistryPort = {
  resolveDigests: (requests) => () =>
    Promise.resolve(
      requests.map(({ repo }) => {
        const digest = load().registry[repo];
        return digest === undefined
          ? E.left(notFound(`${repo} is not in ${file}`))
          : E.right({ digest, rateLimitRemaining: O.none });
      }),
    ),
};

const outcome = await runTick(config.right, { cluster, registry });
const writes = outcome.writes.map((w) => w.kind).join(',') || '-';
const reimaged = outcome.reimages.map((r) => describeWorkload(r.workload)).join(',') || '-';
console.log(`${outcome.result} exit=${outcome.exitCode} writes=${writes} reimaged=${reimaged}`);
process.exitCode = outcome.exitCode;
