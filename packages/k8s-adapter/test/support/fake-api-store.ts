import { type RolloutBehaviour, rolloutSteps } from './fake-api-controller.js';
import { updateManagedFields } from './fake-api-managed-fields.js';
import type { FakeKind } from './fake-api-objects.js';
import {
  applyMergePatch,
  applyStrategicMergePatch,
  clone,
  isObject,
  type Json,
  type JsonObject,
} from './fake-api-patch.js';

// The fake API server's objects: Deployments and DaemonSets in memory, with
// what clients rely on — a resourceVersion bumped on every write, a
// metadata.generation bumped only when the spec changes, managedFields, watch
// subscribers told of every change, and a controller that writes status after
// a spec change according to the object's rollout behaviour.

export type PatchType = 'merge' | 'strategic';

export type WatchEvent = { readonly type: 'ADDED' | 'MODIFIED' | 'DELETED'; readonly object: JsonObject };

interface Watcher {
  readonly kind: FakeKind;
  readonly namespace: string;
  readonly name: string | undefined;
  readonly send: (event: WatchEvent) => void;
}

interface Entry {
  object: JsonObject;
  behaviour: RolloutBehaviour;
}

const keyOf = (kind: FakeKind, namespace: string, name: string) => `${kind}/${namespace}/${name}`;

const meta = (object: JsonObject): JsonObject => {
  if (!isObject(object.metadata)) object.metadata = {};
  return object.metadata as JsonObject;
};

const nameOf = (object: JsonObject): string => String(meta(object).name);
const namespaceOf = (object: JsonObject): string => String(meta(object).namespace);

export class FakeApiStore {
  private readonly entries = new Map<string, Entry>();
  private readonly watchers = new Set<Watcher>();
  private readonly timers = new Set<ReturnType<typeof setTimeout>>();
  private revision = 100;
  private uid = 0;

  /** How long each controller step takes after a spec change. */
  stepMs = 20;

  get resourceVersion(): string {
    return String(this.revision);
  }

  /** Seeds an object as Helm would have created it: generation 1, owned by `helm`. */
  put(object: JsonObject, behaviour: RolloutBehaviour = 'settles'): void {
    const copy = clone(object);
    const kind = copy.kind as FakeKind;
    const m = meta(copy);
    m.generation = 1;
    m.uid = `00000000-0000-4000-8000-${String(++this.uid).padStart(12, '0')}`;
    m.creationTimestamp = '2026-01-01T00:00:00Z';
    m.resourceVersion = this.bump();
    m.managedFields = updateManagedFields(undefined, copy, 'helm', new Date('2026-01-01T00:00:00Z'));
    this.entries.set(keyOf(kind, namespaceOf(copy), nameOf(copy)), { object: copy, behaviour });
    this.notify(kind, 'ADDED', copy);
  }

  get(kind: FakeKind, namespace: string, name: string): JsonObject | undefined {
    const entry = this.entries.get(keyOf(kind, namespace, name));
    return entry === undefined ? undefined : clone(entry.object);
  }

  list(kind: FakeKind, namespace: string, name: string | undefined): JsonObject[] {
    return [...this.entries.values()]
      .map((e) => e.object)
      .filter((o) => o.kind === kind && namespaceOf(o) === namespace && (name === undefined || nameOf(o) === name))
      .map((o) => clone(o));
  }

  /** The namespaces that hold an object. */
  namespaces(): Set<string> {
    return new Set([...this.entries.values()].map((e) => namespaceOf(e.object)));
  }

  delete(kind: FakeKind, namespace: string, name: string): void {
    const key = keyOf(kind, namespace, name);
    const entry = this.entries.get(key);
    if (entry === undefined) return;
    this.entries.delete(key);
    meta(entry.object).resourceVersion = this.bump();
    this.notify(kind, 'DELETED', entry.object);
  }

  setBehaviour(kind: FakeKind, namespace: string, name: string, behaviour: RolloutBehaviour): void {
    this.entry(kind, namespace, name).behaviour = behaviour;
  }

  /** Overwrites status fields, as the controller would (a test's way to start unsettled). */
  setStatus(kind: FakeKind, namespace: string, name: string, status: JsonObject): void {
    const entry = this.entry(kind, namespace, name);
    entry.object.status = { ...(isObject(entry.object.status) ? entry.object.status : {}), ...clone(status) };
    meta(entry.object).resourceVersion = this.bump();
    this.notify(kind, 'MODIFIED', entry.object);
  }

