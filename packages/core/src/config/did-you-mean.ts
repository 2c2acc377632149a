// A misspelled name is said, not silently ignored (docs/behaviour.md §2): the
// closest known name within two edits is offered beside it.

/** Levenshtein distance, case-sensitive: insertions, deletions and substitutions each cost one. */
export const editDistance = (a: string, b: string): number => {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1);
      current.push(Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, substitution));
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
};

/** The known name closest to `name` within `within` edits (the first of equals), if any. */
export const closestName = (name: string, known: readonly string[], within = 2): string | undefined => {
  let best: { readonly name: string; readonly distance: number } | undefined;
  for (const candidate of known) {
    const distance = editDistance(name, candidate);
    if (distance <= within && (best === undefined || distance < best.distance)) best = { name: candidate, distance };
  }
  return best?.name;
};
