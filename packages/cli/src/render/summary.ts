import { describeWorkload, type TickOutcome } from '@image-refresh/core';

// The last line of every tick: enough to read the Job's outcome from
// `kubectl logs` without scrolling — never only from the Job's colour (#1964),
// including how many images the registry did not answer this tick.
export const summaryLine = (outcome: TickOutcome): string => {
  const writes = outcome.writes.map((w) => w.kind);
  const reimages = outcome.reimages.map(
    (r) => `${describeWorkload(r.workload)}${r.rolledOut ? '' : ' (rollout not complete)'}`,
  );
  return [
    `summary: outcome=${outcome.result}`,
    `exit=${outcome.exitCode}`,
    `findings=${outcome.findings.length}`,
    `writes=${writes.length}${writes.length > 0 ? ` (${writes.join(', ')})` : ''}`,
    `re-images=${reimages.length}${reimages.length > 0 ? ` (${reimages.join(', ')})` : ''}`,
    // Appended, so parsers of the fields before it keep working (docs/behaviour.md §3.3).
    `unresolved=${outcome.unresolved?.length ?? 0}`,
  ].join(' ');
};
