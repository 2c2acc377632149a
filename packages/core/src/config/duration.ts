// Durations in the syntax kubectl's --timeout takes (Go's time.ParseDuration),
// because ROLLOUT_TIMEOUT was handed to `kubectl rollout status --timeout` by
// the reference: "10m", "300s", "1m30s", "1.5h". A bare number has no unit and
// kubectl rejects it; so do we, instead of guessing seconds or milliseconds.

const UNIT_MS: Readonly<Record<string, number>> = {
  ns: 1e-6,
  us: 1e-3,
  µs: 1e-3,
  ms: 1,
  s: 1_000,
  m: 60_000,
  h: 3_600_000,
};
// µ written as \u00b5: a regular expression keeps its characters as written
// in the bundle, and one non-ASCII character makes V8 hold the whole 1.2 MB
// bundle as a two-byte string (+1.1 MiB peak RSS on Node 24; README.md, Benchmarks).
const WHOLE =
  /^(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:ns|us|\u00b5s|ms|s|m|h)(?:(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:ns|us|\u00b5s|ms|s|m|h))*$/;
const PART = /([0-9]*\.?[0-9]*)(ns|us|\u00b5s|ms|s|m|h)/g;

/** Milliseconds, or undefined when the text is not a Go duration. */
export const parseDurationMs = (text: string): number | undefined => {
  if (!WHOLE.test(text)) return undefined;
  let total = 0;
  for (const [, amount, unit] of text.matchAll(PART)) {
    // Stryker disable next-line StringLiteral: PART's unit group is not optional, a match always has it; `?? ''` only narrows the type
    total += Number(amount) * (UNIT_MS[unit ?? ''] ?? Number.NaN);
  }
  return Number.isFinite(total) ? total : undefined;
};

/**
 * A duration the way Go and kubectl print it, without zero parts: `450ms`,
 * `1.5s`, `1m30s`, `10m`, `1h5s`. The one formatter for every log line, so
 * ROLLOUT_TIMEOUT reads the same in the tick's lines and the adapter's
 * progress lines, and `parseDurationMs` reads it back.
 */
export const formatDuration = (ms: number): string => {
  const whole = Math.max(0, Math.round(ms));
  if (whole < 1_000) return `${whole}ms`;
  const h = Math.floor(whole / 3_600_000);
  const m = Math.floor((whole % 3_600_000) / 60_000);
  const s = (whole % 60_000) / 1_000;
  return `${h > 0 ? `${h}h` : ''}${m > 0 ? `${m}m` : ''}${s > 0 ? `${s}s` : ''}`;
};