  /**
   * Applies a PATCH as the apiserver would. Throws the patch module's
   * BadPatch/Unmodelled for the server to answer; undefined when absent.
   */
  patch(
    kind: FakeKind,
    namespace: string,
    name: string,
    type: PatchType,
    body: Json,
    fieldManager: string,
    options: { readonly dryRun?: boolean } = {},
  ): JsonObject | undefined {
    const entry = this.entries.get(keyOf(kind, namespace, name));
    if (entry === undefined) return undefined;
    const before = entry.object;
    const apply = type === 'merge' ? applyMergePatch : applyStrategicMergePatch;
    const patched = apply(before, body);
    if (!isObject(patched)) throw new TypeError('a patch turned the object into a non-object');
    // The apiserver ignores what a client says about these.
    const m = meta(patched);
    const old = meta(before);
    const kept = ['name', 'namespace', 'uid', 'creationTimestamp', 'generation', 'resourceVersion', 'managedFields'];
    for (const key of kept) {
      m[key] = clone(old[key] ?? null);
    }
    patched.status = clone(before.status ?? {});
    const specChanged = JSON.stringify(patched.spec) !== JSON.stringify(before.spec);
    // The apiserver bumps a Deployment's generation for an annotation change too (its
    // strategy: annotations are copied to the ReplicaSets), never a DaemonSet's.
    const annotationsChanged = JSON.stringify(m.annotations ?? {}) !== JSON.stringify(old.annotations ?? {});
    const generationMoves = specChanged || (kind === 'Deployment' && annotationsChanged);
    const anyChange = specChanged || JSON.stringify(m) !== JSON.stringify(old);
    if (!anyChange) return clone(before);
    m.managedFields = updateManagedFields(before, patched, fieldManager, new Date());
    if (generationMoves) m.generation = Number(old.generation ?? 0) + 1;
    // A dry run answers the object the write would make, and keeps the one there is.
    if (options.dryRun === true) return clone(patched);
    m.resourceVersion = this.bump();
    entry.object = patched;
    this.notify(kind, 'MODIFIED', patched);
    if (specChanged) this.runController(kind, namespace, name, entry);
    else if (generationMoves) this.observeGeneration(kind, namespace, name, entry);
    return clone(patched);
  }

  watch(kind: FakeKind, namespace: string, name: string | undefined, send: (event: WatchEvent) => void): () => void {
    const watcher: Watcher = { kind, namespace, name, send };
    this.watchers.add(watcher);
    return () => this.watchers.delete(watcher);
  }

  /** Cancels the controller's pending steps and forgets every watcher. */
  stop(): void {
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    this.watchers.clear();
  }

  private entry(kind: FakeKind, namespace: string, name: string): Entry {
    const entry = this.entries.get(keyOf(kind, namespace, name));
    if (entry === undefined) throw new Error(`fake API store: no ${kind} ${namespace}/${name}`);
    return entry;
  }

  private bump(): string {
    this.revision += 1;
    return String(this.revision);
  }

  private notify(kind: FakeKind, type: WatchEvent['type'], object: JsonObject): void {
    for (const w of this.watchers) {
      if (w.kind !== kind || w.namespace !== namespaceOf(object)) continue;
      if (w.name !== undefined && w.name !== nameOf(object)) continue;
      w.send({ type, object: clone(object) });
    }
  }

  /**
   * A generation with no spec change (a Deployment's annotations): the controller observes it at once,
   * having nothing to roll, and nothing else moves — unless the controller is down ('unobserved').
   */
  private observeGeneration(kind: FakeKind, namespace: string, name: string, entry: Entry): void {
    if (entry.behaviour === 'unobserved') return;
    const generation = meta(entry.object).generation;
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      const current = this.entries.get(keyOf(kind, namespace, name));
      if (current === undefined || meta(current.object).generation !== generation) return;
      this.setStatus(kind, namespace, name, { observedGeneration: generation as number });
    }, 0);
    this.timers.add(timer);
  }

  private runController(kind: FakeKind, namespace: string, name: string, entry: Entry): void {
    const generation = meta(entry.object).generation;
    for (const { step, afterMs, status } of rolloutSteps(kind, entry.object, entry.behaviour)) {
      const timer = setTimeout(
        () => {
          this.timers.delete(timer);
          const current = this.entries.get(keyOf(kind, namespace, name));
          // A newer spec change supersedes this rollout's remaining steps.
          if (current === undefined || meta(current.object).generation !== generation) return;
          this.setStatus(kind, namespace, name, status);
        },
        afterMs ?? step * this.stepMs,
      );
      this.timers.add(timer);
    }
  }
}
