import { readFileSync, writeFileSync } from 'node:fs';
import { CONFIG_VARIABLES, parseTickConfig } from '@image-refresh/core';
import { Ajv2020 } from 'ajv/dist/2020.js';
import * as E from 'fp-ts/lib/Either.js';
import { describe, expect, it } from 'vitest';
import { parseMetricsConfig } from '../../src/metrics/metrics-config.js';
import { loadRegistryAccess } from '../../src/wiring/registry-access.js';
import { VALUES_SCHEMA, valuesSchema, valuesSchemaText } from './values-schema.js';
import { VARIABLE_SHAPES } from './variable-shapes.js';

// values.schema.json is what `helm install` checks before anything reaches
// the cluster. It is generated (values-schema.ts) and held here to the two
// tables it comes from: the variables a tick reads, and what the tick's own
// parser accepts. IMAGE_REFRESH_UPDATE_DOCS=1 rewrites it (then run
// `npx biome format --write charts`).

const UPDATE = process.env.IMAGE_REFRESH_UPDATE_DOCS === '1';
const ajv = new Ajv2020({ allErrors: true, strict: false });
const validateValues = ajv.compile(valuesSchema());

/** Does the schema let `value` through as env.<name>? */
const schemaAccepts = (name: string, value: unknown): boolean =>
  validateValues({ image: { repository: 'r/ir', digest: `sha256:${'a'.repeat(64)}` }, env: { [name]: value } }) ===
  true;

/** The environment the chart renders for a value: what envString turns a boolean or a number into. */
const asRendered = (value: unknown): string => (typeof value === 'boolean' ? (value ? 'on' : 'off') : String(value));

const BASE = { RELEASE_NAME: 'stg', RELEASE_NAMESPACE: 'tracebloc', IMAGE_TAG: 'prod' };
const METRICS = new Set(['PUSHGATEWAY_URL', 'METRICS_JOB', 'METRICS_GROUPING']);
/**
 * Where the schema refuses more than the parser, and why that is right: a
 * path the CLI opens later, relative to a working directory a container does
 * not promise; a line the tick compares later; a mirror no pod could pull
 * through. The parser is not asked about these refusals.
 */
const STRICTER: Readonly<Record<string, string>> = {
  REGISTRY_AUTH_FILE: 'a file the CLI opens: in a pod, an absolute path where a Secret is mounted',
  REGISTRY_CA_FILE: 'a file the CLI opens: in a pod, an absolute path where a Secret is mounted',
  IMAGE_REFRESH_PROFILE: 'the chart sets it to the mounted ConfigMap',
  SIGSTORE_TRUSTED_ROOT: 'a file the CLI opens: in a pod, an absolute path',
  SIGNATURE_PUBLIC_KEYS: 'files the CLI opens: in a pod, absolute paths',
  SIGNATURE_IDENTITY: 'one line, compared with a certificate later',
  SIGNATURE_ISSUER: 'one line, compared with a certificate later',
  IMAGE_REGISTRY: 'a host[:port][/path] the pods pull through: a scheme or a space is no mirror',
};

/** Does the tick's own parser accept `value` as <name> (everything else valid)? */
const parserAccepts = async (name: string, value: unknown): Promise<boolean> => {
  const env = { ...BASE, ...SAMPLES[name]?.beside, [name]: asRendered(value) };
  if (METRICS.has(name)) {
    const parsed = parseMetricsConfig({ PUSHGATEWAY_URL: 'http://gw:9091', ...env });
    return parsed === undefined || E.isRight(parsed);
  }
  if (name === 'REGISTRY_PLAIN_HTTP') return E.isRight(await loadRegistryAccess(env));
  return E.isRight(parseTickConfig(env));
};

interface Samples {
  readonly accepted: readonly unknown[];
  readonly refused: readonly unknown[];
  /** What the variable needs beside it to be accepted at all (the tick checks them together). */
  readonly beside?: Readonly<Record<string, string>>;
}

