import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { interruptedBy, parseFleetHalt, parseFleetPromotion, renderFleetPromotion } from '@image-refresh/core';
import * as E from 'fp-ts/lib/Either.js';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type FakeEdge, type FakePrometheus, seriesOf, startFakePrometheus } from './support/fake-prometheus.js';
import { D, D2, OLD, runPromote, theLine } from './support/run-promote.js';

// `image-refresh promote` as a command (docs/fleet-promotion.md, "The
// verdict"): against a fake Prometheus HTTP API on 127.0.0.1, its exit codes,
// its lines, and the files it writes read back with the parsers the edges use.

const HOUR = 3_600;
let prometheus: FakePrometheus;
let dir: string;
beforeAll(async () => {
  prometheus = await startFakePrometheus();
});
afterAll(async () => {
  await prometheus.close();
});
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'promote-command-'));
  prometheus.mode = 'answer';
  prometheus.series = [];
  prometheus.requests.length = 0;
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const nowS = () => Date.now() / 1_000;
const fleet = (...edges: FakeEdge[]) => {
  prometheus.series = seriesOf(edges, nowS());
};
/** The table's row of an edge: the line that starts with its name. */
const row = (lines: readonly string[], edge: string) =>
  theLine(
    lines.filter((line) => line.startsWith(`${edge} `)),
    edge,
  );
const ran = (agoS = 3 * HOUR) => ({ digest: D, agoS });
const ask = (...extra: string[]) =>
  runPromote(['--prometheus', prometheus.url, '--image', 'web', '--digest', D, '--ring', '1', '--for', '2h', ...extra]);

