import {
  decodeProblem,
  invalidMessage,
  validateEventCreate,
  validateEventUpdate,
} from './fake-api-events-validation.js';
import { applyMergePatch, clone, isObject, type Json, type JsonObject } from './fake-api-patch.js';

// Events for the fake API server, as the apiserver keeps them: one object,
// written through events.k8s.io/v1 (the adapter's Events port) and readable
// through core/v1 too (`kubectl get events`, `kubectl describe`), converted
// field by field the way the apiserver converts between the two versions.
// Writes are decoded and validated as a real apiserver does
// (fake-api-events-validation.ts): a 400 for what cannot be decoded, a 422
// Invalid naming each field for what events.go refuses — the deprecated*
// fields on a create, any change but `series` and metadata on a patch.

export type EventAnswer = { readonly code: number; readonly body: Json | { message: string; reason?: string } };

/** events.k8s.io/v1 → core/v1, for readers of the core view (zero values as the apiserver omits or nulls them). */
const asCoreV1 = (event: JsonObject): JsonObject => {
  const core: JsonObject = {
    apiVersion: 'v1',
    kind: 'Event',
    metadata: clone(event.metadata ?? {}),
    involvedObject: clone(event.regarding ?? {}),
    reason: event.reason ?? null,
    message: event.note ?? null,
    type: event.type ?? null,
    firstTimestamp: event.deprecatedFirstTimestamp ?? null,
    lastTimestamp: event.deprecatedLastTimestamp ?? null,
    source: clone(event.deprecatedSource ?? {}),
    eventTime: event.eventTime ?? null,
    action: event.action ?? null,
    reportingComponent: event.reportingController ?? null,
    reportingInstance: event.reportingInstance ?? null,
  };
  // `count` is omitempty in core/v1: an Event written through events.k8s.io/v1 has none.
  if (typeof event.deprecatedCount === 'number' && event.deprecatedCount !== 0) core.count = event.deprecatedCount;
  if (event.series !== undefined && event.series !== null) core.series = clone(event.series);
  return core;
};

const invalid = (name: string, errors: readonly string[]): EventAnswer => ({
  code: 422,
  body: { message: invalidMessage(name, errors), reason: 'Invalid' },
});

const badRequest = (message: string): EventAnswer => ({ code: 400, body: { message, reason: 'BadRequest' } });

/** How often an Event was recorded: its series count (events.k8s.io/v1), or 1 before any repeat. */
export const seriesCount = (event: JsonObject): number => Number((event.series as JsonObject | undefined)?.count ?? 1);

export class FakeEvents {
  private readonly byKey = new Map<string, JsonObject>();
  private version = 0;

  /** Every Event, in creation order, as core/v1 shows it. */
  all(): JsonObject[] {
    return [...this.byKey.values()].map(asCoreV1);
  }

  /** Every Event as `type reason ×n`, n its series count (1 before any repeat), sorted. */
  counted(): string[] {
    return this.all()
      .map((e) => `${String(e.type)} ${String(e.reason)} ×${seriesCount(e)}`)
      .sort();
  }

  /** Every Event as written through events.k8s.io/v1. */
  allEventsV1(): JsonObject[] {
    return [...this.byKey.values()].map((e) => clone(e));
  }

  create(namespace: string, body: Json): EventAnswer {
    if (!isObject(body)) return badRequest('Event in version "v1" cannot be handled as a Event: not an object');
    const undecodable = decodeProblem(body);
    if (undecodable !== undefined) return badRequest(undecodable);
    const metadata = isObject(body.metadata) ? body.metadata : {};
    if (typeof metadata.namespace === 'string' && metadata.namespace !== namespace) {
      return badRequest('the namespace of the provided object does not match the namespace sent on the request');
    }
    const name = typeof metadata.name === 'string' ? metadata.name : '';
    const errors = validateEventCreate(namespace, body);
    if (errors.length > 0) return invalid(name, errors);
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
        ...clone(metadata),
        namespace,
        resourceVersion: String(this.version),
        uid: `event-${this.version}`,
      },
    };
    this.byKey.set(key, event);
    return { code: 201, body: event };
  }

  /** A JSON merge patch, validated as the update it makes; a patch that changes nothing writes nothing. */
  patch(namespace: string, name: string, patch: Json): EventAnswer {
    const key = `${namespace}/${name}`;
    const event = this.byKey.get(key);
    if (event === undefined) {
      return { code: 404, body: { message: `events.events.k8s.io "${name}" not found`, reason: 'NotFound' } };
    }
    const patched = applyMergePatch(clone(event), patch);
    if (!isObject(patched)) return badRequest('the patch does not leave an object');
    const undecodable = decodeProblem(patched);
    if (undecodable !== undefined) return badRequest(undecodable);
    const errors = validateEventUpdate(namespace, patched, event);
    if (errors.length > 0) return invalid(name, errors);
    if (JSON.stringify(patched) === JSON.stringify(event)) return { code: 200, body: clone(event) };
    this.version += 1;
    (patched.metadata as JsonObject).resourceVersion = String(this.version);
    this.byKey.set(key, patched);
    return { code: 200, body: clone(patched) };
  }

  /** The apiserver's --event-ttl running out: the Event is gone (a later patch is a 404, a create starts it again). */
  expire(namespace: string, name: string): void {
    this.byKey.delete(`${namespace}/${name}`);
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