const KEYS = { SIGNATURE_PUBLIC_KEYS: '/etc/image-refresh/trust/cosign.pub' };
const PINNED: Samples = { accepted: ['0', '1', 0, 1], refused: ['2', 'yes', true] };
const NAME: Samples = { accepted: ['jm', 'stg-jobs-manager', 'a.b'], refused: ['JM', 'a_b', '-a'] };

/**
 * Values either side of every variable's shape, held to the tick's parser:
 * what the schema lets through the tick accepts, and what it refuses the
 * tick refuses — so a bad value stops at `helm install`, not on the edge.
 */
const SAMPLES: Readonly<Record<string, Samples>> = {
  RELEASE_NAME: { accepted: ['stg', 'my-release'], refused: ['Stg', 'my_release'] },
  RELEASE_NAMESPACE: { accepted: ['tracebloc'], refused: ['Tracebloc', 'a.b'] },
  DEPLOYMENT_NAME: NAME,
  REQUESTS_PROXY_DEPLOYMENT: NAME,
  RESOURCE_MONITOR_DAEMONSET: NAME,
  NODE_AGENTS_NAMESPACE: { accepted: ['agents'], refused: ['Agents', 'a.b'] },
  IMAGE_REGISTRY: {
    accepted: ['docker.io', 'mirror.local:5000', 'mirror.local:5000/proxy'],
    refused: ['https://mirror.local', 'mirror local'],
  },
  IMAGE_TAG: { accepted: ['prod', 'v1.2_3'], refused: ['.prod', 'pro d', 'a:b'] },
  ROLLOUT_TIMEOUT: {
    accepted: ['10m', '1m30s', '1.5h', '90s', '500ms', '1h30m'],
    refused: ['600', '10 m', '10min', 'ten', '-1m', '0s', '0m0s'],
  },
  MAX_REFRESH_ATTEMPTS: { accepted: ['3', 3, '03'], refused: ['0', 'off', 'three', 0, '12345678901234567890'] },
  MAX_SKIP_TICKS: { accepted: ['8', 8, 1], refused: ['eight', 0, '0', '-1', 1.5, '1.5', true] },
  JOBS_MANAGER_PINNED: PINNED,
  PODS_MONITOR_PINNED: PINNED,
  RESOURCE_MONITOR_PINNED: PINNED,
  REQUESTS_PROXY_PINNED: PINNED,
  IMAGE_REFRESH_PROFILE: { accepted: [], refused: ['profile.yaml'] },
  OWNERSHIP_CHECK: { accepted: ['on', 'off', true, false], refused: ['1', 'yes', 0] },
  MIRROR_MODE: {
    accepted: ['follow-upstream'],
    refused: ['follow', 'inert'],
    beside: { IMAGE_REGISTRY: 'mirror.local:5000' },
  },
  SETTLE_TIMEOUT: { accepted: ['10s', '1s'], refused: ['10', '0s'] },
  API_TIMEOUT: { accepted: ['15s'], refused: ['15', '0ms'] },
  REGISTRY_TIMEOUT: { accepted: ['10s'], refused: ['ten seconds', '0s'] },
  IMAGE_REFRESH_REGISTRY_URL: {
    accepted: ['https://registry.local:5000', 'http://127.0.0.1:5000/v'],
    refused: ['registry.local', 'ftp://r'],
  },
  IMAGE_REFRESH_AUTH_URL: {
    accepted: ['https://auth.example/token?service=registry.example'],
    refused: ['auth.example/token', 'https://auth.example/token#x'],
  },
  FLAP_LOCKOUT_EXIT: { accepted: ['0', '1', 1], refused: ['2', 'on'] },
  MAX_RESOLVE_FAILURE_TICKS: { accepted: ['8', 8, 'off'], refused: ['0', 'never', 'OFF'] },
  REGISTRY_BUDGET_FLOOR: { accepted: ['0', '10', 'off', 10], refused: ['-1', 'none'] },
  IMAGE_REFRESH_EVENTS: { accepted: ['0', '1', 0], refused: ['off', 'true'] },
  RECONCILE_LIVE: { accepted: ['0', '1', 'report', 1], refused: ['on', 'repair', '2'] },
  DECOUPLED_REFRESH: { accepted: ['0', '1'], refused: ['on', '2'] },
  ON_ROLLOUT_FAILURE: { accepted: ['keep', 'revert'], refused: ['rollback', 'Revert', true] },
  ROLLOUT_STABLE_FOR: { accepted: ['0s', '2m'], refused: ['2', 'two minutes'] },
  MIN_DIGEST_AGE: { accepted: ['0s', '1h', '24h'], refused: ['1d', '1'] },
  ROLLOUT_RING: { accepted: ['0', 0, 2], refused: ['-1', 'one', 1.5] },
  RING_DELAY: { accepted: ['1h', '30m'], refused: ['0s', '1'] },
  START_JITTER: { accepted: ['0s', '5m'], refused: ['5', 'five'] },
  FLEET_HALT_REF: {
    accepted: [
      'acme/fleet-control:stg-halt',
      'docker.io/acme/fleet-control:stg-halt',
      'registry.example:5000/acme/fleet-control:halt',
      'acme/fleet--control:v1',
      'acme/fleet__x:v1',
      'localhost/acme/halt:v1',
    ],
    refused: [
      'registry.example:5000/halt:v1',
      'acme/fleet-control',
      'acme/fleet-control@sha256:00',
      'halt:v1',
      'localhost/halt:v1',
      'acme.io/halt:v1',
    ],
    beside: KEYS,
  },
  // The promotion's reference is read by the halt's parser (docs/fleet-promotion.md).
  FLEET_PROMOTION_REF: {
    accepted: [
      'acme/fleet-control:stg-promotion',
      'docker.io/acme/fleet-control:stg-promotion',
      'registry.example:5000/acme/fleet-control:halt',
      'acme/fleet--control:v1',
      'acme/fleet__x:v1',
      'localhost/acme/halt:v1',
    ],
    refused: [
      'registry.example:5000/halt:v1',
      'acme/fleet-control',
      'acme/fleet-control@sha256:00',
      'halt:v1',
      'localhost/halt:v1',
      'acme.io/halt:v1',
    ],
    beside: KEYS,
  },
  FLEET_HALT_EXIT: { accepted: ['0', '1'], refused: ['yes', '2'], beside: { FLEET_HALT_REF: 'acme/halt:v1', ...KEYS } },
  VERIFY_SIGNATURES: { accepted: ['off', 'warn', 'enforce'], refused: ['strict', 'on', true], beside: KEYS },
  SIGNATURE_PUBLIC_KEYS: {
    accepted: ['/etc/trust/cosign.pub', '/a.pub,/b.pub'],
    refused: ['cosign.pub'],
    beside: { VERIFY_SIGNATURES: 'enforce' },
  },
  SIGNATURE_IDENTITY: { accepted: [], refused: ['a\nb'] },
  SIGNATURE_ISSUER: { accepted: [], refused: ['a\nb'] },
  SIGSTORE_TRUSTED_ROOT: { accepted: [], refused: ['trusted_root.json'] },
  PLATFORM_CHECK: { accepted: ['on', false], refused: ['enabled'] },
  PREPULL: { accepted: ['on', 'off', true, false], refused: ['1', 'true'] },
  PREPULL_TIMEOUT: { accepted: ['30m'], refused: ['30', '0s'], beside: { PREPULL: 'on' } },
  PREPULL_PARALLEL: { accepted: ['1', 2], refused: ['0', 'all'], beside: { PREPULL: 'on' } },
  MAINTENANCE_WINDOW: {
    accepted: ['Mon-Fri 01:00-04:00 Europe/Berlin; Sat,Sun 00:00-06:00 Europe/Berlin', 'Fri 22:00-02:00 UTC;'],
    refused: ['Mon-Fri 1:00-4:00 UTC', 'nightly', 'Mon-Fri 01:00-04:00', 'Mon 01:00-04:00 UTC;; Tue 01:00-02:00 UTC'],
  },
  WINDOW_MARGIN: {
    accepted: ['0s', '5m'],
    refused: ['5', 'five'],
    beside: { MAINTENANCE_WINDOW: 'Mon 01:00-04:00 UTC' },
  },
  PREPULL_OUTSIDE_WINDOW: {
    accepted: ['on', 'off', true],
    refused: ['1', 'yes'],
    beside: { MAINTENANCE_WINDOW: 'Mon 01:00-04:00 UTC', PREPULL: 'on' },
  },
  REGISTRY_AUTH_FILE: { accepted: [], refused: ['config.json'] },
  REGISTRY_CA_FILE: { accepted: [], refused: ['ca.pem'] },
  REGISTRY_PLAIN_HTTP: {
    accepted: ['registry.local:5000', 'a:5000,b:5000', 'a:5000, b:5000', '[::1]:5000'],
    refused: ['docker.io', 'a:5000,docker.io', 'http://a:5000', 'a:5000/path'],
  },
  PUSHGATEWAY_URL: { accepted: ['http://pushgateway.monitoring:9091'], refused: ['pushgateway:9091'] },
  METRICS_JOB: { accepted: ['image-refresh'], refused: [] },
  METRICS_GROUPING: { accepted: ['edge=berlin-1', 'namespace=a,release=b'], refused: ['edge', 'a-b=c', 'edge='] },
};

