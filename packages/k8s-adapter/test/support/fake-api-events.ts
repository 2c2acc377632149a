import { applyMergePatch, clone, isObject, type Json, type JsonObject } from './fake-api-patch.js';

// Events for the fake API server, as the apiserver keeps them: one object,
// written through events.k8s.io/v1 (the adapter's Events port) and readable
// through core/v1 too (`kubectl get events`, `kubectl describe`), converted
// field by field the way the apiserver converts between the two versions.

export type EventAnswer = { readonly code: number; readonly body: Json | { message: string; reason?: string } };

/** events.k8s.io/v1 → core/v1, for readers of the core view. */
const asCoreV1 = (event: JsonObject): JsonObject => {
  const core: JsonObject = {
    apiVersion: 'v1',
    kind: 'Event',
    metadata: clone(event.metadata ?? {}),
    involvedObject: clone(event.regarding ?? {}),
    reason: event.reason ?? null,
    message: event.note ?? null,
    type: event.type ?? null,
    count: event.deprecatedCount ?? null,
    firstTimestamp: event.deprecatedFirstTimestamp ?? null,
    lastTimestamp: event.deprecatedLastTimestamp ?? null,
    source: clone(event.deprecatedSource ?? {}),
    eventTime: event.eventTime ?? null,
    action: event.action ?? null,
    reportingComponent: event.reportingController ?? null,
    reportingInstance: event.reportingInstance ?? null,
  };
  if (event.series !== undefined) core.series = clone(event.series);
  return core;
};

export class FakeEvents {
  private readonly byKey = new Map<string, JsonObject>();
  private version = 0;

  /** Every Event, in creation order, as core/v1 shows it. */
  all(): JsonObject[] {
    return [...this.byKey.values()].map(asCoreV1);
  }

  /** Every Event as written through events.k8s.io/v1. */
  allEventsV1(): JsonObject[] {
    return [...this.byKey.values()].map((e) => clone(e));
  }

  create(namespace: string, body: Json): EventAnswer {
    if (!isObject(body) || !isObject(body.metadata) || typeof body.metadata.name !== 'string') {
      return { code: 422, body: { message: 'Event is invalid: metadata.name: Required value', reason: 'Invalid' } };
    }
    if (body.eventTime === undefined || body.eventTime === null) {
      return { code: 422, body: { message: 'Event is invalid: eventTime: Required value', reason: 'Invalid' } };
    }
    const name = body.metadata.name;
    const key = `${namespace}/${name}`;
    if (this.byKey.has(key)) {
      return { code: 409, body: { message: `events.events.k8s.io "${name}" already exists`, reason: 'AlreadyExists' } };
    }
    this.version += 1;
    const event: JsonObject = {
      ...clone(body),
      apiVersion: 'events.k8s.io/v1',
      kind: 'Event',
      metadata: {
        ...clone(body.metadata),
        namespace,
        resourceVersion: String(this.version),
        uid: `event-${this.version}`,
      },
    };
    this.byKey.set(key, event);
    return { code: 201, body: event };
  }

  patch(namespace: string, name: string, patch: Json): EventAnswer {
    const key = `${namespace}/${name}`;
    const event = this.byKey.get(key);
    if (event === undefined) {
      return { code: 404, body: { message: `events.events.k8s.io "${name}" not found`, reason: 'NotFound' } };
    }
    this.version += 1;
    const patched = applyMergePatch(clone(event), patch) as JsonObject;
    (patched.metadata as JsonObject).resourceVersion = String(this.version);
    this.byKey.set(key, patched);
    return { code: 200, body: patched };
  }

  get(namespace: string, name: string, view: 'events.k8s.io/v1' | 'v1'): EventAnswer {
    const event = this.byKey.get(`${namespace}/${name}`);
    if (event === undefined) return { code: 404, body: { message: `events "${name}" not found`, reason: 'NotFound' } };
    return { code: 200, body: view === 'v1' ? asCoreV1(event) : clone(event) };
  }

  list(namespace: string, view: 'events.k8s.io/v1' | 'v1'): JsonObject {
    const items = [...this.byKey.values()].filter((e) => (e.metadata as JsonObject).namespace === namespace);
    return {
      kind: 'EventList',
      apiVersion: view,
      metadata: { resourceVersion: String(this.version) },
      items: items.map((e) => (view === 'v1' ? asCoreV1(e) : clone(e))),
    };
  }
}
