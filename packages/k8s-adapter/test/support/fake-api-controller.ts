import type { FakeKind } from './fake-api-objects.js';
import { isObject, type JsonObject } from './fake-api-patch.js';
import { runsNeverReadyBuild } from './never-ready-build.js';

// A tiny stand-in for the deployment and daemonset controllers: after a spec
// change it writes the status a real rollout of that behaviour would go
// through, step by step, so `kubectl rollout status` and the adapter see the
// same sequence a cluster would show them. The behaviours mirror the core
// simulator's (settles / stalls / flaps / neverReady) plus the two ends a
// real rollout can meet that the simulator folds away.

export type RolloutBehaviour =
  /** Every rollout completes: new pods come up, then become available. */
  | 'settles'
  /** The new pods are created but never become available; no progress deadline. */
  | 'stalls'
  /** A new pod Runs but is never Ready: the old one is kept (#1964's edge). */
  | 'neverReady'
  /** As neverReady, then the Deployment's progress deadline passes (kubectl: error). */
  | 'progressDeadline'
  /** The controller never observes the new generation (controller-manager down). */
  | 'unobserved'
  /** Settles, then the new pods stop being available again. */
  | 'flaps';

export interface StatusStep {
  /** After how many steps (each `stepMs`) of the spec change this status is written. */
  readonly step: number;
  /** Or after this many milliseconds, whatever the step length (a deadline of the object's own). */
  readonly afterMs?: number;
  readonly status: JsonObject;
}

const num = (value: unknown, fallback: number): number => (typeof value === 'number' ? value : fallback);

const deploymentSteps = (object: JsonObject, behaviour: RolloutBehaviour): StatusStep[] => {
  const spec = isObject(object.spec) ? object.spec : {};
  const metadata = isObject(object.metadata) ? object.metadata : {};
  const replicas = num(spec.replicas, 1);
  const observedGeneration = num(metadata.generation, 1);
  const progressing = (status: string, reason: string) => ({ type: 'Progressing', status, reason });
  const available = (ok: boolean) => ({
    type: 'Available',
    status: ok ? 'True' : 'False',
    reason: ok ? 'MinimumReplicasAvailable' : 'MinimumReplicasUnavailable',
  });
  const status = (r: number, updated: number, avail: number, conditions: JsonObject[]): JsonObject => ({
    observedGeneration,
    replicas: r,
    updatedReplicas: updated,
    readyReplicas: avail,
    availableReplicas: avail,
    ...(r > updated ? { unavailableReplicas: r - avail } : {}),
    conditions,
  });
  const starting = status(replicas, replicas, 0, [available(false), progressing('True', 'ReplicaSetUpdated')]);
  const done = status(replicas, replicas, replicas, [available(true), progressing('True', 'NewReplicaSetAvailable')]);
  const oldKept = status(replicas + 1, replicas, replicas, [available(true), progressing('True', 'ReplicaSetUpdated')]);
  switch (behaviour) {
    case 'settles':
      return [
        { step: 1, status: starting },
        { step: 2, status: done },
      ];
    case 'stalls':
      return [{ step: 1, status: starting }];
    case 'neverReady':
      return [{ step: 1, status: oldKept }];
    case 'progressDeadline':
      return [
        { step: 1, status: oldKept },
        {
          step: 2,
          status: { ...oldKept, conditions: [available(true), progressing('False', 'ProgressDeadlineExceeded')] },
        },
      ];
    case 'unobserved':
      return [];
    case 'flaps':
      return [
        { step: 1, status: starting },
        { step: 2, status: done },
        {
          step: 3,
          status: status(replicas, replicas, 0, [available(false), progressing('True', 'NewReplicaSetAvailable')]),
        },
      ];
  }
};

const daemonSetSteps = (object: JsonObject, behaviour: RolloutBehaviour): StatusStep[] => {
  const metadata = isObject(object.metadata) ? object.metadata : {};
  const current = isObject(object.status) ? object.status : {};
  const nodes = num(current.desiredNumberScheduled, 3);
  const observedGeneration = num(metadata.generation, 1);
  const status = (updated: number, avail: number): JsonObject => ({
    observedGeneration,
    currentNumberScheduled: nodes,
    desiredNumberScheduled: nodes,
    numberMisscheduled: 0,
    numberReady: avail,
    updatedNumberScheduled: updated,
    numberAvailable: avail,
    ...(avail < nodes ? { numberUnavailable: nodes - avail } : {}),
  });
  switch (behaviour) {
    case 'settles':
      return [
        { step: 1, status: status(nodes, nodes - 1) },
        { step: 2, status: status(nodes, nodes) },
      ];
    case 'stalls':
    case 'progressDeadline':
      return [{ step: 1, status: status(nodes, nodes - 1) }];
    case 'neverReady':
      return [{ step: 1, status: status(1, nodes - 1) }];
    case 'unobserved':
      return [];
    case 'flaps':
      return [
        { step: 1, status: status(nodes, nodes - 1) },
        { step: 2, status: status(nodes, nodes) },
        { step: 3, status: status(nodes, 0) },
      ];
  }
};

/**
 * A never-ready build's rollout (never-ready-build.ts), whatever the object's
 * behaviour: the new pod Runs, unready, and the old one is kept; a Deployment
 * reports ProgressDeadlineExceeded once its own progressDeadlineSeconds have
 * passed, in real time, as the Deployment controller does.
 */
const neverReadySteps = (kind: FakeKind, object: JsonObject): StatusStep[] => {
  const steps = kind === 'Deployment' ? deploymentSteps(object, 'neverReady') : daemonSetSteps(object, 'neverReady');
  if (kind !== 'Deployment') return steps;
  const spec = isObject(object.spec) ? object.spec : {};
  const deadlineMs = num(spec.progressDeadlineSeconds, 600) * 1_000;
  const [kept] = deploymentSteps(object, 'progressDeadline').slice(-1);
  return kept === undefined ? steps : [...steps, { step: 0, afterMs: deadlineMs, status: kept.status }];
};

/** The statuses the controller writes after a spec change of `object` (already at its new generation). */
export const rolloutSteps = (kind: FakeKind, object: JsonObject, behaviour: RolloutBehaviour): StatusStep[] =>
  runsNeverReadyBuild(object)
    ? neverReadySteps(kind, object)
    : kind === 'Deployment'
      ? deploymentSteps(object, behaviour)
      : daemonSetSteps(object, behaviour);
