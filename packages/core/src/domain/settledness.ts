// Is a workload settled? The same meaning as `kubectl rollout status`
// succeeding (kubectl pkg/polymorphichelpers/rollout_status.go): the checks run
// in kubectl's order and every "not yet" says what it waits for, with numbers.
// The adapter fetches; this decides. Pure.

/**
 * Is a workload settled, by `kubectl rollout status`'s rules: `Settled`
 * (rolled out), `Waiting` (not yet; the reason says for what, with numbers),
 * or `Failed` (will never finish on its own: progress deadline exceeded, a
 * DaemonSet that is not RollingUpdate). Only `Settled` lets a tick act (I1).
 */
export type Settledness =
  | { readonly _tag: 'Settled'; readonly message: string }
  | { readonly _tag: 'Waiting'; readonly reason: string }
  | { readonly _tag: 'Failed'; readonly reason: string };

export const settled = (message: string): Settledness => ({ _tag: 'Settled', message });
export const waiting = (reason: string): Settledness => ({ _tag: 'Waiting', reason });
export const failed = (reason: string): Settledness => ({ _tag: 'Failed', reason });

/** The fields of an apps/v1 Deployment that rollout status reads. */
export interface DeploymentRolloutView {
  readonly name: string;
  readonly generation: number;
  /** spec.replicas; the API server defaults an absent value to 1. */
  readonly specReplicas: number;
  readonly observedGeneration: number;
  readonly replicas: number;
  readonly updatedReplicas: number;
  readonly availableReplicas: number;
  readonly conditions: readonly { readonly type: string; readonly reason?: string | undefined }[];
}

/** The fields of an apps/v1 DaemonSet that rollout status reads. */
export interface DaemonSetRolloutView {
  readonly name: string;
  readonly updateStrategy: string;
  readonly generation: number;
  readonly observedGeneration: number;
  readonly desiredNumberScheduled: number;
  readonly updatedNumberScheduled: number;
  readonly numberAvailable: number;
}

/**
 * A Deployment's {@link Settledness}, checked in kubectl's order: spec
 * observed, progress deadline, updated replicas, old replicas gone, updated
 * replicas available. Pure; the adapter fetches, this decides.
 */
export const deploymentSettledness = (d: DeploymentRolloutView): Settledness => {
  if (d.generation > d.observedGeneration) {
    return waiting(`Waiting for deployment "${d.name}" spec update to be observed...`);
  }
  const progressing = d.conditions.find((c) => c.type === 'Progressing');
  if (progressing?.reason === 'ProgressDeadlineExceeded') {
    return failed(`deployment "${d.name}" exceeded its progress deadline`);
  }
  if (d.updatedReplicas < d.specReplicas) {
    return waiting(
      `Waiting for deployment "${d.name}" rollout to finish: ${d.updatedReplicas} out of ${d.specReplicas} new replicas have been updated...`,
    );
  }
  if (d.replicas > d.updatedReplicas) {
    return waiting(
      `Waiting for deployment "${d.name}" rollout to finish: ${d.replicas - d.updatedReplicas} old replicas are pending termination...`,
    );
  }
  if (d.availableReplicas < d.updatedReplicas) {
    return waiting(
      `Waiting for deployment "${d.name}" rollout to finish: ${d.availableReplicas} of ${d.updatedReplicas} updated replicas are available...`,
    );
  }
  return settled(`deployment "${d.name}" successfully rolled out`);
};

/**
 * A DaemonSet's {@link Settledness}, checked in kubectl's order. An OnDelete
 * DaemonSet is `Failed`, never settled: its rollout only happens when
 * someone deletes pods. Pure.
 */
export const daemonSetSettledness = (ds: DaemonSetRolloutView): Settledness => {
  // kubectl reports OnDelete as "done" with an error; a rollout that only
  // happens when someone deletes pods is never "settled" for us.
  if (ds.updateStrategy !== 'RollingUpdate') {
    return failed(
      `daemon set "${ds.name}" uses the ${ds.updateStrategy || 'unknown'} update strategy; rollout status is only available for RollingUpdate`,
    );
  }
  if (ds.generation > ds.observedGeneration) {
    return waiting(`Waiting for daemon set "${ds.name}" spec update to be observed...`);
  }
  if (ds.updatedNumberScheduled < ds.desiredNumberScheduled) {
    return waiting(
      `Waiting for daemon set "${ds.name}" rollout to finish: ${ds.updatedNumberScheduled} out of ${ds.desiredNumberScheduled} new pods have been updated...`,
    );
  }
  if (ds.numberAvailable < ds.desiredNumberScheduled) {
    return waiting(
      `Waiting for daemon set "${ds.name}" rollout to finish: ${ds.numberAvailable} of ${ds.desiredNumberScheduled} updated pods are available...`,
    );
  }
  return settled(`daemon set "${ds.name}" successfully rolled out`);
};

/** §3.2 — only a settled gate lets the tick act (I1, #546). */
export const isSettled = (settledness: Settledness): boolean => settledness._tag === 'Settled';
