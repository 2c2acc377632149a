import { describeWorkload, malformed, type PortError, type WorkloadRef } from '@image-refresh/core';
import type { V1Toleration } from '@kubernetes/client-node';
import * as E from 'fp-ts/lib/Either.js';
import { pipe } from 'fp-ts/lib/function.js';
import * as TE from 'fp-ts/lib/TaskEither.js';
import type { AppsApi } from '../cluster/apps-api.js';
import { callApi } from '../cluster/call-api.js';
import { type CoreApi, callCore } from './core-api.js';
import { MANAGED_BY, type WorkloadPodFacts } from './staging-pod.js';

// Where a workload runs now (docs/behaviour.md §3.5a): the nodes of its pods,
// found by its own selector — for a DaemonSet, every node it schedules on —
// and what a staging pod must copy of its pod template to be admitted there
// (the pull secrets, the tolerations).

export interface WorkloadPlacement {
  /** The workload's `spec.selector` as a label selector string. */
  readonly selector: string;
  readonly facts: WorkloadPodFacts;
}

const record = (value: unknown): Record<string, unknown> | undefined =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
const list = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);

/** `matchLabels` and `matchExpressions` as the `labelSelector` query takes them. */
export const labelSelectorOf = (selector: unknown): string | undefined => {
  const s = record(selector);
  const labels = Object.entries(record(s?.matchLabels) ?? {}).map(([k, v]) => `${k}=${String(v)}`);
  const expressions = list(s?.matchExpressions).map((raw) => {
    const e = record(raw) ?? {};
    const values = list(e.values).map(String).join(',');
    switch (e.operator) {
      case 'In':
        return `${String(e.key)} in (${values})`;
      case 'NotIn':
        return `${String(e.key)} notin (${values})`;
      case 'Exists':
        return String(e.key);
      case 'DoesNotExist':
        return `!${String(e.key)}`;
      default:
        return undefined;
    }
  });
  if (expressions.includes(undefined)) return undefined;
  const all = [...labels, ...(expressions as string[])];
  return all.length === 0 ? undefined : all.join(',');
};

/** The workload's selector and pod template facts, from one GET of it. */
export const readPlacement = (apps: AppsApi, ref: WorkloadRef): TE.TaskEither<PortError, WorkloadPlacement> =>
  pipe(
    callApi(apps, `GET ${describeWorkload(ref)} in ${ref.namespace}`, 'read', (api, options) =>
      ref.kind === 'Deployment'
        ? api.readNamespacedDeployment({ name: ref.name, namespace: ref.namespace }, options)
        : api.readNamespacedDaemonSet({ name: ref.name, namespace: ref.namespace }, options),
    ),
    TE.chainEitherK((object: unknown) => {
      const spec = record(record(object)?.spec);
      const selector = labelSelectorOf(spec?.selector);
      if (selector === undefined) {
        return E.left(malformed(`${describeWorkload(ref)} has no selector this tick can list its pods by`));
      }
      const podSpec = record(record(spec?.template)?.spec);
      return E.right({
        selector,
        facts: {
          imagePullSecrets: list(podSpec?.imagePullSecrets).flatMap((s) => {
            const name = record(s)?.name;
            return typeof name === 'string' && name !== '' ? [{ name }] : [];
          }),
          // Copied as the API server answered them: it validated them already.
          tolerations: list(podSpec?.tolerations).flatMap((t) => {
            const toleration = record(t);
            return toleration === undefined ? [] : [toleration as V1Toleration];
          }),
        },
      });
    }),
  );

/** The nodes the workload's pods run on now, each once, in order; staging pods themselves left out. */
export const nodesOf = (
  core: CoreApi,
  ref: WorkloadRef,
  selector: string,
): TE.TaskEither<PortError, readonly string[]> =>
  pipe(
    callCore(core, `LIST pods of ${describeWorkload(ref)} in ${ref.namespace}`, 'read', (api, options) =>
      api.listNamespacedPod({ namespace: ref.namespace, labelSelector: selector }, options),
    ),
    TE.map((pods: unknown) => {
      const nodes = list(record(pods)?.items).flatMap((pod) => {
        const object = record(pod);
        if (record(record(object?.metadata)?.labels)?.[MANAGED_BY.key] === MANAGED_BY.value) return [];
        const node = record(object?.spec)?.nodeName;
        return typeof node === 'string' && node !== '' ? [node] : [];
      });
      return [...new Set(nodes)].sort();
    }),
  );
