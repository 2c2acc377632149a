import type { EventsPort, KubeEvent, PortError, TickConfig } from '@image-refresh/core';
import {
  ApiException,
  type EventsV1Event,
  type KubeConfig,
  PatchStrategy,
  setHeaderOptions,
  V1MicroTime,
} from '@kubernetes/client-node';
import * as E from 'fp-ts/lib/Either.js';
import type { TaskEither } from 'fp-ts/lib/TaskEither.js';
import { type AppsApi, createAppsApi } from '../cluster/apps-api.js';
import type { CallOptions } from '../cluster/bounded-client.js';
import { classifyApiError } from '../cluster/classify-api-error.js';
import { eventName } from './event-name.js';
import { createEventsApi, type EventsApi } from './events-api.js';

// Kubernetes Events on the gate workload (I18b), written the way
// client-go's events.k8s.io recorder writes them, because that is all a real
// apiserver accepts (pkg/apis/core/validation/events.go): a create carries
// only the v1 fields (the deprecated* ones must be unset, eventTime is a
// MicroTime with six fractional digits), and a repeat changes nothing but
// `series` — note, type and reason are immutable. Which records are repeats
// of one Event is event-name.ts's decision. The Role grants exactly events
// create+patch: an existing Event is found by the 409 its create gets and
// read back by a patch that changes nothing, never by a get.

/** events.k8s.io's reportingController (core/v1 shows it as reportingComponent). */
export const REPORTING_CONTROLLER = 'tracebloc.io/image-refresh';

/** What a caller may tune on `createEventsPort`; every field is optional. */
export interface EventsPortOptions {
  /** Who is reporting, e.g. the pod's name (HOSTNAME); shown by kubectl as the source. */
  readonly reportingInstance?: string;
  /** The clock, for eventTime and series.lastObservedTime; injectable for tests. */
  readonly now?: () => Date;
  /** The tick's signal: once aborted, no request of this port is in flight. */
  readonly signal?: AbortSignal;
}

const hasStatus = (e: unknown, code: number): boolean => e instanceof ApiException && e.code === code;

const asMerge = (options: CallOptions) => setHeaderOptions('Content-Type', PatchStrategy.MergePatch, options);

/** An RBAC refusal (403), not a bad token (401, which a token re-read may cure). */
const isRbacRefusal = (e: PortError): boolean => e._tag === 'Forbidden';

const withRbacFix = (e: PortError, namespace: string): PortError => ({
  ...e,
  message: `${e.message} -- either namespace ${namespace} is not where the gate runs (a typo in its namespace: RELEASE_NAMESPACE, or the profile's), or this CronJob's ServiceAccount may not create and patch events in API group events.k8s.io there (Role rule: apiGroups ["events.k8s.io"], resources ["events"], verbs ["create", "patch"]); or set IMAGE_REFRESH_EVENTS=0 to record none. No further Event is sent by this run.`,
});

/**
 * Core's `EventsPort` on the Kubernetes API (events.k8s.io/v1): records the
 * Events a tick hands it (findings, warnings, skips, re-images: core's
 * `kubernetesEventsFor`) on the gate workload, where `kubectl
 * describe` and `kubectl get events` show them. A record whose Event already
 * exists (same Deployment, reason and note shape: `eventName`) counts itself
 * in that Event's series instead of piling up a new one.
 *
 * Errors are classified `PortError` values like the cluster port's, never
 * thrown; core turns a failed Event into a WARN line and nothing else (I18b).
 * After an RBAC refusal (403) the port sends nothing more: every later record
 * answers the same Forbidden at once, its message naming the fix.
 *
 * @param kubeConfig - e.g. `loadClusterConfig(process.env)`'s.
 * @param config - its topology's gate names the object the Events regard; bounds each request by `apiTimeoutMs`.
 * @param options - the reporting instance (the pod name), a clock for tests.
 */