describe("the chart's values.schema.json", () => {
  it('is what values-schema.ts generates from the variables and the profile schema', () => {
    if (UPDATE) writeFileSync(VALUES_SCHEMA, valuesSchemaText());
    expect(
      JSON.parse(readFileSync(VALUES_SCHEMA, 'utf8')),
      `${VALUES_SCHEMA} is stale: run IMAGE_REFRESH_UPDATE_DOCS=1 npx vitest run --project cli test/chart/values-schema.test.ts`,
    ).toEqual(valuesSchema());
  });

  it("uses only patterns helm's validator can compile (Go's RE2: no lookaround, no backreference)", () => {
    const patterns = JSON.stringify(valuesSchema()).match(/"pattern":"(?:[^"\\]|\\.)*"/g) ?? [];
    expect(patterns.length).toBeGreaterThan(50);
    expect(patterns.filter((p) => /\(\?[!=<]|\\[1-9]/.test(JSON.parse(`{${p}}`).pattern))).toEqual([]);
  });

  it('names every variable a tick reads, and no other: each has a shape', () => {
    expect(Object.keys(VARIABLE_SHAPES).sort()).toEqual(CONFIG_VARIABLES.map((v) => v.name).sort());
  });

  it('leaves every variable unset with "" (unset and empty mean the same to a tick)', () => {
    for (const { name } of CONFIG_VARIABLES) expect(schemaAccepts(name, ''), name).toBe(true);
  });

  it('has samples either side of every variable, so no shape goes unchecked', () => {
    expect(Object.keys(SAMPLES).sort()).toEqual(CONFIG_VARIABLES.map((v) => v.name).sort());
  });

  it.each(Object.entries(SAMPLES))(
    '%s: what the schema lets through the tick accepts, and what it refuses the tick refuses',
    async (name, { accepted, refused }) => {
      for (const value of accepted) {
        expect(
          [schemaAccepts(name, value), await parserAccepts(name, value)],
          `${name}=${JSON.stringify(value)}`,
        ).toEqual([true, true]);
      }
      for (const value of refused) {
        expect(schemaAccepts(name, value), `${name}=${JSON.stringify(value)} let through by the schema`).toBe(false);
        // A boolean or a non-integer never reaches the tick (the chart renders only what the schema allows); a
        // file the CLI opens is checked by opening it.
        if (typeof value === 'string' && STRICTER[name] === undefined) {
          expect(await parserAccepts(name, value), `${name}=${JSON.stringify(value)} accepted by the tick`).toBe(false);
        }
      }
    },
  );

  it("each variable's default, where it is a value, passes its shape", () => {
    for (const { name, default: text } of CONFIG_VARIABLES) {
      const literal = /^`([^`]+)`$/.exec(text)?.[1];
      if (literal !== undefined && !literal.includes('<'))
        expect(schemaAccepts(name, literal), `${name}=${literal}`).toBe(true);
    }
  });
});
