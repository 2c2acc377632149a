// What each variable of the tick accepts, as a JSON Schema fragment for the
// chart's `env:` (charts/image-refresh/values.schema.json). Keyed by the
// variables' own table (CONFIG_VARIABLES): values-schema.test.ts refuses a
// variable without a shape or a shape without a variable, and holds each
// shape to the tick's own parser on samples either side of it. The parser
// stays the authority: limits that need arithmetic (a duration past 24 h, a
// required age past 30 days) or the whole document (the keyless trio) are its
// alone; the schema refuses what is wrong on sight.

/** A JSON Schema fragment. */
export type Shape = Readonly<Record<string, unknown>>;

/** Go's time.ParseDuration syntax, as ROLLOUT_TIMEOUT and friends take it (config/duration.ts). */
const UNIT = '(?:ns|us|µs|ms|s|m|h)';
const PART = `(?:[0-9]+(?:\\.[0-9]*)?|\\.[0-9]+)${UNIT}`;
const NONZERO_PART = `(?:[0-9]*[1-9][0-9]*(?:\\.[0-9]*)?|[0-9]*\\.[0-9]*[1-9][0-9]*)${UNIT}`;
const GO_DURATION = `${PART}+`;
/** A bound: a duration with some part above zero (a timeout of 0 would fail every call). */
const POSITIVE_DURATION = `(?:${PART})*${NONZERO_PART}(?:${PART})*`;
const DNS_LABEL = '[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?';
const DNS_SUBDOMAIN = '[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?';

/** A string matching `alternatives` whole, or "" (unset). */
const text = (alternatives: string, description?: string): Shape => ({
  type: 'string',
  pattern: `^(${alternatives})?$`,
  ...(description === undefined ? {} : { description }),
});

const duration = text(GO_DURATION, 'a Go duration: 10m, 90s, 1h30m; 0s is off');
const bound = text(POSITIVE_DURATION, 'a Go duration above zero: 10m, 90s, 1h30m');
/** Nine digits at most: far past any sensible ceiling, and short of a number a YAML parser rounds. */
const MAX_COUNT = 999_999_999;
/** A whole number of at least `min`: a string of digits, or a YAML number. */
const count = (min: 0 | 1, orOff = false): Shape => {
  const digits = min === 0 ? '[0-9]{1,9}' : '0*[1-9][0-9]{0,8}';
  return { anyOf: [{ type: 'integer', minimum: min, maximum: MAX_COUNT }, text(orOff ? `${digits}|off` : digits)] };
};
const onOff: Shape = {
  anyOf: [{ type: 'boolean', description: 'YAML 1.1 reads an unquoted on/off as a boolean' }, text('on|off')],
};
const zeroOne: Shape = { anyOf: [{ type: 'integer', enum: [0, 1] }, text('0|1')] };
const oneOf = (...values: string[]): Shape => text(values.join('|'));
const httpUrl = text('https?://[^\\s/?#]+(/[^\\s?#]*)?');
const httpUrlWithQuery = text('https?://[^\\s/?#]+(/[^\\s?#]*)?(\\?[^\\s#]*)?');
const anyText = text('[^\\n]*');
const path = text('/[^\\n]*', 'an absolute path inside the container');
const paths = text('/[^,\\n]*(,/[^,\\n]*)*', 'comma-separated absolute paths inside the container');
const host =
  '([A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?(\\.[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?)*|\\[[0-9A-Fa-f:.]+\\])(:[0-9]{1,5})?';
/** A repository path component, as the distribution spec's grammar has it. */
const COMPONENT = '[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*';
const TAG = '[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}';
/** Docker Hub's names: never reached over plain http (its URL is IMAGE_REFRESH_REGISTRY_URL's). */
const DOCKER_HUB = '(docker\\.io|index\\.docker\\.io|registry-1\\.docker\\.io)';

/**
 * FLEET_HALT_REF, as parseFleetHaltReference reads it: `[host/]<namespace>/<name>:<tag>`;
 * a first part with a dot, a colon or `localhost` is the host (Docker's rule).
 */
const fleetHaltRef: Shape = {
  anyOf: [
    { type: 'string', maxLength: 0 },
    { type: 'string', pattern: `^([^/@]*[.:][^/@]*|localhost)/${COMPONENT}(/${COMPONENT})+:${TAG}$` },
    {
      type: 'string',
      pattern: `^[a-z0-9]+(?:(?:_|__|-+)[a-z0-9]+)*(/${COMPONENT})+:${TAG}$`,
      not: { pattern: '^localhost/' },
    },
  ],
};