export const createEventsPort = (
  kubeConfig: KubeConfig,
  config: TickConfig,
  options: EventsPortOptions = {},
): EventsPort => {
  const now = options.now ?? (() => new Date());
  const events: E.Either<PortError, EventsApi> = createEventsApi(kubeConfig, config.apiTimeoutMs, options.signal);
  const gate = config.topology.gate;
  const namespace = gate.namespace;
  const deployment = gate.name;
  // `kubectl describe deployment` lists the Events whose involvedObject.uid is
  // the gate's; the uid is read once, lazily, and its absence (an unreadable
  // gate is itself a finding) only hides the Event from describe, never from
  // `kubectl get events`.
  let uid: Promise<string | undefined> | undefined;
  const deploymentUid = (): Promise<string | undefined> => {
    uid ??= E.match(
      () => Promise.resolve(undefined),
      (apps: AppsApi) =>
        apps
          .request('read', (api, o) =>
            gate.kind === 'DaemonSet'
              ? api.readNamespacedDaemonSet({ name: deployment, namespace }, o)
              : api.readNamespacedDeployment({ name: deployment, namespace }, o),
          )
          .then((d) => d.metadata?.uid)
          .catch(() => undefined),
    )(createAppsApi(kubeConfig, config.apiTimeoutMs, { all: options.signal }));
    return uid;
  };
  /** The first RBAC refusal, with its fix; once set, no request is sent again. */
  let refused: PortError | undefined;

  const write = async (client: EventsApi, name: string, event: KubeEvent): Promise<void> => {
    const at = new V1MicroTime(now().getTime());
    const involvedUid = await deploymentUid();
    const body: EventsV1Event = {
      metadata: { name, namespace },
      regarding: {
        apiVersion: 'apps/v1',
        kind: gate.kind,
        name: deployment,
        namespace,
        ...(involvedUid === undefined ? {} : { uid: involvedUid }),
      },
      type: event.type,
      reason: event.reason,
      action: 'Refresh',
      note: event.message,
      eventTime: at,
      reportingController: REPORTING_CONTROLLER,
      reportingInstance: options.reportingInstance ?? 'image-refresh',
    };
    /** False when the Event already exists. */
    const created = async (): Promise<boolean> => {
      try {
        await client.request('write', (api, o) => api.createNamespacedEvent({ namespace, body }, o));
        return true;
      } catch (e) {
        if (hasStatus(e, 409)) return false;
        throw e;
      }
    };
    /** False when the Event is gone (the apiserver's event TTL ran out since the 409). */
    const counted = async (): Promise<boolean> => {
      try {
        // A merge patch cannot increment: a first, empty one returns the
        // Event as stored (and writes nothing), the second sets the count.
        const stored = await client.request('write', (api, o) =>
          api.patchNamespacedEvent({ name, namespace, body: {} }, asMerge(o)),
        );
        const count = (stored.series?.count ?? 1) + 1;
        await client.request('write', (api, o) =>
          api.patchNamespacedEvent({ name, namespace, body: { series: { count, lastObservedTime: at } } }, asMerge(o)),
        );
        return true;
      } catch (e) {
        if (hasStatus(e, 404)) return false;
        throw e;
      }
    };
    if ((await created()) || (await counted())) return;
    // Expired between the 409 and the patch: this record starts it again.
    await client.request('write', (api, o) => api.createNamespacedEvent({ namespace, body }, o));
  };

  const record =
    (event: KubeEvent): TaskEither<PortError, void> =>
    async () => {
      if (E.isLeft(events)) return events;
      const name = eventName(deployment, event.reason, event.message);
      const what = `record Event ${event.reason} (events/${name} in ${namespace})`;
      if (refused !== undefined) return E.left({ ...refused, message: `${what}: not sent -- ${refused.message}` });
      try {
        await write(events.right, name, event);
        return E.right(undefined);
      } catch (e) {
        const { timeoutMs, secrets } = events.right;
        const failure = classifyApiError(e, { what, timeoutMs, secrets });
        if (!isRbacRefusal(failure)) return E.left(failure);
        refused = withRbacFix(failure, namespace);
        return E.left(refused);
      }
    };
  return { record };
};
