import type { EventsPort, KubeEvent, PortError, TickConfig } from '@image-refresh/core';
import {
  ApiException,
  type AppsV1Api,
  type KubeConfig,
  PatchStrategy,
  setHeaderOptions,
} from '@kubernetes/client-node';
import * as E from 'fp-ts/lib/Either.js';
import type { TaskEither } from 'fp-ts/lib/TaskEither.js';
import { createAppsApi } from '../cluster/apps-api.js';
import { classifyApiError } from '../cluster/classify-api-error.js';
import { type CoreApi, createCoreApi } from './core-api.js';

// Kubernetes Events on the jobs-manager Deployment (issue 6). One Event per
// reason, named after it, so a reason that repeats — a skip streak, a flap
// lockout — updates one Event and its count instead of piling up a new one
// every 15 minutes. The Role grants exactly events create+patch: an existing
// Event is found by the 409 its create gets, not by a read.

export const REPORTING_COMPONENT = 'tracebloc.io/image-refresh';

export interface EventsPortOptions {
  /** Who is reporting, e.g. the pod's name (HOSTNAME); shown by kubectl as the source. */
  readonly reportingInstance?: string;
  /** The clock, for firstTimestamp/lastTimestamp; injectable for tests. */
  readonly now?: () => Date;
}

/** `stg-jobs-manager.image-refresh.refreshfrozen`: stable per Deployment and reason. */
export const eventName = (deployment: string, reason: string): string =>
  `${deployment}.image-refresh.${reason.toLowerCase()}`.slice(0, 253);

const isConflict = (e: unknown): boolean => e instanceof ApiException && e.code === 409;

export const createEventsPort = (
  kubeConfig: KubeConfig,
  config: TickConfig,
  options: EventsPortOptions = {},
): EventsPort => {
  const now = options.now ?? (() => new Date());
  const core: E.Either<PortError, CoreApi> = createCoreApi(kubeConfig, config.apiTimeoutMs);
  const namespace = config.releaseNamespace;
  const deployment = config.deploymentName;
  // `kubectl describe deployment` lists the Events whose involvedObject.uid is
  // the Deployment's; the uid is read once, lazily, and its absence (an
  // unreadable Deployment is itself a finding) only hides the Event from
  // describe, never from `kubectl get events`.
  let uid: Promise<string | undefined> | undefined;
  const deploymentUid = (): Promise<string | undefined> => {
    uid ??= E.match(
      () => Promise.resolve(undefined),
      (apps: { api: AppsV1Api }) =>
        apps.api
          .readNamespacedDeployment({ name: deployment, namespace })
          .then((d) => d.metadata?.uid)
          .catch(() => undefined),
    )(createAppsApi(kubeConfig, config.apiTimeoutMs));
    return uid;
  };

  const record =
    (event: KubeEvent): TaskEither<PortError, void> =>
    async () => {
      if (E.isLeft(core)) return core;
      const { api, timeoutMs, secrets } = core.right;
      const name = eventName(deployment, event.reason);
      const what = `record Event ${event.reason} (events/${name} in ${namespace})`;
      const at = now().toISOString();
      const involvedUid = await deploymentUid();
      try {
        try {
          await api.createNamespacedEvent({
            namespace,
            body: {
              metadata: { name, namespace },
              involvedObject: {
                apiVersion: 'apps/v1',
                kind: 'Deployment',
                name: deployment,
                namespace,
                ...(involvedUid === undefined ? {} : { uid: involvedUid }),
              },
              type: event.type,
              reason: event.reason,
              message: event.message,
              count: 1,
              firstTimestamp: new Date(at),
              lastTimestamp: new Date(at),
              source: { component: 'image-refresh' },
              reportingComponent: REPORTING_COMPONENT,
              reportingInstance: options.reportingInstance ?? 'image-refresh',
            },
          });
          return E.right(undefined);
        } catch (e) {
          if (!isConflict(e)) throw e;
        }
        // Already there: the same reason again. Update it, then count it from
        // the count the update returned (a JSON merge patch cannot increment).
        const asMerge = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);
        const updated = await api.patchNamespacedEvent(
          { name, namespace, body: { type: event.type, message: event.message, lastTimestamp: at } },
          asMerge,
        );
        await api.patchNamespacedEvent({ name, namespace, body: { count: (updated.count ?? 1) + 1 } }, asMerge);
        return E.right(undefined);
      } catch (e) {
        return E.left(classifyApiError(e, { what, timeoutMs, secrets }));
      }
    };
  return { record };
};
