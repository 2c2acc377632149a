// A misspelled name is said, not silently ignored (docs/behaviour.md §2): the
// closest known name within two edits is offered beside it.

/**
 * Levenshtein distance, case-sensitive: insertions, deletions and
 * substitutions each cost one. With a `ceiling`, the count stops at the first
 * row whose every cell is above it — no later row is less — and answers that
 * row's least: a distance above the ceiling, not necessarily the exact one.
 */
export const editDistance = (a: string, b: string, ceiling = Number.POSITIVE_INFINITY): number => {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    let least = i;
    for (let j = 1; j <= b.length; j++) {
      const substitution = (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1);
      const cell = Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, substitution);
      current.push(cell);
      least = Math.min(least, cell);
    }
    if (least > ceiling) return least;
    previous = current;
  }
  return previous[b.length] ?? 0;
};

/** The known name closest to `name` within `within` edits (the first of equals), if any. */
export const closestName = (name: string, known: readonly string[], within = 2): string | undefined => {
  let best: { readonly name: string; readonly distance: number } | undefined;
  for (const candidate of known) {
    // Names whose lengths differ by more than `within` are further apart than
    // that: the environment's many variables (a pod's service links add seven
    // each) are mostly ruled out here, before the quadratic distance
    // (README.md, Benchmarks).
    if (Math.abs(name.length - candidate.length) > within) continue;
    const distance = editDistance(name, candidate, within);
    if (distance <= within && (best === undefined || distance < best.distance)) best = { name: candidate, distance };
  }
  return best?.name;
};
