import { applyMergePatch, clone, isObject, type Json, type JsonObject } from './fake-api-patch.js';

// core/v1 Events for the fake API server: create (409 when the name exists,
// as the apiserver answers), JSON merge patch, get and list. Enough for the
// adapter's Events port and for `kubectl get events`.

export type EventAnswer = { readonly code: number; readonly body: Json | { message: string; reason?: string } };

export class FakeEvents {
  private readonly byKey = new Map<string, JsonObject>();
  private version = 0;

  /** Every Event, in creation order. */
  all(): JsonObject[] {
    return [...this.byKey.values()].map((e) => clone(e));
  }

  create(namespace: string, body: Json): EventAnswer {
    if (!isObject(body) || !isObject(body.metadata) || typeof body.metadata.name !== 'string') {
      return { code: 422, body: { message: 'Event is invalid: metadata.name: Required value', reason: 'Invalid' } };
    }
    const name = body.metadata.name;
    const key = `${namespace}/${name}`;
    if (this.byKey.has(key)) {
      return { code: 409, body: { message: `events "${name}" already exists`, reason: 'AlreadyExists' } };
    }
    this.version += 1;
    const event: JsonObject = {
      ...clone(body),
      apiVersion: 'v1',
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
    if (event === undefined) return { code: 404, body: { message: `events "${name}" not found`, reason: 'NotFound' } };
    this.version += 1;
    const patched = applyMergePatch(clone(event), patch) as JsonObject;
    (patched.metadata as JsonObject).resourceVersion = String(this.version);
    this.byKey.set(key, patched);
    return { code: 200, body: patched };
  }

  get(namespace: string, name: string): EventAnswer {
    const event = this.byKey.get(`${namespace}/${name}`);
    return event === undefined
      ? { code: 404, body: { message: `events "${name}" not found`, reason: 'NotFound' } }
      : { code: 200, body: clone(event) };
  }

  list(namespace: string): JsonObject {
    return {
      kind: 'EventList',
      apiVersion: 'v1',
      metadata: { resourceVersion: String(this.version) },
      items: this.all().filter((e) => (e.metadata as JsonObject).namespace === namespace),
    };
  }
}
