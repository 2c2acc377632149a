import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { StageRun } from './support/cluster-stage.js';
import { linesWith } from './support/run-bundle.js';
import { tinyStagePerTest } from './support/tiny-stage.js';

// A configuration error, as an operator meets it: every problem of the
// environment in one report — core's parse, the metrics settings
// (PUSHGATEWAY_URL, METRICS_JOB, METRICS_GROUPING) and the files the
// signature check reads (SIGNATURE_PUBLIC_KEYS, SIGSTORE_TRUSTED_ROOT) — each
// naming its variable, then the summary as the last line, exit 2, and not
// one request to the API server or the registry (docs/behaviour.md §2, I18).
// Before, the metrics settings were reported alone and first, the key files
// only once core's parse passed, and neither path printed a summary.
// Every case was red on the unfixed CLI, which returned on the metrics
// settings before core's parse (the first and third cases named only the
// metrics variable), read the key files only once core's parse passed (the
// second and the status case), printed no summary on those paths (the
// single-problem cases) and printed the metrics errors as text on stderr
// under --json.

const startTinyStage = tinyStagePerTest();
const files = mkdtempSync(join(tmpdir(), 'image-refresh-config-report-'));
afterAll(() => rmSync(files, { recursive: true, force: true }));

const CONFIG_LINE = '[image-refresh] ERROR: configuration: ';

/** The variables the run's configuration lines name, in the order printed. */
const namedVariables = (run: StageRun): string[] =>
  linesWith(run.stderr, CONFIG_LINE).map((line) => line.slice(CONFIG_LINE.length).split('=')[0] ?? '');

/** Exit 2, the summary last, nothing asked of the API server or the registry. */
const refusedBeforeAnyCall = (run: StageRun, problems: number) => {
  expect(run.exitCode).toBe(2);
  expect(run.stderr.at(-1)).toBe(
    `[image-refresh] summary: outcome=configInvalid exit=2 findings=${problems} writes=0 re-images=0 unresolved=0`,
  );
  expect(run.api).toEqual([]);
  expect(run.registry).toEqual([]);
};

