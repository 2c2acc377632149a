import type { LogEvent } from './log-lines.js';

// `tick --dry-run` printed "re-imaging control-plane workloads (attempt 1/3)",
// "set image …", "rollout complete", "re-image complete", "updating
// deployment annotations" and "tick complete" beside its "would …" lines
// (docs/behaviour.md §3, Dry run): an operator grepping a dry run's log for
// what happened found what did not. Every line of a dry run says it is one; a
// line that reports an action in a real run's words says it would, or is left
// out where the dry-run port's own "would …" line already says it.

/** Lines the dry-run port's "would set image / wait for / annotate" lines stand for. */
const SAID_BY_THE_PORT = new Set(['SET_IMAGE', 'ROLLOUT_COMPLETE', 'REIMAGE_COMPLETE', 'RECORDING_DIGESTS', 'STAGED']);

/** A real run's words for an action, and how a dry run says them. */
const WOULD: readonly (readonly [RegExp, string])[] = [
  [/^re-imaging (.*) \(attempt/, 'would re-image $1 (attempt'],
  [/^tick complete$/, 'would have completed the tick; nothing was written or re-imaged'],
  // PREPULL (docs/behaviour.md §3.5a): the port's "would stage …" lines say where; no pod is started.
  [/^staging (.*) before switching them/, 'would stage $1 before switching them'],
  [/^decoupled re-image complete;/, 'the decoupled re-image would complete;'],
  [/-- clearing /, '-- would clear '],
  [/; recording without re-imaging$/, '; would record without re-imaging'],
  // An interrupted dry run wrote nothing, whatever its pretend writes would have left.
  [/^(interrupted by SIG\w+ [^:]*): .*$/, '$1: nothing was written (dry run)'],
];

const PREFIX = 'dry-run: ';

const inDryRunWords = (message: string): string => {
  const rewritten = WOULD.reduce((text, [real, would]) => text.replace(real, would), message);
  return rewritten.trimStart().startsWith(PREFIX) ? rewritten : `${PREFIX}${rewritten}`;
};

/** The event as a dry run prints it, or undefined when the dry-run port's line already said it. */
export const dryRunEvent = (event: LogEvent): LogEvent | undefined => {
  if (SAID_BY_THE_PORT.has(event.code)) return undefined;
  const hints = event.hints?.map((hint) => `${PREFIX}${hint}`);
  return { ...event, message: inDryRunWords(event.message), ...(hints === undefined ? {} : { hints }) };
};
