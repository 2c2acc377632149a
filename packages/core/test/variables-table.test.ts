import * as E from 'fp-ts/lib/Either.js';
import { describe, expect, it } from 'vitest';
import { parseTickConfig } from '../src/config/parse-config.js';
import { REGISTRY_ACCESS_ENV } from '../src/config/registry-access-env.js';
import type { ConfigVariable, VariableSection } from '../src/config/variables.js';

// CONFIG_VARIABLES is the one table `image-refresh help tick`, SWAP.md and
// docs/configuration.md are rendered from (the CLI's tests hold the files to
// it). Here the table is held to the parser it documents: what the tick reads
// is what the table lists, and a default the table names is the default the
// parser takes. Only the metrics push's rows and the registry access files
// (REGISTRY_AUTH_FILE, REGISTRY_CA_FILE) are read elsewhere (the CLI).

// Loaded inside each test, not at the top: a table that throws while it is built then fails these
// tests by name. (A test file that cannot load reports no failed test, and Stryker's run counts that
// as a mutant survived: three did, 2026-12-03.)
const table = () => import('../src/config/variables.js');

const CHART = { RELEASE_NAME: 'stg', RELEASE_NAMESPACE: 'tracebloc', IMAGE_TAG: 'prod' } as const;
const READ_BY_THE_CLI: VariableSection = 'metrics';

const FILES_READ_BY_THE_CLI: ReadonlySet<string> = new Set(Object.values(REGISTRY_ACCESS_ENV));

const tickRowsOf = (rows: readonly ConfigVariable[]) =>
  rows.filter((v) => v.section !== READ_BY_THE_CLI && !FILES_READ_BY_THE_CLI.has(v.name));

/** The names `parseTickConfig` asks an environment for, whatever it answers. */
const namesReadFrom = (answers: Readonly<Record<string, string>>): ReadonlySet<string> => {
  const asked = new Set<string>();
  const env = new Proxy(answers, {
    get: (target, name) => {
      if (typeof name === 'string') asked.add(name);
      return Reflect.get(target, name);
    },
  });
  parseTickConfig(env);
  return asked;
};

const parsedOrThrow = (env: Readonly<Record<string, string>>) => {
  const parsed = parseTickConfig(env);
  if (E.isLeft(parsed)) throw new Error(`rejected: ${JSON.stringify(parsed.left)}`);
  return parsed.right;
};

describe('the table of variables', () => {
  it('lists exactly the variables a tick reads; the trust, the pre-pull bounds and the window margin once switched on', async () => {
    const listed = new Set(tickRowsOf((await table()).CONFIG_VARIABLES).map((v) => v.name));
    const switchedOn = { VERIFY_SIGNATURES: 'enforce', PREPULL: 'on', MAINTENANCE_WINDOW: 'Mon 01:00-04:00 UTC' };
    // PUSHGATEWAY_URL is the CLI's, but the tick asks whether it is set: a push's record carries its times (docs/fleet-promotion.md).
    expect(namesReadFrom({ ...CHART, ...switchedOn })).toEqual(new Set([...listed, 'PUSHGATEWAY_URL']));
    const readOff = namesReadFrom(CHART);
    expect([...listed].filter((name) => !readOff.has(name))).toEqual([
      'SIGNATURE_PUBLIC_KEYS',
      'SIGNATURE_IDENTITY',
      'SIGNATURE_ISSUER',
      'SIGSTORE_TRUSTED_ROOT',
      'PREPULL_TIMEOUT',
      'PREPULL_PARALLEL',
      'WINDOW_MARGIN',
      'PREPULL_OUTSIDE_WINDOW',
    ]);
  });

  it('names each variable once, in the shape of an environment variable', async () => {
    const names = (await table()).CONFIG_VARIABLES.map((v) => v.name);
    expect(new Set(names).size).toBe(names.length);
    for (const name of names) expect(name).toMatch(/^[A-Z][A-Z0-9_]*$/);
  });

  it('gives every row a default and a meaning an operator can read, every section a heading', async () => {
    const { CONFIG_VARIABLES, VARIABLE_SECTIONS } = await table();
    for (const v of CONFIG_VARIABLES) {
      expect(v.default.trim(), v.name).not.toBe('');
      expect(v.meaning.trim(), v.name).not.toBe('');
      expect(`${v.default} ${v.meaning}`, v.name).not.toMatch(/undefined|NaN|\[object/);
    }
    for (const [section, heading] of Object.entries(VARIABLE_SECTIONS)) expect(heading.trim(), section).not.toBe('');
  });

  it('groups the rows by section, in the order of the headings, none empty', async () => {
    const { CONFIG_VARIABLES, VARIABLE_SECTIONS } = await table();
    const order = Object.keys(VARIABLE_SECTIONS);
    const sections = CONFIG_VARIABLES.map((v) => v.section);
    expect([...new Set(sections)]).toEqual(order);
    const indices = sections.map((s) => order.indexOf(s));
    expect(indices).toEqual([...indices].sort((a, b) => a - b));
  });

  it('keeps the metrics push in its own section, last', async () => {
    const { CONFIG_VARIABLES } = await table();
    const metrics = CONFIG_VARIABLES.filter((v) => v.section === READ_BY_THE_CLI).map((v) => v.name);
    expect(metrics).toEqual(['PUSHGATEWAY_URL', 'METRICS_JOB', 'METRICS_GROUPING']);
    expect(CONFIG_VARIABLES.slice(-metrics.length).map((v) => v.name)).toEqual(metrics);
  });

  it('names as default a value that, set explicitly, parses as leaving the variable unset does', async () => {
    const unset = parsedOrThrow(CHART);
    const literal = /^`([^`<]+)`$/;
    const stated = tickRowsOf((await table()).CONFIG_VARIABLES).filter((v) => literal.test(v.default));
    // Most rows name a plain value; the rest say a sentence (`required`, `none`, `unset: …`) or derive
    // from the release (`<release>-jobs-manager`).
    expect(stated.length).toBeGreaterThanOrEqual(25);
    for (const v of stated) {
      const value = literal.exec(v.default)?.[1] ?? '';
      expect(parsedOrThrow({ ...CHART, [v.name]: value }), `${v.name}=${value}`).toEqual(unset);
    }
  });

  it('says where a bound caps a duration, with the cap the parser enforces', async () => {
    const rolloutTimeout = (await table()).CONFIG_VARIABLES.find((v) => v.name === 'ROLLOUT_TIMEOUT');
    const cap = /at most (\S+)\)/.exec(rolloutTimeout?.meaning ?? '')?.[1] ?? '';
    expect(cap).not.toBe('');
    expect(E.isRight(parseTickConfig({ ...CHART, ROLLOUT_TIMEOUT: cap }))).toBe(true);
    expect(E.isLeft(parseTickConfig({ ...CHART, ROLLOUT_TIMEOUT: `${cap}1s` }))).toBe(true);
  });
});