describe('image-refresh promote, the verdict', () => {
  it('promotes: exit 0, the table, and --out writes a promotion the edges parse; two queries, one instant', async () => {
    fleet({ edge: 'canary-1', ring: 0, recorded: ran() }, { edge: 'canary-2', ring: 0, recorded: ran() });
    const out = join(dir, 'promotion.json');
    const run = await ask('--out', out, '--expires', '3d');
    expect(run.exitCode).toBe(0);
    expect(theLine(run.stdout, 'PROMOTE')).toBe(
      `promote web@sha256:dddddddddddd… to ring 1: PROMOTE: 2 edge(s) of rings < 1 ran it for at least 2h, clean`,
    );
    expect(theLine(run.stdout, 'EDGE')).toMatch(/^EDGE\s+RING\s+RECORDED DIGEST\s+RECORDED SINCE\s+VERDICT\s+WHY$/);
    expect(theLine(run.stdout, 'canary-2')).toMatch(
      /^canary-2\s+0\s+sha256:d{12}…\s+\S+Z \(3h ago\)\s+yes\s+ran it 2h59m to its last push \(1m ago\), clean$/,
    );
    const doc = parseFleetPromotion(readFileSync(out, 'utf8'), Date.now());
    if (E.isLeft(doc)) throw new Error(doc.left);
    expect(doc.right.promotions).toHaveLength(1);
    expect(doc.right.promotions[0]).toMatchObject({ image: 'web', digest: D, ring: 1 });
    const expiresIn = (doc.right.promotions[0]?.expiresAtMs ?? 0) - Date.now();
    expect(expiresIn).toBeGreaterThan(3 * 24 * HOUR * 1_000 - 60_000);
    expect(expiresIn).toBeLessThanOrEqual(3 * 24 * HOUR * 1_000);
    expect(doc.right.promotions[0]?.evidence).toMatch(
      new RegExp(`^2 edge\\(s\\) of rings < 1 ran it for >= 2h clean \\(min 1\\); ${prometheus.url} at \\d{4}-`),
    );
    expect(theLine(run.stdout, 'oras push')).toContain(
      `${out}:application/vnd.image-refresh.fleet-promotion.v1+json --artifact-type application/vnd.image-refresh.fleet-promotion.v1+json`,
    );
    expect(theLine(run.stdout, 'cosign sign')).toContain('@<digest oras printed>');
    expect(readdirSync(dir)).toEqual(['promotion.json']);
    expect(prometheus.requests).toHaveLength(2);
    expect(new Set(prometheus.requests.map((r) => r.time)).size).toBe(1);
  });

  it('--json prints one JSON object with the verdict and the evidence per edge', async () => {
    fleet({ edge: 'canary-1', ring: 0, recorded: ran() }, { ring: 0 });
    const run = await ask('--json');
    expect(run.exitCode).toBe(0);
    expect(run.stdout).toHaveLength(1);
    const json = JSON.parse(run.stdout[0] ?? '');
    expect(json).toMatchObject({
      verdict: 'promote',
      exitCode: 0,
      image: 'web',
      digest: D,
      ring: 1,
      for: '2h',
      minEdges: 1,
      prometheus: prometheus.url,
      edgesCounted: 1,
      rollbacks: [],
      wrote: null,
    });
    expect(json.edges).toEqual([
      expect.objectContaining({ edge: 'canary-1', ring: 0, recordedDigest: D, verdict: 'yes' }),
      expect.objectContaining({
        edge: null,
        grouping: { instance: '127.0.0.1:9091', job: 'image-refresh', namespace: 'orphan-1' },
        verdict: 'not counted',
        why: ['no edge label (METRICS_GROUPING needs edge=<id>)'],
      }),
    ]);
  });

  it.each([
    [
      'not yet: another digest',
      { recorded: { digest: OLD, agoS: 9 * HOUR } },
      'NO, NOT YET',
      'runs sha256:000000000000…, not this digest',
    ],
    [
      'too short',
      { recorded: ran(HOUR) },
      'NO, NOT YET',
      'recorded it 1h ago, ran it 59m to its last push (1m ago), needs 2h',
    ],
    ['locked out', { recorded: ran(), lockedOut: true }, 'NO:', 'flap-locked-out within the last 2h'],
    ['failed tick', { recorded: ran(), failedExitCode: 1 }, 'NO:', 'a tick exited 1 within the last 2h'],
    [
      'unsettled',
      { recorded: ran(), skipStreak: 2 },
      'NO:',
      'its gate was unsettled — skipped ticks, up to 2 in a row — within the last 2h',
    ],
    [
      'frozen',
      { recorded: ran(), frozen: true },
      'NO:',
      'frozen — its gate unsettled for MAX_SKIP_TICKS ticks — within the last 2h',
    ],
    ['rollback', { recorded: ran(), rolledBack: 1 }, 'NO:', 'a tick rolled back 1 workload(s) within the last 2h'],
    [
      'quarantined',
      { recorded: { digest: OLD, agoS: 9 * HOUR }, quarantined: { digest: D, repository: 'shop/web', agoS: HOUR } },
      'NO: edge canary-2 (ring 0) rolled it back and quarantined it at',
      'rolled sha256:dddddddddddd… back and quarantined it (shop/web) at',
    ],
  ] as const)('no (%s): exit 1, the edge named with why, nothing written', async (_, canary2, verdict, why) => {
    fleet({ edge: 'canary-1', ring: 0, recorded: ran() }, { edge: 'canary-2', ring: 0, ...canary2 });
    const out = join(dir, 'promotion.json');
    const run = await ask('--out', out);
    expect(run.exitCode).toBe(1);
    expect(theLine(run.stdout, verdict)).toMatch(/^promote web@/);
    expect(row(run.stdout, 'canary-2')).toContain(why);
    expect(row(run.stdout, 'canary-1')).toMatch(/\syes\s/);
    expect(theLine(run.stdout, `${out}: nothing written`)).toMatch(/the verdict is (no|not yet), not promote$/);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('--halt-on-rollback writes the fleet halt of a digest a canary quarantined: exit 1', async () => {
    fleet(
      { edge: 'canary-1', ring: 0, recorded: ran() },
      {
        edge: 'canary-2',
        ring: 0,
        quarantined: { digest: D, repository: 'registry.example:5000/shop/web', agoS: 600 },
      },
    );
    const out = join(dir, 'halt.json');
    const run = await ask('--halt-on-rollback', '--out', out);
    expect(run.exitCode).toBe(1);
    expect(theLine(run.stdout, 'rollback: edge canary-2')).toMatch(
      /rolled registry\.example:5000\/shop\/web@sha256:d{12}… back and quarantined it; first seen \d{4}-/,
    );
    const halt = parseFleetHalt(readFileSync(out, 'utf8'), Date.now());
    if (E.isLeft(halt)) throw new Error(halt.left);
    expect(halt.right.repositories).toEqual({ 'registry.example:5000/shop/web': { digests: [D], pin: undefined } });
    expect(halt.right.reason).toMatch(/^web@sha256:d{12}\.\.\. rolled back and quarantined on edge canary-2 at /);
    expect(theLine(run.stdout, `wrote ${out}: halts registry.example:5000/shop/web until`)).toBeTruthy();
    expect(theLine(run.stdout, 'oras push')).toContain('fleet-halt.v1+json');
    expect(halt.right.expiresAtMs - Date.now()).toBeGreaterThan(24 * HOUR * 1_000 - 60_000);
  });

  it('a rollback by a grouping without an edge label says no, and --halt-on-rollback writes its halt', async () => {
    fleet(
      { edge: 'canary-1', ring: 0, recorded: ran() },
      { ring: 0, quarantined: { digest: D, repository: 'shop/web', agoS: 600 } },
    );
    const out = join(dir, 'halt.json');
    const run = await ask('--halt-on-rollback', '--out', out);
    expect(run.exitCode).toBe(1);
    expect(theLine(run.stdout, 'NO:')).toMatch(
      /NO: grouping job=image-refresh,namespace=orphan-1 \(ring 0, no edge label\) rolled it back and quarantined it at \d{4}-/,
    );
    expect(theLine(run.stdout, 'rollback: grouping')).toMatch(
      /^rollback: grouping job=image-refresh,namespace=orphan-1 \(no edge label\) rolled shop\/web@sha256:d{12}… back and quarantined it; first seen \d{4}-/,
    );
    const halt = parseFleetHalt(readFileSync(out, 'utf8'), Date.now());
    if (E.isLeft(halt)) throw new Error(halt.left);
    expect(halt.right.repositories).toEqual({ 'shop/web': { digests: [D], pin: undefined } });
    expect(halt.right.reason).toMatch(/ on grouping job=image-refresh,namespace=orphan-1 at /);
    const json = JSON.parse((await ask('--json')).stdout[0] ?? '');
    expect(json).toMatchObject({ verdict: 'no', exitCode: 1 });
    expect(json.rollbacks).toEqual([
      {
        edge: null,
        grouping: { instance: '127.0.0.1:9091', job: 'image-refresh', namespace: 'orphan-1' },
        repository: 'shop/web',
        at: expect.any(String),
      },
    ]);
  });

  it('--from keeps another image’s entry, drops the expired and replaces this digest’s', async () => {
    fleet({ edge: 'canary-1', ring: 0, recorded: ran() });
    const from = join(dir, 'published.json');
    const soon = new Date(Date.now() + 5 * 24 * HOUR * 1_000).toISOString().replace(/\.\d+Z$/, 'Z');
    const past = new Date(Date.now() - HOUR * 1_000).toISOString().replace(/\.\d+Z$/, 'Z');
    writeFileSync(
      from,
      renderFleetPromotion([
        { image: 'api', digest: D2, ring: 2, expires: soon, evidence: 'earlier' },
        { image: 'jobs', digest: D2, ring: 1, expires: past, evidence: 'expired' },
        { image: 'web', digest: D, ring: 3, expires: soon, evidence: 'replaced' },
      ]),
    );
    const out = join(dir, 'promotion.json');
    const run = await ask('--from', from, '--out', out);
    expect(run.exitCode).toBe(0);
    const doc = parseFleetPromotion(readFileSync(out, 'utf8'), Date.now());
    if (E.isLeft(doc)) throw new Error(doc.left);
    expect(doc.right.promotions.map((p) => [p.image, p.ring, p.evidence.slice(0, 8)])).toEqual([
      ['api', 2, 'earlier'],
      ['web', 1, '1 edge(s'],
    ]);
    expect(theLine(run.stdout, `wrote ${out}`)).toContain('(2 promotion(s) in the document)');
  });
});

describe('image-refresh promote, a document the edges would not read', () => {
  it('--from with too many entries: over MAX_PROMOTION_BYTES nothing is written, the size, the cap and how to prune said, exit 1', async () => {
    fleet({ edge: 'canary-1', ring: 0, recorded: ran() });
    const from = join(dir, 'published.json');
    const soon = new Date(Date.now() + 5 * 24 * HOUR * 1_000).toISOString().replace(/\.\d+Z$/, 'Z');
    // 60 other digests of api, each with the evidence line promote writes: ~19 KiB.
    writeFileSync(
      from,
      renderFleetPromotion(
        Array.from({ length: 60 }, (_, i) => ({
          image: 'api',
          digest: `sha256:${i.toString(16).padStart(64, '0')}`,
          ring: 1,
          expires: soon,
          evidence: `3 edge(s) of rings < 1 ran it for >= 2h clean (min 3); https://prometheus.example:9090 at 2026-12-01T12:00:00Z`,
        })),
      ),
    );
    const out = join(dir, 'promotion.json');
    for (const extra of [[], ['--json']]) {
      const run = await ask('--from', from, '--out', out, ...extra);
      expect(run.exitCode).toBe(1);
      expect(theLine(run.stderr, 'not written')).toMatch(
        /promote: .*promotion\.json: not written: the promotion document would be \d+ bytes \(61 promotion\(s\)\), more than the 16384 bytes an edge reads; prune it: a shorter --expires, or a --from without superseded entries$/,
      );
      expect(readdirSync(dir)).toEqual(['published.json']);
      if (extra.length > 0) expect(JSON.parse(run.stdout[0] ?? '')).toMatchObject({ exitCode: 1, wrote: null });
    }
  });
});

describe('image-refresh promote --json, an --out that is not written', () => {
  it('the JSON object’s exitCode is the process’s: 1, not the verdict’s 0, with wrote null', async () => {
    fleet({ edge: 'canary-1', ring: 0, recorded: ran() });
    const run = await ask('--json', '--out', join(dir, 'no-such-dir', 'promotion.json'));
    expect(run.exitCode).toBe(1);
    expect(theLine(run.stderr, 'could not write')).toContain('no-such-dir');
    expect(run.stdout).toHaveLength(1);
    expect(JSON.parse(run.stdout[0] ?? '')).toMatchObject({ verdict: 'promote', exitCode: 1, wrote: null });
  });
});

describe('image-refresh promote, too thin to say (exit 3)', () => {
  it('fewer counted edges than --min-edges', async () => {
    fleet({ edge: 'canary-1', ring: 0, recorded: ran() });
    const run = await ask('--min-edges', '2', '--out', join(dir, 'p.json'));
    expect(run.exitCode).toBe(3);
    expect(theLine(run.stdout, 'TOO THIN')).toContain(
      '1 edge(s) of rings < 1 pushed within the last hour and were counted, --min-edges is 2',
    );
    expect(readdirSync(dir)).toEqual([]);
  });

  it('no edge pushed within the hour', async () => {
    fleet({ edge: 'canary-1', ring: 0, recorded: ran(), pushedAgoS: 2 * HOUR });
    const run = await ask();
    expect(run.exitCode).toBe(3);
    expect(theLine(run.stdout, 'canary-1')).toMatch(/not counted\s+last pushed \S+ \(2h ago\), more than 1h$/);
  });
});

describe('image-refresh promote, no evidence (exit 3), the real cause named', () => {
  it.each([
    ['status500', 'Transport: answered 500: query engine exploded'],
    ['status404', 'NotFound: answered 404'],
    ['status403', 'Forbidden: answered 403'],
    ['notJson', 'Malformed: the answer is not JSON'],
    ['notVector', 'Malformed: data is not an instant vector'],
  ] as const)('%s', async (mode, cause) => {
    prometheus.mode = mode;
    const run = await ask('--json');
    expect(run.exitCode).toBe(3);
    expect(theLine(run.stderr, 'no evidence')).toContain(
      `promote: no evidence: Prometheus ${prometheus.url}: ${cause}`,
    );
    expect(JSON.parse(run.stdout[0] ?? '')).toMatchObject({
      verdict: 'unknown',
      exitCode: 3,
      error: { kind: mode === 'status500' ? 'Transport' : expect.any(String) },
    });
  });

  it('a chunked answer past the cap (no content-length) stops at the cap: Malformed, not read until the timeout', async () => {
    prometheus.mode = 'endless';
    const started = Date.now();
    const run = await ask('--timeout', '5s');
    expect(run.exitCode).toBe(3);
    expect(theLine(run.stderr, 'no evidence')).toContain('Malformed: an answer of more than 67108864 bytes');
    expect(Date.now() - started).toBeLessThan(4_000);
  }, 30_000);

  it('unreachable: Transport, naming the refused connection', async () => {
    const closed = await startFakePrometheus();
    await closed.close();
    const run = await runPromote([
      '--prometheus',
      closed.url,
      '--image',
      'web',
      '--digest',
      D,
      '--ring',
      '1',
      '--for',
      '2h',
    ]);
    expect(run.exitCode).toBe(3);
    expect(theLine(run.stderr, 'no evidence')).toMatch(/Transport: fetch failed: .*ECONNREFUSED/);
  });

  it('hanging: Timeout within --timeout', async () => {
    prometheus.mode = 'hang';
    const started = Date.now();
    const run = await ask('--timeout', '300ms');
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(run.exitCode).toBe(3);
    expect(theLine(run.stderr, 'no evidence')).toContain('Timeout: no answer within 0.3s');
  });

  it('a signal ends the queries at once: exit 143, not a timeout', async () => {
    prometheus.mode = 'hang';
    const stop = new AbortController();
    setTimeout(() => stop.abort(interruptedBy('SIGTERM')), 100);
    const started = Date.now();
    const run = await runPromote(
      ['--prometheus', prometheus.url, '--image', 'web', '--digest', D, '--ring', '1', '--for', '2h', '--json'],
      stop.signal,
    );
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(run.exitCode).toBe(143);
    expect(theLine(run.stderr, 'no evidence')).toContain('Interrupted: interrupted by a signal');
    expect(JSON.parse(run.stdout[0] ?? '')).toMatchObject({ verdict: 'unknown', exitCode: 143 });
  });
});

describe('image-refresh promote, credentials never in argv', () => {
  const base = ['--image', 'web', '--digest', D, '--ring', '1', '--for', '2h'];
  const secretFree = (run: { stdout: readonly string[]; stderr: readonly string[] }) =>
    expect([...run.stdout, ...run.stderr].join('\n')).not.toMatch(/s3cret|ops:|tok-123/);

  it.each([
    ['user:pass@', 'http://ops:s3cret-pw@127.0.0.1:1'],
    ['a stray % in the password', 'http://ops:s3cret%zz@127.0.0.1:1'],
  ])('a --prometheus URL with %s is refused: exit 2, the alternatives named, nothing asked', async (_, url) => {
    const run = await runPromote(['--prometheus', url, ...base]);
    expect(run.exitCode).toBe(2);
    expect(theLine(run.stderr, '--prometheus')).toContain(
      '--prometheus carries credentials (user:password@): credentials never ride in argv (ps, CI logs); give --bearer-token-file FILE or --basic-auth-file FILE',
    );
    secretFree(run);
    expect(prometheus.requests).toEqual([]);
  });

  it('--bearer-token-file sends Authorization: Bearer <the file, trimmed>, printed nowhere', async () => {
    fleet({ edge: 'canary-1', ring: 0, recorded: ran() });
    const file = join(dir, 'token');
    writeFileSync(file, '  tok-123\n');
    const out = join(dir, 'promotion.json');
    const runs = [
      await ask('--bearer-token-file', file, '--out', out),
      await ask('--bearer-token-file', file, '--json'),
    ];
    prometheus.mode = 'status403';
    runs.push(await ask('--bearer-token-file', file));
    expect(runs.map((r) => r.exitCode)).toEqual([0, 0, 3]);
    for (const run of runs) secretFree(run);
    expect(readFileSync(out, 'utf8')).not.toContain('tok-123');
    expect(new Set(prometheus.requests.map((r) => r.authorization))).toEqual(new Set(['Bearer tok-123']));
  });

  it('--basic-auth-file sends user:password on its one line as Basic auth, printed nowhere', async () => {
    fleet({ edge: 'canary-1', ring: 0, recorded: ran() });
    const file = join(dir, 'basic');
    writeFileSync(file, 'ops:s3cret-pw\n');
    const run = await ask('--basic-auth-file', file);
    expect(run.exitCode).toBe(0);
    secretFree(run);
    expect(prometheus.requests[0]?.authorization).toBe(`Basic ${Buffer.from('ops:s3cret-pw').toString('base64')}`);
  });

  it.each([
    [
      'a missing --bearer-token-file',
      () => ['--bearer-token-file', join(dir, 'nope')],
      /--bearer-token-file \S+nope: cannot read it: ENOENT/,
    ],
    [
      'an empty --bearer-token-file',
      () => {
        writeFileSync(join(dir, 'empty'), ' \n');
        return ['--bearer-token-file', join(dir, 'empty')];
      },
      /--bearer-token-file \S+empty: it is empty$/,
    ],
    [
      'a missing --basic-auth-file',
      () => ['--basic-auth-file', join(dir, 'nope')],
      /--basic-auth-file \S+nope: cannot read it: ENOENT/,
    ],
    [
      'a --basic-auth-file without user:password on one line',
      () => {
        writeFileSync(join(dir, 'bad'), 'ops-s3cret\nmore\n');
        return ['--basic-auth-file', join(dir, 'bad')];
      },
      /--basic-auth-file \S+bad: not user:password on one line$/,
    ],
    [
      'both',
      () => {
        writeFileSync(join(dir, 't'), 'tok-123');
        return ['--bearer-token-file', join(dir, 't'), '--basic-auth-file', join(dir, 't')];
      },
      /--bearer-token-file and --basic-auth-file: give one$/,
    ],
  ])('%s: exit 2 naming the flag and the file, never its contents, nothing asked', async (_, flags, said) => {
    const run = await ask(...flags());
    expect(run.exitCode).toBe(2);
    expect(run.stderr.join('\n')).toMatch(said);
    secretFree(run);
    expect(prometheus.requests).toEqual([]);
  });
});

describe('image-refresh promote, usage errors (exit 2, nothing asked)', () => {
  const base = ['--image', 'web', '--digest', D, '--ring', '1', '--for', '2h'];
  it.each([
    [
      'an unknown flag',
      ['--prometheus', 'http://127.0.0.1:1', ...base, '--bogus'],
      "image-refresh: promote: Unknown option '--bogus'",
    ],
    [
      'a malformed digest',
      ['--prometheus', 'http://127.0.0.1:1', ...base, '--digest', 'sha256:abc'],
      '--digest sha256:abc: not sha256:<64 hex>',
    ],
    [
      'ring 0',
      ['--prometheus', 'http://127.0.0.1:1', ...base, '--ring', '0'],
      '--ring 0: a whole number from 1 to 100',
    ],
    ['a bad --for', ['--prometheus', 'http://127.0.0.1:1', ...base, '--for', 'soon'], '--for soon: a duration'],
    ['no --prometheus', base, '--prometheus is required'],
    [
      '--expires beyond 30 days',
      ['--prometheus', 'http://127.0.0.1:1', ...base, '--expires', '31d'],
      '--expires 31d: at most 30 days',
    ],
    [
      '--halt-on-rollback without --out',
      ['--prometheus', 'http://127.0.0.1:1', ...base, '--halt-on-rollback'],
      'give --out',
    ],
  ])('%s', async (_, args, said) => {
    const run = await runPromote(args);
    expect(run.exitCode).toBe(2);
    expect(theLine(run.stderr, said)).toBeTruthy();
    expect(prometheus.requests).toEqual([]);
  });

  it('an unreadable or invalid --from', async () => {
    const missing = await ask('--from', join(dir, 'nope.json'), '--out', join(dir, 'p.json'));
    expect(missing.exitCode).toBe(2);
    expect(theLine(missing.stderr, '--from')).toMatch(/cannot read it: ENOENT/);
    const invalid = join(dir, 'invalid.json');
    writeFileSync(invalid, '{"version":2,"promotions":[]}');
    const bad = await ask('--from', invalid);
    expect(bad.exitCode).toBe(2);
    expect(theLine(bad.stderr, '--from')).toContain('not a promotion document: version 2 is not 1');
    expect(prometheus.requests).toEqual([]);
  });
});

describe('image-refresh promote, help', () => {
  it('help promote prints what promote --help prints, exit codes included', async () => {
    const viaHelp = await runPromote(['--help']);
    expect(viaHelp.exitCode).toBe(0);
    expect(viaHelp.stdout.join('\n')).toMatch(/^Usage: image-refresh promote --prometheus URL/);
    expect(viaHelp.stdout.join('\n')).toContain('Exit codes: 0 promote, 1 the evidence says no');
  });
});
