import { readFileSync, writeFileSync } from 'node:fs';
import { CONFIG_VARIABLES, parseTickConfig } from '@image-refresh/core';
import { Ajv2020 } from 'ajv/dist/2020.js';
import * as E from 'fp-ts/lib/Either.js';
import { describe, expect, it } from 'vitest';
import { parseMetricsConfig } from '../../src/metrics/metrics-config.js';
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

/** Does the tick's parser accept `value` as <name> (everything else valid)? */
const parserAccepts = (name: string, value: unknown): boolean => {
  const env = { ...BASE, ...SAMPLES[name]?.beside, [name]: asRendered(value) };
  if (METRICS.has(name)) {
    const parsed = parseMetricsConfig({ PUSHGATEWAY_URL: 'http://gw:9091', ...env });
    return parsed === undefined || E.isRight(parsed);
  }
  return E.isRight(parseTickConfig(env));
};

/**
 * Values either side of each shape, held to the parser: what the schema lets
 * through the tick accepts, and what the tick refuses the schema refuses — so
 * a bad value stops at `helm install`, not on the edge.
 */
const SAMPLES: Readonly<
  Record<
    string,
    {
      readonly accepted: unknown[];
      readonly refused: unknown[];
      /** What the variable needs beside it to be accepted at all (the tick checks them together). */
      readonly beside?: Readonly<Record<string, string>>;
    }
  >
> = {
  ROLLOUT_TIMEOUT: { accepted: ['10m', '1m30s', '1.5h', '90s'], refused: ['600', '10 m', '10min', 'ten', '-1m'] },
  SETTLE_TIMEOUT: { accepted: ['10s'], refused: ['10'] },
  MIN_DIGEST_AGE: { accepted: ['0s', '1h', '24h'], refused: ['1d', '1'] },
  MAX_SKIP_TICKS: { accepted: ['8', 8, 1], refused: ['eight', 0, '0', '-1', 1.5, '1.5', true] },
  MAX_REFRESH_ATTEMPTS: { accepted: ['3', 3], refused: ['0', 'off', 'three'] },
  MAX_RESOLVE_FAILURE_TICKS: { accepted: ['8', 8, 'off'], refused: ['0', 'never', 'OFF'] },
  ROLLOUT_RING: { accepted: ['0', 0, 2], refused: ['-1', 'one', 1.5] },
  JOBS_MANAGER_PINNED: { accepted: ['0', '1', 0, 1], refused: ['2', 'yes', true] },
  FLAP_LOCKOUT_EXIT: { accepted: ['0', '1', 1], refused: ['2', 'on'] },
  RECONCILE_LIVE: { accepted: ['0', '1', 'report', 1], refused: ['on', 'repair', '2'] },
  OWNERSHIP_CHECK: { accepted: ['on', 'off', true, false], refused: ['1', 'yes', 0] },
  PREPULL: { accepted: ['on', 'off', true, false], refused: ['1', 'true'] },
  PLATFORM_CHECK: { accepted: ['on', false], refused: ['enabled'] },
  ON_ROLLOUT_FAILURE: { accepted: ['keep', 'revert'], refused: ['rollback', 'Revert', true] },
  VERIFY_SIGNATURES: {
    accepted: ['off', 'warn', 'enforce'],
    refused: ['strict', 'on', true],
    beside: { SIGNATURE_PUBLIC_KEYS: '/etc/image-refresh/trust/cosign.pub' },
  },
  MIRROR_MODE: {
    accepted: ['follow-upstream'],
    refused: ['follow', 'inert'],
    beside: { IMAGE_REGISTRY: 'mirror.local:5000' },
  },
  IMAGE_TAG: { accepted: ['prod', 'v1.2_3'], refused: ['.prod', 'pro d', 'a:b'] },
  RELEASE_NAME: { accepted: ['stg', 'my-release'], refused: ['Stg', 'my_release'] },
  RELEASE_NAMESPACE: { accepted: ['tracebloc'], refused: ['Tracebloc', 'a.b'] },
  IMAGE_REFRESH_REGISTRY_URL: {
    accepted: ['https://registry.local:5000', 'http://127.0.0.1:5000/v'],
    refused: ['registry.local', 'ftp://r'],
  },
  REGISTRY_BUDGET_FLOOR: { accepted: ['0', '10', 'off', 10], refused: ['-1', 'none'] },
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

  it.each(Object.entries(SAMPLES))(
    '%s: what the schema lets through the tick accepts, and what it refuses the tick refuses',
    (name, { accepted, refused }) => {
      for (const value of accepted) {
        expect([schemaAccepts(name, value), parserAccepts(name, value)], `${name}=${JSON.stringify(value)}`).toEqual([
          true,
          true,
        ]);
      }
      for (const value of refused) {
        expect(schemaAccepts(name, value), `${name}=${JSON.stringify(value)} let through by the schema`).toBe(false);
        // A boolean or a non-integer never reaches the tick: the chart renders only what the schema allows.
        if (typeof value === 'string') {
          expect(parserAccepts(name, value), `${name}=${JSON.stringify(value)} accepted by the tick`).toBe(false);
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
