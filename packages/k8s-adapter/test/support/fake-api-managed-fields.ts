import { isObject, type Json, type JsonObject } from './fake-api-patch.js';

// metadata.managedFields as the apiserver keeps them for Update operations:
// one entry per (manager, operation); the fields an update changed become that
// manager's and leave every other manager's set; a manager left with no field
// disappears. Enough for a client to tell who last set a container's image.

/** Lists the apiserver keys by a field (`k:{"name":"api"}`) instead of treating them as one value. */
const LIST_KEYS: Readonly<Record<string, string>> = { containers: 'name', initContainers: 'name', env: 'name' };

type Leaves = Map<string, string>;

const leavesOf = (value: Json, path: readonly string[], into: Leaves): void => {
  if (isObject(value)) {
    for (const [key, child] of Object.entries(value)) {
      const listKey = LIST_KEYS[key];
      if (Array.isArray(child) && listKey !== undefined) {
        for (const item of child) {
          const id = isObject(item) ? item[listKey] : undefined;
          if (id === undefined) continue;
          leavesOf(item, [...path, `f:${key}`, `k:${JSON.stringify({ [listKey]: id })}`], into);
        }
      } else {
        leavesOf(child, [...path, `f:${key}`], into);
      }
    }
    return;
  }
  into.set(JSON.stringify(path), JSON.stringify(value));
};

/** The fields a manager can own: labels, annotations and the spec. */
const ownableLeaves = (object: JsonObject): Leaves => {
  const leaves: Leaves = new Map();
  const metadata = isObject(object.metadata) ? object.metadata : {};
  for (const section of ['labels', 'annotations'] as const) {
    const value = metadata[section];
    if (value !== undefined) leavesOf(value, ['f:metadata', `f:${section}`], leaves);
  }
  if (object.spec !== undefined) leavesOf(object.spec, ['f:spec'], leaves);
  return leaves;
};

/** Nested FieldsV1: `{"f:spec":{"f:template":{… "k:{\"name\":\"api\"}":{".":{},"f:image":{}}}}}` */
const toFieldsV1 = (paths: ReadonlySet<string>): JsonObject => {
  const root: JsonObject = {};
  for (const encoded of [...paths].sort()) {
    let node = root;
    for (const segment of JSON.parse(encoded) as string[]) {
      const next = isObject(node[segment]) ? (node[segment] as JsonObject) : {};
      if (segment.startsWith('k:')) next['.'] = {};
      node[segment] = next;
      node = next;
    }
  }
  return root;
};

const fromFieldsV1 = (fields: Json, path: readonly string[], into: Set<string>): void => {
  if (!isObject(fields)) return;
  const children = Object.entries(fields).filter(([key]) => key !== '.');
  if (children.length === 0 && path.length > 0 && !path[path.length - 1]?.startsWith('k:')) {
    into.add(JSON.stringify(path));
    return;
  }
  for (const [key, child] of children) fromFieldsV1(child, [...path, key], into);
};

interface Entry {
  manager: string;
  operation: string;
  apiVersion: string;
  time: string;
  fields: Set<string>;
}

const entriesOf = (object: JsonObject): Entry[] => {
  const metadata = isObject(object.metadata) ? object.metadata : {};
  const list = Array.isArray(metadata.managedFields) ? metadata.managedFields : [];
  return list.filter(isObject).map((e) => {
    const fields = new Set<string>();
    fromFieldsV1(e.fieldsV1 ?? null, [], fields);
    return {
      manager: String(e.manager),
      operation: String(e.operation),
      apiVersion: String(e.apiVersion),
      time: String(e.time),
      fields,
    };
  });
};

/** The managedFields after `manager` changed `before` into `after` with an Update. */
export const updateManagedFields = (
  before: JsonObject | undefined,
  after: JsonObject,
  manager: string,
  now: Date,
): Json[] => {
  const old = before === undefined ? new Map<string, string>() : ownableLeaves(before);
  const next = ownableLeaves(after);
  const changed = [...next].filter(([path, value]) => old.get(path) !== value).map(([path]) => path);
  const removed = [...old.keys()].filter((path) => !next.has(path));
  const entries = before === undefined ? [] : entriesOf(before);
  for (const entry of entries) {
    for (const path of [...changed, ...removed]) entry.fields.delete(path);
  }
  if (changed.length > 0) {
    const apiVersion = typeof after.apiVersion === 'string' ? after.apiVersion : 'apps/v1';
    const time = now.toISOString().replace(/\.\d{3}Z$/, 'Z');
    const mine = entries.find((e) => e.manager === manager && e.operation === 'Update');
    if (mine === undefined) {
      entries.push({ manager, operation: 'Update', apiVersion, time, fields: new Set(changed) });
    } else {
      for (const path of changed) mine.fields.add(path);
      mine.time = time;
    }
  }
  return entries
    .filter((e) => e.fields.size > 0)
    .map((e) => ({
      manager: e.manager,
      operation: e.operation,
      apiVersion: e.apiVersion,
      time: e.time,
      fieldsType: 'FieldsV1',
      fieldsV1: toFieldsV1(e.fields),
    }));
};
