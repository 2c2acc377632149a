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
import { createEventsApi, type EventsApi } from './events-api.js';

// Kubernetes Events on the jobs-manager Deployment (issue 6). One Event per
// reason, named after it, so a reason that repeats — a skip streak, a flap
// lockout — updates one Event and its count instead of piling up a new one
// every 15 minutes. The Role grants exactly events create+patch: an existing
// Event is found by the 409 its create gets, not by a read.

/** events.k8s.io's reportingController (core/v1 shows it as reportingComponent). */
export const REPORTING_CONTROLLER = 'tracebloc.io/image-refresh';

/** What a caller may tune on `createEventsPort`; every field is optional. */
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

/**
 * Core's `EventsPort` on the Kubernetes API (events.k8s.io/v1): records the
 * Events a tick hands it (findings, warnings, skips, re-images: core's
 * `kubernetesEventsFor`) on the jobs-manager Deployment, where `kubectl
 * describe` and `kubectl get events` show them. One
 * Event per reason, named after the Deployment and the reason: a reason
 * recorded again updates that Event and its count (create, then on 409 two
 * merge patches — the Role needs only events create and patch).
 *
 * Errors are classified `PortError` values like the cluster port's, never
 * thrown; core turns a failed Event into a WARN line and nothing else (I18b).
 *
 * @param kubeConfig - e.g. `loadClusterConfig(process.env)`'s.
 * @param config - names the namespace and Deployment; bounds each request by `apiTimeoutMs`.
 * @param options - the reporting instance (the pod name), a clock for tests.
 */
export const createEventsPort = (
  kubeConfig: KubeConfig,
  config: TickConfig,
  options: EventsPortOptions = {},
): EventsPort => {
  const now = options.now ?? (() => new Date());
  const events: E.Either<PortError, EventsApi> = createEventsApi(kubeConfig, config.apiTimeoutMs);
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
      if (E.isLeft(events)) return events;
      const { api, timeoutMs, secrets } = events.right;
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
              regarding: {
                apiVersion: 'apps/v1',
                kind: 'Deployment',
                name: deployment,
                namespace,
                ...(involvedUid === undefined ? {} : { uid: involvedUid }),
              },
              type: event.type,
              reason: event.reason,
              action: 'Refresh',
              note: event.message,
              eventTime: new Date(at),
              deprecatedCount: 1,
              deprecatedFirstTimestamp: new Date(at),
              deprecatedLastTimestamp: new Date(at),
              deprecatedSource: { component: 'image-refresh' },
              reportingController: REPORTING_CONTROLLER,
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
          { name, namespace, body: { type: event.type, note: event.message, deprecatedLastTimestamp: at } },
          asMerge,
        );
        const count = (updated.deprecatedCount ?? 1) + 1;
        await api.patchNamespacedEvent(
          { name, namespace, body: { deprecatedCount: count, series: { count, lastObservedTime: at } } },
          asMerge,
        );
        return E.right(undefined);
      } catch (e) {
        return E.left(classifyApiError(e, { what, timeoutMs, secrets }));
      }
    };
  return { record };
};
