import type { ConfigError, Topology } from '@image-refresh/core';
import * as E from 'fp-ts/lib/Either.js';

// The push's switches (docs/behaviour.md §6): PUSHGATEWAY_URL turns it on,
// METRICS_JOB and METRICS_GROUPING name the group it replaces. Read only when
// PUSHGATEWAY_URL is set; a malformed value is exit 2 naming the variable,
// before any request (I18), like every other variable of the tick.

export const METRICS_ENV = {
  url: 'PUSHGATEWAY_URL',
  job: 'METRICS_JOB',
  grouping: 'METRICS_GROUPING',
} as const;

export const DEFAULT_METRICS_JOB = 'image-refresh';

export interface MetricsConfig {
  /** The Pushgateway's base URL, without a trailing slash. */
  readonly url: string;
  readonly job: string;
  /** Grouping labels in order, as METRICS_GROUPING gives them; undefined: the topology's default ({@link defaultGrouping}). */
  readonly grouping: readonly (readonly [string, string])[] | undefined;
}

const HTTP_URL = /^https?:\/\/[^\s/?#]+(\/[^\s?#]*)?$/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

type Env = Readonly<Record<string, string | undefined>>;

const read = (env: Env, name: string): string | undefined => {
  const value = env[name];
  return value === undefined || value === '' ? undefined : value;
};

/** `edge=berlin-1,site=b` → its pairs, or what is wrong with it. */
const parseGrouping = (raw: string): E.Either<string, [string, string][]> => {
  const pairs: [string, string][] = [];
  for (const item of raw.split(',')) {
    const eq = item.indexOf('=');
    const [name, value] = eq < 0 ? [item, ''] : [item.slice(0, eq).trim(), item.slice(eq + 1).trim()];
    if (eq < 0 || value === '') return E.left(`${JSON.stringify(item)} is not label=value (k=v,… with a value)`);
    if (!LABEL_NAME.test(name) || name.startsWith('__')) {
      return E.left(`${JSON.stringify(name)} is not a Prometheus label name ([a-zA-Z_][a-zA-Z0-9_]*, no leading __)`);
    }
    if (name === 'job') return E.left('"job" is METRICS_JOB, not a grouping label');
    if (pairs.some(([n]) => n === name)) return E.left(`label ${JSON.stringify(name)} is given twice`);
    pairs.push([name, value]);
  }
  return E.right(pairs);
};

/** undefined when PUSHGATEWAY_URL is unset (the default: no push, no request). */
export const parseMetricsConfig = (env: Env): E.Either<ConfigError[], MetricsConfig> | undefined => {
  const url = read(env, METRICS_ENV.url);
  if (url === undefined) return undefined;
  const problems: ConfigError[] = [];
  if (!HTTP_URL.test(url)) {
    problems.push({
      variable: METRICS_ENV.url,
      value: url,
      problem: 'must be an http(s) URL such as http://pushgateway:9091',
    });
  }
  const job = read(env, METRICS_ENV.job) ?? DEFAULT_METRICS_JOB;
  const rawGrouping = read(env, METRICS_ENV.grouping);
  let grouping: [string, string][] | undefined;
  if (rawGrouping !== undefined) {
    const parsed = parseGrouping(rawGrouping);
    if (E.isLeft(parsed)) problems.push({ variable: METRICS_ENV.grouping, value: rawGrouping, problem: parsed.left });
    else grouping = parsed.right;
  }
  return problems.length > 0 ? E.left(problems) : E.right({ url: url.replace(/\/+$/, ''), job, grouping });
};

/**
 * One path segment pair of the Pushgateway's grouping key: `name/value`
 * URL-encoded, or `name@base64/<base64url>` for a value a path cannot carry
 * (a `/`; the Pushgateway README, "URL").
 */
const segment = (name: string, value: string): string =>
  value.includes('/')
    ? `${name}@base64/${Buffer.from(value, 'utf8').toString('base64url')}`
    : `${name}/${encodeURIComponent(value)}`;

/**
 * The grouping without METRICS_GROUPING: the release's namespace and name
 * where the profile names its release (the chart's: RELEASE_NAMESPACE and
 * RELEASE_NAME), otherwise the gate's namespace and name — one group per
 * edge either way, as long as those differ between edges (docs/metrics.md).
 */
export const defaultGrouping = (topology: Topology): readonly (readonly [string, string])[] => {
  const { gate, profile } = topology;
  return profile.release === undefined
    ? [
        ['namespace', gate.namespace],
        ['gate', gate.name],
      ]
    : [
        ['namespace', gate.namespace],
        ['release', profile.release],
      ];
};

/** `/metrics/job/<job>/<label>/<value>…` under the gateway's URL. */
export const pushUrl = (config: MetricsConfig, topology: Topology): string =>
  `${config.url}/metrics/${[['job', config.job] as const, ...(config.grouping ?? defaultGrouping(topology))]
    .map(([n, v]) => segment(n, v))
    .join('/')}`;
