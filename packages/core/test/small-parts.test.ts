import * as E from 'fp-ts/lib/Either.js';
import * as O from 'fp-ts/lib/Option.js';
import { describe, expect, it } from 'vitest';
import { formatDuration, parseDurationMs } from '../src/config/duration.js';
import { parseTickConfig } from '../src/config/parse-config.js';
import { describeConfigError } from '../src/config/tick-config.js';
import { counterValue, isRecorded } from '../src/domain/counter.js';
import { isWellFormedDigest, shortDigest } from '../src/domain/digest.js';
import { describePortError, forbidden, isPortError, notFound } from '../src/domain/port-error.js';
import { daemonSetSettledness, deploymentSettledness } from '../src/domain/settledness.js';
import { SIM_ENVIRONMENT } from '../src/sim/index.js';
import { chartNamesOf } from './support/chart.js';

// The small pure parts the guards stand on, at the edges Stryker showed no
// scenario reached (pnpm mutation, test/spec/README.md): a counter read one
// character off, a digest with junk around it, a name one character long.

const SHA256 = `sha256:${'a'.repeat(64)}`;

describe('counterValue and isRecorded (docs/behaviour.md §2: absent, empty or not decimal counts as 0)', () => {
  it.each([
    ['7', 7],
    ['007', 7],
    ['x7', 0],
    ['7x', 0],
    [' 2', 0],
    ['', 0],
  ])('%j counts as %i', (raw, count) => expect(counterValue(O.some(raw))).toBe(count));

  it('an absent annotation counts as 0', () => expect(counterValue(O.none)).toBe(0));

  it('a decimal too large to count exactly is the largest safe count, never 0 (#1964)', () =>
    expect(counterValue(O.some('99999999999999999999'))).toBe(Number.MAX_SAFE_INTEGER - 1));

  it('an empty annotation is not a recorded streak; "0" is', () => {
    expect(isRecorded(O.some(''))).toBe(false);
    expect(isRecorded(O.some('0'))).toBe(true);
    expect(isRecorded(O.none)).toBe(false);
  });
});

describe('isWellFormedDigest (I19) and shortDigest', () => {
  it.each([
    [SHA256, true],
    [`sha512:${'b'.repeat(128)}`, true],
    [`sha512:${'b'.repeat(127)}`, false],
    [`sha512:${'g'.repeat(128)}`, false],
    [` ${SHA256}`, false],
    [`${SHA256} `, false],
    [`md5:${'a'.repeat(32)}`, false],
  ])('%j is well-formed: %s', (digest, ok) => expect(isWellFormedDigest(digest)).toBe(ok));

  it('shortens to the algorithm and 12 hex digits, and leaves short or colon-less text alone', () => {
    expect(shortDigest(SHA256)).toBe('sha256:aaaaaaaaaaaa…');
    expect(shortDigest('sha256:aaaaaaaaaaaa')).toBe('sha256:aaaaaaaaaaaa');
    expect(shortDigest('sha256:aaaaaaaaaaaab')).toBe('sha256:aaaaaaaaaaaa…');
    expect(shortDigest('x'.repeat(30))).toBe('x'.repeat(30));
  });
});

describe("formatDuration (ROLLOUT_TIMEOUT in every log line, the tick's and the adapter's)", () => {
  it.each([
    [0, '0ms'],
    [450, '450ms'],
    [1_000, '1s'],
    [1_500, '1.5s'],
    [90_000, '1m30s'],
    [600_000, '10m'],
    [3_605_000, '1h5s'],
    [5_400_000, '1h30m'],
    [7_200_000, '2h'],
  ])('%i ms reads %s, and parses back to it', (ms, text) => {
    expect(formatDuration(ms)).toBe(text);
    if (ms > 0) expect(parseDurationMs(text)).toBe(ms);
  });
});

describe('port errors keep the server words and the status', () => {
  it('describes with the HTTP status when there is one', () => {
    expect(describePortError(forbidden('no', 403))).toBe('Forbidden (HTTP 403): no');
    expect(describePortError(notFound('gone'))).toBe('NotFound: gone');
    expect(notFound('gone')).toStrictEqual({ _tag: 'NotFound', message: 'gone' });
    expect('status' in notFound('gone')).toBe(false);
  });

  it.each([
    [{ _tag: 'Timeout', message: 'slow' }, true],
    [null, false],
    ['Timeout', false],
    [{ _tag: 'Boom', message: 'x' }, false],
    [{ _tag: 7, message: 'x' }, false],
    [{ _tag: 'Timeout', message: 7 }, false],
    // A port that throws a function with a tag is a defect of the port, never a classified failure.
    [Object.assign(() => undefined, { _tag: 'Timeout', message: 'slow' }), false],
  ])('%j is a port error: %s', (value, is) => expect(isPortError(value)).toBe(is));
});

