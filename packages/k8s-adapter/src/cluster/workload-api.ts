import { describeWorkload, type PortError, type WorkloadRef } from '@image-refresh/core';
import { PatchStrategy } from '@kubernetes/client-node';
import type * as E from 'fp-ts/lib/Either.js';
import { pipe } from 'fp-ts/lib/function.js';
import * as TE from 'fp-ts/lib/TaskEither.js';
import { type AppsApi, patchAs } from './apps-api.js';
import { callApi } from './call-api.js';
import { type WorkloadSnapshot, workloadSnapshot } from './workload-snapshot.js';

// The three requests the adapter makes, on either kind of workload: read it,
// merge-patch its annotations, strategic-merge-patch its containers. Each is
// one bounded request whose answer becomes a checked snapshot.

export type AnnotationChanges = Readonly<Record<string, string | null>>;

/** The field manager of every write, so managedFields can tell our changes from a human's or Helm's. */
export const FIELD_MANAGER = 'image-refresh';

/** How every write is sent: under which field manager, and whether as a server-side dry run. */
export interface WriteOptions {
  readonly fieldManager: string;
  /**
   * `tick --dry-run` (as `kubectl --dry-run=server`): the request carries
   * dryRun=All, so the API server runs authorization, admission and
   * validation on it and persists nothing.
   */
  readonly dryRun: boolean;
}

const toSnapshot =
  (ref: WorkloadRef) =>
  (object: unknown): E.Either<PortError, WorkloadSnapshot> =>
    workloadSnapshot(ref, object);

/** GET the workload. */
export const readWorkload = (apps: AppsApi, ref: WorkloadRef): TE.TaskEither<PortError, WorkloadSnapshot> =>
  pipe(
    callApi(apps, `GET ${describeWorkload(ref)} in ${ref.namespace}`, 'read', (api, options) =>
      ref.kind === 'Deployment'
        ? api.readNamespacedDeployment({ name: ref.name, namespace: ref.namespace }, options)
        : api.readNamespacedDaemonSet({ name: ref.name, namespace: ref.namespace }, options),
    ),
    TE.chainEitherK(toSnapshot(ref)),
  );

const patch = (
  apps: AppsApi,
  ref: WorkloadRef,
  what: string,
  strategy: PatchStrategy,
  body: object,
  { fieldManager, dryRun }: WriteOptions,
): TE.TaskEither<PortError, unknown> =>
  callApi(apps, `PATCH (${what}) ${describeWorkload(ref)} in ${ref.namespace}`, 'write', (api, options) => {
    const request = {
      name: ref.name,
      namespace: ref.namespace,
      body,
      fieldManager,
      ...(dryRun ? { dryRun: 'All' } : {}),
    };
    return ref.kind === 'Deployment'
      ? api.patchNamespacedDeployment(request, patchAs(strategy, options))
      : api.patchNamespacedDaemonSet(request, patchAs(strategy, options));
  });

/**
 * One JSON merge patch of metadata.annotations (`null` removes a key). The
 * answer is the patched object; it is returned unchecked, for the caller to
 * refresh what it knows — the write itself already succeeded.
 */
export const patchAnnotations = (
  apps: AppsApi,
  ref: WorkloadRef,
  changes: AnnotationChanges,
  write: WriteOptions,
): TE.TaskEither<PortError, unknown> =>
  patch(apps, ref, 'annotations', PatchStrategy.MergePatch, { metadata: { annotations: changes } }, write);

/**
 * One strategic merge patch carrying every container's new image (I16: one
 * patch, one rollout). spec.template.spec.containers merges by `name`, so the
 * other containers and every other field of these are left alone.
 */
export const patchContainerImages = (
  apps: AppsApi,
  ref: WorkloadRef,
  images: readonly { readonly container: string; readonly image: string }[],
  write: WriteOptions,
): TE.TaskEither<PortError, unknown> =>
  patch(
    apps,
    ref,
    'container images',
    PatchStrategy.StrategicMergePatch,
    {
      spec: { template: { spec: { containers: images.map(({ container, image }) => ({ name: container, image })) } } },
    },
    write,
  );
