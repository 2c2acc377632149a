import type { TickEvent } from '@image-refresh/core';

// The reference's stderr format: every line `[image-refresh] …`, so operators
// keep grepping what they grep today. Hints continue under their event.
export const PREFIX = '[image-refresh]';

export const logLines = (event: TickEvent): string[] => [
  `${PREFIX} ${event.message}`,
  ...(event.hints ?? []).map((hint) => `${PREFIX}   ${hint}`),
];

/** `--json`: one object per line, same codes and messages. */
export const jsonLine = (event: TickEvent): string => JSON.stringify(event);