describe('settledness messages and kubectl order', () => {
  const ds = {
    name: 'stg-resource-monitor',
    updateStrategy: 'RollingUpdate',
    generation: 1,
    observedGeneration: 1,
    desiredNumberScheduled: 3,
    updatedNumberScheduled: 3,
    numberAvailable: 3,
  };
  it('says which DaemonSet settled, and which update strategy it refuses', () => {
    expect(daemonSetSettledness(ds)).toEqual({
      _tag: 'Settled',
      message: 'daemon set "stg-resource-monitor" successfully rolled out',
    });
    expect(daemonSetSettledness({ ...ds, updateStrategy: '' })).toEqual({
      _tag: 'Failed',
      reason:
        'daemon set "stg-resource-monitor" uses the unknown update strategy; rollout status is only available for RollingUpdate',
    });
  });

  it('only the Progressing condition can carry the progress deadline', () =>
    expect(
      deploymentSettledness({
        name: 'stg-jobs-manager',
        generation: 1,
        specReplicas: 1,
        observedGeneration: 1,
        replicas: 1,
        updatedReplicas: 1,
        availableReplicas: 1,
        conditions: [{ type: 'Available', reason: 'ProgressDeadlineExceeded' }],
      })._tag,
    ).toBe('Settled'));
});

describe('configuration edges (docs/behaviour.md §2)', () => {
  const problemsOf = (env: Record<string, string>) => {
    const parsed = parseTickConfig({ ...SIM_ENVIRONMENT, ...env });
    return E.isLeft(parsed) ? parsed.left.map(describeConfigError) : [];
  };
  const configOf = (env: Record<string, string>) => {
    const parsed = parseTickConfig({ ...SIM_ENVIRONMENT, ...env });
    if (E.isLeft(parsed)) throw new Error(parsed.left.map(describeConfigError).join('; '));
    return parsed.right;
  };

  it('a ceiling with trailing whitespace is rejected, as one with leading whitespace is', () =>
    expect(problemsOf({ MAX_SKIP_TICKS: '8 ' })).toEqual([
      'MAX_SKIP_TICKS="8 ": must be a whole number of at least 1 (a ceiling that is not a number would disable its guard)',
    ]));

  it('one-character names are valid Kubernetes names', () =>
    expect(
      ((config) => [
        config.topology.profile.release,
        chartNamesOf(config).deploymentName,
        chartNamesOf(config).nodeAgentsNamespace,
      ])(configOf({ RELEASE_NAME: 'a', DEPLOYMENT_NAME: 'b', NODE_AGENTS_NAMESPACE: 'c' })),
    ).toEqual(['a', 'b', 'c']));

  it('names the rule a bad name breaks, for namespaces and for objects', () => {
    expect(problemsOf({ NODE_AGENTS_NAMESPACE: 'ns-' })).toEqual([
      'NODE_AGENTS_NAMESPACE="ns-": is not a valid namespace name (lowercase letters, digits and "-", at most 63)',
    ]);
    expect(problemsOf({ DEPLOYMENT_NAME: 'stg-' })).toEqual([
      'DEPLOYMENT_NAME="stg-": is not a valid Kubernetes object name (lowercase letters, digits, "-" and ".", at most 253)',
    ]);
  });

  it('a registry URL may carry a path, never whitespace; trailing slashes go', () => {
    expect(configOf({ IMAGE_REFRESH_REGISTRY_URL: 'http://127.0.0.1:5000/v2//' }).registryUrl).toBe(
      'http://127.0.0.1:5000/v2',
    );
    expect(problemsOf({ IMAGE_REFRESH_REGISTRY_URL: 'http://127.0.0.1:5000/a b' })).toEqual([
      'IMAGE_REFRESH_REGISTRY_URL="http://127.0.0.1:5000/a b": must be an http(s) URL such as https://registry-1.docker.io',
    ]);
  });

  it('each problem says what would be accepted', () =>
    expect(
      problemsOf({
        ROLLOUT_TIMEOUT: '300',
        API_TIMEOUT: '0s',
        PODS_MONITOR_PINNED: 'yes',
        IMAGE_TAG: 'no spaces',
      }),
    ).toEqual([
      'IMAGE_TAG="no spaces": is not a valid image tag',
      'PODS_MONITOR_PINNED="yes": must be "1" (pinned) or "0" (refreshed)',
      'ROLLOUT_TIMEOUT="300": is not a duration (use a unit, e.g. 30s, 10m, 1h30m)',
      'API_TIMEOUT="0s": must be longer than zero',
    ]));

  it('a missing required variable says what it is for', () => {
    const parsed = parseTickConfig({});
    expect(E.isLeft(parsed) && parsed.left.map(describeConfigError)[0]).toBe(
      'RELEASE_NAME: is required (the Helm release name)',
    );
  });
});