describe('a malformed environment is one report: every problem, the summary last, exit 2, no call', () => {
  it('PUSHGATEWAY_URL, MIN_DIGEST_AGE, ROLLOUT_RING and VERIFY_SIGNATURES wrong together: all four named', async () => {
    const { stage } = await startTinyStage();
    const run = await stage.run(['tick'], {
      PUSHGATEWAY_URL: 'not a url',
      MIN_DIGEST_AGE: '1x',
      ROLLOUT_RING: 'abc',
      VERIFY_SIGNATURES: 'yes',
    });
    expect(namedVariables(run).sort()).toEqual(
      ['MIN_DIGEST_AGE', 'PUSHGATEWAY_URL', 'ROLLOUT_RING', 'VERIFY_SIGNATURES'].sort(),
    );
    refusedBeforeAnyCall(run, 4);
  });

  it('a missing SIGNATURE_PUBLIC_KEYS file is named with MAX_SKIP_TICKS and MIN_DIGEST_AGE, not on the next run', async () => {
    const { stage } = await startTinyStage();
    const missing = join(files, 'nope.pub');
    const run = await stage.run(['tick'], {
      VERIFY_SIGNATURES: 'enforce',
      SIGNATURE_PUBLIC_KEYS: missing,
      MAX_SKIP_TICKS: 'abc',
      MIN_DIGEST_AGE: '1x',
    });
    expect(namedVariables(run).sort()).toEqual(['MAX_SKIP_TICKS', 'MIN_DIGEST_AGE', 'SIGNATURE_PUBLIC_KEYS']);
    expect(linesWith(run.stderr, 'SIGNATURE_PUBLIC_KEYS')).toEqual([
      `${CONFIG_LINE}SIGNATURE_PUBLIC_KEYS=${JSON.stringify(missing)}: cannot be read (ENOENT)`,
    ]);
    refusedBeforeAnyCall(run, 3);
  });

  it('METRICS_GROUPING and SIGSTORE_TRUSTED_ROOT wrong beside a core problem: all three named', async () => {
    const { stage } = await startTinyStage();
    const root = join(files, 'trusted_root.json');
    writeFileSync(root, '[1, 2]');
    const run = await stage.run(['tick'], {
      PUSHGATEWAY_URL: 'http://127.0.0.1:9/',
      METRICS_GROUPING: 'edge',
      VERIFY_SIGNATURES: 'warn',
      SIGNATURE_IDENTITY: 'ci@example.com',
      SIGNATURE_ISSUER: 'https://issuer.example.com',
      SIGSTORE_TRUSTED_ROOT: root,
      API_TIMEOUT: '15',
    });
    expect(namedVariables(run).sort()).toEqual(['API_TIMEOUT', 'METRICS_GROUPING', 'SIGSTORE_TRUSTED_ROOT']);
    refusedBeforeAnyCall(run, 3);
  });

  it.each([
    ['a PUSHGATEWAY_URL that is not a URL', { PUSHGATEWAY_URL: 'pushgateway:9091' }, 'PUSHGATEWAY_URL'],
    [
      'a METRICS_GROUPING item that is not k=v',
      { PUSHGATEWAY_URL: 'http://127.0.0.1:9', METRICS_GROUPING: 'x' },
      'METRICS_GROUPING',
    ],
    [
      'a SIGNATURE_PUBLIC_KEYS file that is missing',
      { VERIFY_SIGNATURES: 'enforce', SIGNATURE_PUBLIC_KEYS: '/nonexistent/cosign.pub' },
      'SIGNATURE_PUBLIC_KEYS',
    ],
    [
      'a SIGSTORE_TRUSTED_ROOT that is missing',
      {
        VERIFY_SIGNATURES: 'enforce',
        SIGNATURE_IDENTITY: 'ci@example.com',
        SIGNATURE_ISSUER: 'https://issuer.example.com',
        SIGSTORE_TRUSTED_ROOT: '/nonexistent/trusted_root.json',
      },
      'SIGSTORE_TRUSTED_ROOT',
    ],
  ])('%s alone: its line, then the summary as the last line', async (_, env, variable) => {
    const { stage } = await startTinyStage();
    const run = await stage.run(['tick'], env);
    expect(namedVariables(run)).toEqual([variable]);
    refusedBeforeAnyCall(run, 1);
  });

  it('--json: every problem a CONFIG_INVALID object on stdout, the SUMMARY object last, nothing on stderr', async () => {
    const { stage } = await startTinyStage();
    const run = await stage.run(['tick', '--json'], {
      PUSHGATEWAY_URL: 'not a url',
      VERIFY_SIGNATURES: 'enforce',
      SIGNATURE_PUBLIC_KEYS: '/nonexistent/cosign.pub',
      MAX_SKIP_TICKS: '0',
    });
    expect(run.exitCode).toBe(2);
    expect(run.stderr).toEqual([]);
    const objects = run.stdout.map((line) => JSON.parse(line) as { level: string; code: string; message: string });
    expect(objects.slice(0, -1).map((o) => `${o.level} ${o.code} ${o.message.split('=')[0]}`)).toEqual(
      expect.arrayContaining([
        'error CONFIG_INVALID ERROR: configuration: PUSHGATEWAY_URL',
        'error CONFIG_INVALID ERROR: configuration: SIGNATURE_PUBLIC_KEYS',
        'error CONFIG_INVALID ERROR: configuration: MAX_SKIP_TICKS',
      ]),
    );
    expect(objects).toHaveLength(4);
    expect(objects.at(-1)).toEqual({
      level: 'info',
      code: 'SUMMARY',
      message: 'summary: outcome=configInvalid exit=2 findings=3 writes=0 re-images=0 unresolved=0',
    });
    expect(run.api).toEqual([]);
  });

  it('status reports the key files with core’s problems too, exit 2, no call', async () => {
    const { stage } = await startTinyStage();
    const run = await stage.run(['status'], {
      VERIFY_SIGNATURES: 'enforce',
      SIGNATURE_PUBLIC_KEYS: '/nonexistent/cosign.pub',
      MAX_REFRESH_ATTEMPTS: 'three',
    });
    expect(run.exitCode).toBe(2);
    expect(namedVariables(run).sort()).toEqual(['MAX_REFRESH_ATTEMPTS', 'SIGNATURE_PUBLIC_KEYS']);
    expect(run.api).toEqual([]);
  });
});

