// The Prometheus text exposition format (version 0.0.4), the part a push
// needs: gauges with HELP, TYPE and labelled samples. Written here rather
// than taken from prom-client: the whole format a tick pushes is these few
// lines, and prom-client costs the bundle ~68 kB and the tick ~4 MB of RSS
// (docs/metrics.md).

/** One sample: its labels (in order) and its value. */
export interface Sample {
  readonly labels?: Readonly<Record<string, string>>;
  readonly value: number;
}

/** One metric family, all of one name; every family a tick pushes is a gauge. */
export interface Gauge {
  readonly name: string;
  readonly help: string;
  readonly samples: readonly Sample[];
}

/** A label value as the format wants it: backslash, double quote and newline escaped. */
export const escapeLabelValue = (value: string): string =>
  value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');

/** HELP text escapes backslash and newline only (a quote is literal there). */
const escapeHelp = (help: string): string => help.replace(/\\/g, '\\\\').replace(/\n/g, '\\n');

/** `+Inf`, `-Inf` and `NaN` are spelled the format's way; integers without a fraction. */
const formatValue = (value: number): string => {
  if (Number.isNaN(value)) return 'NaN';
  if (value === Number.POSITIVE_INFINITY) return '+Inf';
  if (value === Number.NEGATIVE_INFINITY) return '-Inf';
  return String(value);
};

const formatLabels = (labels: Readonly<Record<string, string>> | undefined): string => {
  const pairs = Object.entries(labels ?? {});
  return pairs.length === 0 ? '' : `{${pairs.map(([k, v]) => `${k}="${escapeLabelValue(v)}"`).join(',')}}`;
};

/** The text body of a push: every family with at least one sample, each ending in a newline. */
export const renderExposition = (gauges: readonly Gauge[]): string =>
  gauges
    .filter((g) => g.samples.length > 0)
    .map(
      (g) =>
        `# HELP ${g.name} ${escapeHelp(g.help)}\n# TYPE ${g.name} gauge\n${g.samples
          .map((s) => `${g.name}${formatLabels(s.labels)} ${formatValue(s.value)}\n`)
          .join('')}`,
    )
    .join('');

/** The Content-Type of that body. */
export const EXPOSITION_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';