/** Each variable's shape, by name. */
export const VARIABLE_SHAPES: Readonly<Record<string, Shape>> = {
  RELEASE_NAME: text(DNS_SUBDOMAIN),
  RELEASE_NAMESPACE: text(DNS_LABEL),
  DEPLOYMENT_NAME: text(DNS_SUBDOMAIN),
  REQUESTS_PROXY_DEPLOYMENT: text(DNS_SUBDOMAIN),
  RESOURCE_MONITOR_DAEMONSET: text(DNS_SUBDOMAIN),
  NODE_AGENTS_NAMESPACE: text(DNS_LABEL),
  IMAGE_REGISTRY: text(`${host}(/${COMPONENT})*`),
  IMAGE_TAG: text('[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}'),
  ROLLOUT_TIMEOUT: bound,
  MAX_REFRESH_ATTEMPTS: count(1),
  MAX_SKIP_TICKS: count(1),
  JOBS_MANAGER_PINNED: zeroOne,
  PODS_MONITOR_PINNED: zeroOne,
  RESOURCE_MONITOR_PINNED: zeroOne,
  REQUESTS_PROXY_PINNED: zeroOne,
  IMAGE_REFRESH_PROFILE: path,
  OWNERSHIP_CHECK: onOff,
  MIRROR_MODE: oneOf('follow-upstream'),
  SETTLE_TIMEOUT: bound,
  API_TIMEOUT: bound,
  REGISTRY_TIMEOUT: bound,
  IMAGE_REFRESH_REGISTRY_URL: httpUrl,
  IMAGE_REFRESH_AUTH_URL: httpUrlWithQuery,
  FLAP_LOCKOUT_EXIT: zeroOne,
  MAX_RESOLVE_FAILURE_TICKS: count(1, true),
  REGISTRY_BUDGET_FLOOR: count(0, true),
  IMAGE_REFRESH_EVENTS: zeroOne,
  RECONCILE_LIVE: { anyOf: [{ type: 'integer', enum: [0, 1] }, oneOf('0', '1', 'report')] },
  DECOUPLED_REFRESH: zeroOne,
  ON_ROLLOUT_FAILURE: oneOf('keep', 'revert'),
  ROLLOUT_STABLE_FOR: duration,
  MIN_DIGEST_AGE: duration,
  ROLLOUT_RING: count(0),
  RING_DELAY: bound,
  START_JITTER: duration,
  FLEET_HALT_REF: fleetHaltRef,
  FLEET_PROMOTION_REF: fleetHaltRef,
  FLEET_HALT_EXIT: zeroOne,
  VERIFY_SIGNATURES: oneOf('off', 'warn', 'enforce'),
  SIGNATURE_PUBLIC_KEYS: paths,
  SIGNATURE_IDENTITY: anyText,
  SIGNATURE_ISSUER: anyText,
  SIGSTORE_TRUSTED_ROOT: path,
  PLATFORM_CHECK: onOff,
  PREPULL: onOff,
  PREPULL_TIMEOUT: bound,
  PREPULL_PARALLEL: count(1),
  // The grammar's shape (config/maintenance-window-grammar.ts); the zone and the times' range are the tick's to judge.
  MAINTENANCE_WINDOW: text(
    ' *[A-Za-z]{3}(-[A-Za-z]{3})?(,[A-Za-z]{3}(-[A-Za-z]{3})?)* +[0-9]{2}:[0-9]{2}-[0-9]{2}:[0-9]{2} +[A-Za-z0-9_+/-]+ *(; *[A-Za-z]{3}(-[A-Za-z]{3})?(,[A-Za-z]{3}(-[A-Za-z]{3})?)* +[0-9]{2}:[0-9]{2}-[0-9]{2}:[0-9]{2} +[A-Za-z0-9_+/-]+ *)*;? *',
    'one or more windows, ";"-separated: <days> <HH:MM>-<HH:MM> <IANA zone>',
  ),
  WINDOW_MARGIN: duration,
  PREPULL_OUTSIDE_WINDOW: onOff,
  REGISTRY_AUTH_FILE: path,
  REGISTRY_CA_FILE: path,
  REGISTRY_PLAIN_HTTP: {
    ...text(` *${host} *(, *${host} *)*`),
    not: { pattern: `(^|,) *${DOCKER_HUB} *(,|$)` },
  },
  PUSHGATEWAY_URL: httpUrl,
  METRICS_JOB: anyText,
  METRICS_GROUPING: text('[A-Za-z_][A-Za-z0-9_]*=[^,]+(,[A-Za-z_][A-Za-z0-9_]*=[^,]+)*'),
};