// Limits that do not contradict each other (docs/behaviour.md §3, Bounds):
// START_JITTER is waited inside the tick, so it is capped by what the Job's
// deadline holds; MIN_DIGEST_AGE and RING_DELAY are ages compared with this
// edge's pending record, never waited for, and have a limit of their own that
// the whole required age (MIN_DIGEST_AGE + ROLLOUT_RING × RING_DELAY) obeys
// too. Before: START_JITTER=24h was accepted (and waited), MIN_DIGEST_AGE=25h
// was refused as "waited for inside one tick", and ROLLOUT_RING=1000
// RING_DELAY=24h (1000 days) was accepted.
// Each case was red on the unfixed parser: START_JITTER=24h accepted (and
// waited: the test timed out), MIN_DIGEST_AGE=25h refused, MIN_DIGEST_AGE=721h
// refused as "waited for inside one tick", the thousand rings accepted.
describe('limits an operator can trust', () => {
  it('START_JITTER=24h: exit 2 naming the variable and its cap, no call', async () => {
    const { stage } = await startTinyStage();
    const run = await stage.run(['tick'], { START_JITTER: '24h' });
    expect(linesWith(run.stderr, CONFIG_LINE)).toEqual([
      expect.stringMatching(/^\[image-refresh\] ERROR: configuration: START_JITTER="24h": must be at most 10m: /),
    ]);
    refusedBeforeAnyCall(run, 1);
  });

  it('MIN_DIGEST_AGE=25h is an age, not a wait: accepted, the tick runs', async () => {
    const { stage } = await startTinyStage();
    const run = await stage.tick({ MIN_DIGEST_AGE: '25h' });
    expect(run.exitCode).toBe(0);
    expect(linesWith(run.stderr, CONFIG_LINE)).toEqual([]);
    expect(run.stderr.at(-1)).toMatch(/summary: outcome=complete exit=0 /);
  });

  it('MIN_DIGEST_AGE=721h: exit 2 with the age’s own limit and reason, never "waited for inside one tick"', async () => {
    const { stage } = await startTinyStage();
    const run = await stage.run(['tick'], { MIN_DIGEST_AGE: '721h' });
    const [line] = linesWith(run.stderr, CONFIG_LINE);
    expect(line).toMatch(
      /^\[image-refresh\] ERROR: configuration: MIN_DIGEST_AGE="721h": must be at most 720h \(30 days\): it is an age/,
    );
    expect(line).not.toContain('waited');
    refusedBeforeAnyCall(run, 1);
  });

  it('ROLLOUT_RING=1000 RING_DELAY=24h (1000 days): exit 2 naming the ring and the whole required age', async () => {
    const { stage } = await startTinyStage();
    const run = await stage.run(['tick'], { ROLLOUT_RING: '1000', RING_DELAY: '24h' });
    expect(linesWith(run.stderr, CONFIG_LINE)).toEqual([
      expect.stringMatching(
        /^\[image-refresh\] ERROR: configuration: ROLLOUT_RING="1000": makes the required age MIN_DIGEST_AGE \+ ROLLOUT_RING × RING_DELAY = 0s \+ 1000 × 24h = 24000h, more than 720h \(30 days\)/,
      ),
    ]);
    refusedBeforeAnyCall(run, 1);
  });
});
