import {
  type DaemonSetRolloutView,
  type DeploymentRolloutView,
  daemonSetSettledness,
  deploymentSettledness,
  describeWorkload,
  malformed,
  type PortError,
  type Settledness,
  type WorkloadRef,
} from '@image-refresh/core';
import * as E from 'fp-ts/lib/Either.js';
import { pipe } from 'fp-ts/lib/function.js';
import { type ContainerFieldOwner, containerFieldOwners } from './managed-fields.js';

// A workload as a plain value: what the tick and the CLI need of it, read
// once from the API object and checked on the way in. An answer that is not
// the object asked for, or whose fields have the wrong types, is Malformed —
// never read as zeros (a status of zeros could look settled, or a missing
// annotation could look like "nothing recorded": #626's bug class). Whether
// it is settled is decided by core's kubectl rules, not here.

/**
 * One workload as a plain, checked value — what `inspectWorkload` returns.
 * An API answer whose fields have the wrong types never becomes a snapshot
 * (it is `Malformed`, never read as zeros).
 */
export interface WorkloadSnapshot {
  /** The workload asked for. */
  readonly ref: WorkloadRef;
  /** metadata.generation. */
  readonly generation: number;
  /** metadata.resourceVersion. */
  readonly resourceVersion: string;
  /** metadata.uid ('' when the answer has none): unique per install, START_JITTER derives from it (§3.3). */
  readonly uid: string;
  /** By `kubectl rollout status`'s rules (core's deploymentSettledness / daemonSetSettledness). */
  readonly settledness: Settledness;
  /** container name → image, in the pod template's order. */
  readonly images: Readonly<Record<string, string>>;
  /** metadata.annotations; for the gate, the bookkeeping (the keys of core's topology). */
  readonly annotations: Readonly<Record<string, string>>;
  /** Field managers that own part of spec.template.spec.containers. */
  readonly containerOwners: readonly ContainerFieldOwner[];
}

type Check<A> = E.Either<string, A>;

const field = (node: unknown, key: string): unknown =>
  typeof node === 'object' && node !== null && !Array.isArray(node)
    ? (node as Record<string, unknown>)[key]
    : undefined;

/** An optional count: absent is the API's zero value (omitempty), anything but an integer ≥ 0 is malformed. */
const count = (node: unknown, key: string, path: string, absent: number): Check<number> => {
  const value = field(node, key);
  if (value === undefined || value === null) return E.right(absent);
  return typeof value === 'number' && Number.isInteger(value) && value >= 0
    ? E.right(value)
    : E.left(`${path}.${key} is ${JSON.stringify(value)}, not a count`);
};

const stringMap = (node: unknown, path: string): Check<Record<string, string>> => {
  if (node === undefined || node === null) return E.right({});
  if (typeof node !== 'object' || Array.isArray(node)) return E.left(`${path} is not a map`);
  const entries = Object.entries(node as Record<string, unknown>);
  const bad = entries.find(([, v]) => typeof v !== 'string');
  return bad === undefined
    ? E.right(Object.fromEntries(entries) as Record<string, string>)
    : E.left(`${path}["${bad[0]}"] is not a string`);
};

const containerImages = (spec: unknown): Check<Record<string, string>> => {
  const containers = field(field(field(spec, 'template'), 'spec'), 'containers');
  if (!Array.isArray(containers) || containers.length === 0) {
    return E.left('spec.template.spec.containers is missing or empty');
  }
  const images: [string, string][] = [];
  for (const c of containers) {
    const name = field(c, 'name');
    const image = field(c, 'image');
    if (typeof name !== 'string' || name === '') return E.left('a container of spec.template.spec has no name');
    if (image !== undefined && typeof image !== 'string') return E.left(`container ${name} has a non-string image`);
    images.push([name, image ?? '']);
  }
  // Own properties only, whatever the names: fromEntries never touches the prototype.
  return E.right(Object.fromEntries(images));
};

const conditionsOf = (status: unknown): Check<DeploymentRolloutView['conditions']> => {
  const conditions = field(status, 'conditions');
  if (conditions === undefined || conditions === null) return E.right([]);
  if (!Array.isArray(conditions)) return E.left('status.conditions is not a list');
  return E.right(
    conditions.map((c) => {
      const type = field(c, 'type');
      const reason = field(c, 'reason');
      return { type: typeof type === 'string' ? type : '', reason: typeof reason === 'string' ? reason : undefined };
    }),
  );
};

