import { describeWorkload, type TickOutcome } from '@image-refresh/core';

// The last line of every tick: enough to read the Job's outcome from
// `kubectl logs` without scrolling — never only from the Job's colour (#1964).
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
  ].join(' ');
};
