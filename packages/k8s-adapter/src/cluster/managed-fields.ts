// Who changed a workload's containers, from metadata.managedFields: one line
// per field manager that owns part of spec.template.spec.containers, and which
// containers' images it owns. setImages writes as the field manager
// `image-refresh`, so a live reconcile can tell its own image changes from a
// human's `kubectl set image` (manager `kubectl-set`) or a `helm upgrade`.

/** A field manager that owns part of a workload's containers (from metadata.managedFields). */
export interface ContainerFieldOwner {
  /** `helm`, `image-refresh`, `kubectl-set`, … */
  readonly manager: string;
  /** `Update` or `Apply`. */
  readonly operation: string;
  /** When this manager last changed a field it owns (RFC 3339), if the server said. */
  readonly time: string | undefined;
  /** Containers whose `image` this manager owns. */
  readonly imagesOf: readonly string[];
}

/** At most this many entries are summarised: a bounded answer for a log line. */
const MAX_ENTRIES = 20;

const child = (node: unknown, key: string): unknown =>
  typeof node === 'object' && node !== null ? (node as Record<string, unknown>)[key] : undefined;

const containersOwned = (fieldsV1: unknown): unknown =>
  child(child(child(child(fieldsV1, 'f:spec'), 'f:template'), 'f:spec'), 'f:containers');

/** `k:{"name":"api"}` → `api` */
const containerName = (key: string): string | undefined => {
  if (!key.startsWith('k:')) return undefined;
  try {
    const name = (JSON.parse(key.slice(2)) as { name?: unknown }).name;
    return typeof name === 'string' ? name : undefined;
  } catch (_notAKey) {
    // A key of another shape names no container; it is left out of imagesOf.
    return undefined;
  }
};

const timeOf = (time: unknown): string | undefined => {
  if (time instanceof Date) return Number.isNaN(time.getTime()) ? undefined : time.toISOString();
  return typeof time === 'string' ? time : undefined;
};

export const containerFieldOwners = (managedFields: unknown): readonly ContainerFieldOwner[] => {
  if (!Array.isArray(managedFields)) return [];
  return managedFields.slice(0, MAX_ENTRIES).flatMap((entry: unknown): ContainerFieldOwner[] => {
    const owned = containersOwned(child(entry, 'fieldsV1'));
    if (typeof owned !== 'object' || owned === null) return [];
    const imagesOf = Object.entries(owned as Record<string, unknown>)
      .filter(([, fields]) => child(fields, 'f:image') !== undefined)
      .flatMap(([key]) => {
        const name = containerName(key);
        return name === undefined ? [] : [name];
      });
    const manager = child(entry, 'manager');
    const operation = child(entry, 'operation');
    return [
      {
        manager: typeof manager === 'string' ? manager : '(unnamed)',
        operation: typeof operation === 'string' ? operation : '(unknown)',
        time: timeOf(child(entry, 'time')),
        imagesOf,
      },
    ];
  });
};