const deploymentView = (name: string, object: unknown, generation: number): Check<DeploymentRolloutView> => {
  const spec = field(object, 'spec');
  const status = field(object, 'status');
  return pipe(
    E.Do,
    // The apiserver defaults an absent spec.replicas to 1.
    E.apS('specReplicas', count(spec, 'replicas', 'spec', 1)),
    E.apS('observedGeneration', count(status, 'observedGeneration', 'status', 0)),
    E.apS('replicas', count(status, 'replicas', 'status', 0)),
    E.apS('updatedReplicas', count(status, 'updatedReplicas', 'status', 0)),
    E.apS('availableReplicas', count(status, 'availableReplicas', 'status', 0)),
    E.apS('conditions', conditionsOf(status)),
    E.map((v) => ({ name, generation, ...v })),
  );
};

const daemonSetView = (name: string, object: unknown, generation: number): Check<DaemonSetRolloutView> => {
  const status = field(object, 'status');
  const strategy = field(field(field(object, 'spec'), 'updateStrategy'), 'type');
  return pipe(
    E.Do,
    E.apS('observedGeneration', count(status, 'observedGeneration', 'status', 0)),
    E.apS('desiredNumberScheduled', count(status, 'desiredNumberScheduled', 'status', 0)),
    E.apS('updatedNumberScheduled', count(status, 'updatedNumberScheduled', 'status', 0)),
    E.apS('numberAvailable', count(status, 'numberAvailable', 'status', 0)),
    // An absent strategy is reported by core as "unknown", i.e. never settled.
    E.map((v) => ({ name, generation, updateStrategy: typeof strategy === 'string' ? strategy : '', ...v })),
  );
};

const settlednessOf = (ref: WorkloadRef, object: unknown, generation: number): Check<Settledness> =>
  ref.kind === 'Deployment'
    ? E.map(deploymentSettledness)(deploymentView(ref.name, object, generation))
    : E.map(daemonSetSettledness)(daemonSetView(ref.name, object, generation));

/** The API object (as client-node deserialized it) as a snapshot, or Malformed saying what is wrong. */
export const workloadSnapshot = (ref: WorkloadRef, object: unknown): E.Either<PortError, WorkloadSnapshot> => {
  const metadata = field(object, 'metadata');
  const kind = field(object, 'kind');
  const name = field(metadata, 'name');
  const checked = pipe(
    kind !== undefined && kind !== ref.kind
      ? E.left(`the answer is a ${JSON.stringify(kind)}, not a ${ref.kind}`)
      : name !== ref.name
        ? E.left(`the answer is named ${JSON.stringify(name)}, not "${ref.name}"`)
        : E.right(undefined),
    E.chain(() => count(metadata, 'generation', 'metadata', 0)),
    E.chain((generation) =>
      pipe(
        E.Do,
        E.apS('settledness', settlednessOf(ref, object, generation)),
        E.apS('images', containerImages(field(object, 'spec'))),
        E.apS('annotations', stringMap(field(metadata, 'annotations'), 'metadata.annotations')),
        E.map(
          (v): WorkloadSnapshot => ({
            ref,
            generation,
            resourceVersion: String(field(metadata, 'resourceVersion') ?? ''),
            uid: typeof field(metadata, 'uid') === 'string' ? String(field(metadata, 'uid')) : '',
            containerOwners: containerFieldOwners(field(metadata, 'managedFields')),
            ...v,
          }),
        ),
      ),
    ),
  );
  return E.mapLeft((problem: string) => malformed(`${describeWorkload(ref)}: unexpected answer: ${problem}`))(checked);
};

/**
 * container → the field manager that owns its image (to tell a container
 * changed by helm, I23). When several claim one (an Apply and an Update), the latest wins.
 */
export const imageOwnersOf = (snapshot: WorkloadSnapshot): Record<string, string> => {
  const owners: Record<string, { manager: string; time: string }> = {};
  for (const owner of snapshot.containerOwners) {
    for (const container of owner.imagesOf) {
      const time = owner.time ?? '';
      const known = owners[container];
      if (known === undefined || time >= known.time) owners[container] = { manager: owner.manager, time };
    }
  }
  return Object.fromEntries(Object.entries(owners).map(([container, { manager }]) => [container, manager]));
};
