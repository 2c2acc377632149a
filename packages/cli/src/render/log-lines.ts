import type { TickEvent } from '@image-refresh/core';

// The reference's stderr format: every line `[image-refresh] …`, so operators
// keep grepping what they grep today. Hints continue under their event. The
// CLI adds a few events of its own (cluster source, rollout progress, registry
// budget, dry-run intentions) with codes outside the tick's.
export const PREFIX = '[image-refresh]';

export type LogEvent = Omit<TickEvent, 'code'> & { readonly code: string };

export const logLines = (event: LogEvent): string[] => [
  `${PREFIX} ${event.message}`,
  ...(event.hints ?? []).map((hint) => `${PREFIX}   ${hint}`),
];

/** `--json`: one object per line, same codes and messages. */
export const jsonLine = (event: LogEvent): string => JSON.stringify(event);
