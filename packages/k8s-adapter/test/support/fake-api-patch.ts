// The PATCH bodies the fake API server understands — JSON merge patch and
// strategic merge patch, the two that real kubectl (annotate, set image) and
// the adapter send — applied the way the apiserver applies them, as far as
// those clients use them. JSON patch is not modelled: neither client sends it,
// and it is client-node's default, so a call that forgot to force its content
// type is refused instead of passing. A directive or operation we do not model is
// an `Unmodelled` answer: the server turns it into a 501 and records it as
// unexpected, so a new kind of patch can never pass silently.

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

export class Unmodelled extends Error {}
export class BadPatch extends Error {}

export const isObject = (value: unknown): value is JsonObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

export const clone = <T extends Json>(value: T): T => structuredClone(value);

/** RFC 7386: objects merge recursively, `null` deletes, anything else replaces. */
export const applyMergePatch = (target: Json, patch: Json): Json => {
  if (!isObject(patch)) return clone(patch);
  const result: JsonObject = isObject(target) ? clone(target) : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete result[key];
    else result[key] = applyMergePatch(result[key] ?? null, value);
  }
  return result;
};

/**
 * Lists that a strategic merge patch merges by a key instead of replacing
 * (the `patchMergeKey` of the Kubernetes Go types), for the fields of a
 * Deployment/DaemonSet our clients touch. Any other list is replaced.
 */
const MERGE_KEYS: Readonly<Record<string, string>> = {
  containers: 'name',
  initContainers: 'name',
  ephemeralContainers: 'name',
  env: 'name',
  volumes: 'name',
  volumeMounts: 'mountPath',
  ports: 'containerPort',
  imagePullSecrets: 'name',
  conditions: 'type',
};

const SET_ELEMENT_ORDER = '$setElementOrder/';

/** Strategic merge patch (k8s.io/apimachinery strategicpatch), the subset kubectl and the adapter send. */
export const applyStrategicMergePatch = (target: Json, patch: Json): Json => {
  if (!isObject(patch)) return clone(patch);
  const result: JsonObject = isObject(target) ? clone(target) : {};
  const directive = patch.$patch;
  if (directive === 'replace') {
    const { $patch: _drop, ...rest } = patch;
    return clone(rest);
  }
  if (directive !== undefined && directive !== 'merge') {
    throw new Unmodelled(`strategic merge patch directive $patch=${JSON.stringify(directive)} is not modelled`);
  }
  const orders = new Map<string, Json[]>();
  for (const [key, value] of Object.entries(patch)) {
    if (key === '$patch') continue;
    if (key.startsWith(SET_ELEMENT_ORDER)) {
      if (!Array.isArray(value)) throw new BadPatch(`${key} must be a list`);
      orders.set(key.slice(SET_ELEMENT_ORDER.length), value);
      continue;
    }
    if (key.startsWith('$')) throw new Unmodelled(`strategic merge patch directive ${key} is not modelled`);
    if (value === null) {
      delete result[key];
      continue;
    }
    const mergeKey = MERGE_KEYS[key];
    const current = result[key];
    result[key] =
      Array.isArray(value) && mergeKey !== undefined
        ? mergeList(Array.isArray(current) ? current : [], value, mergeKey)
        : applyStrategicMergePatch(current ?? null, value);
  }
  for (const [key, order] of orders) {
    const list = result[key];
    const mergeKey = MERGE_KEYS[key];
    if (Array.isArray(list) && mergeKey !== undefined) result[key] = ordered(list, order, mergeKey);
  }
  return result;
};

const keyOf = (item: Json, mergeKey: string): Json | undefined => (isObject(item) ? item[mergeKey] : undefined);

const mergeList = (current: readonly Json[], patch: readonly Json[], mergeKey: string): Json[] => {
  const result = current.map((item) => clone(item));
  for (const item of patch) {
    const key = keyOf(item, mergeKey);
    if (key === undefined) throw new BadPatch(`list item without its merge key "${mergeKey}"`);
    const index = result.findIndex((existing) => keyOf(existing, mergeKey) === key);
    if (isObject(item) && item.$patch === 'delete') {
      if (index >= 0) result.splice(index, 1);
      continue;
    }
    if (index >= 0) result[index] = applyStrategicMergePatch(result[index] ?? null, item);
    else result.push(applyStrategicMergePatch(null, item));
  }
  return result;
};

/** `$setElementOrder`: the listed items first, in that order; the rest after, as they were. */
const ordered = (list: readonly Json[], order: readonly Json[], mergeKey: string): Json[] => {
  const wanted = order.map((o) => keyOf(o, mergeKey));
  const first = wanted.flatMap((key) => list.filter((item) => keyOf(item, mergeKey) === key));
  const rest = list.filter((item) => !wanted.includes(keyOf(item, mergeKey)));
  return [...first, ...rest];
};
