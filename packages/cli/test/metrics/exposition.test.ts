import { simConfig } from '@image-refresh/core/sim';
import { describe, expect, it } from 'vitest';
import { escapeLabelValue, renderExposition } from '../../src/metrics/exposition.js';
import { parseMetricsConfig, pushUrl } from '../../src/metrics/metrics-config.js';
import { requestKindOf } from '../../src/metrics/request-count.js';

describe('the exposition text a tick pushes', () => {
  it('escapes backslash, double quote and newline in label values, in that order', () => {
    expect(escapeLabelValue('a\\b"c\nd')).toBe('a\\\\b\\"c\\nd');
  });

  it('writes HELP, TYPE gauge and one line per sample, and leaves out a family without samples', () => {
    const text = renderExposition([
      { name: 'm_one', help: 'first\nline', samples: [{ value: 1 }] },
      { name: 'm_none', help: 'unknown this tick', samples: [] },
      { name: 'm_two', help: 'x', samples: [{ labels: { a: 'x"y', b: 'z' }, value: 0.25 }, { value: Number.NaN }] },
    ]);
    expect(text).toBe(
      [
        '# HELP m_one first\\nline',
        '# TYPE m_one gauge',
        'm_one 1',
        '# HELP m_two x',
        '# TYPE m_two gauge',
        'm_two{a="x\\"y",b="z"} 0.25',
        'm_two NaN',
        '',
      ].join('\n'),
    );
  });
});

describe('PUSHGATEWAY_URL, METRICS_JOB, METRICS_GROUPING', () => {
  const release = { RELEASE_NAME: 'stg', RELEASE_NAMESPACE: 'tracebloc' };

  it('unset PUSHGATEWAY_URL is off, whatever the other two hold', () => {
    expect(parseMetricsConfig({ ...release, METRICS_GROUPING: 'not a grouping' })).toBeUndefined();
    expect(parseMetricsConfig({ ...release, PUSHGATEWAY_URL: '' })).toBeUndefined();
  });

  it('defaults: job image-refresh, grouped by the release namespace and release', () => {
    const parsed = parseMetricsConfig({ ...release, PUSHGATEWAY_URL: 'http://gw:9091/' });
    expect(parsed).toEqual({
      _tag: 'Right',
      right: { url: 'http://gw:9091', job: 'image-refresh', grouping: undefined },
    });
    if (parsed?._tag !== 'Right') throw new Error('expected a config');
    expect(pushUrl(parsed.right, simConfig(release).topology)).toBe(
      'http://gw:9091/metrics/job/image-refresh/namespace/tracebloc/release/stg',
    );
  });

  it("a profile that names no release is grouped by its gate's namespace and name", () => {
    const parsed = parseMetricsConfig({ PUSHGATEWAY_URL: 'http://gw:9091' });
    if (parsed?._tag !== 'Right') throw new Error('expected a config');
    const shop = simConfig().topology;
    const gate = { ...shop.gate, namespace: 'shop', name: 'web' };
    expect(pushUrl(parsed.right, { ...shop, gate, profile: { ...shop.profile, release: undefined } } as never)).toBe(
      'http://gw:9091/metrics/job/image-refresh/namespace/shop/gate/web',
    );
  });

  it('the push URL encodes each value, and a value with "/" in the Pushgateway base64 form', () => {
    const parsed = parseMetricsConfig({
      ...release,
      PUSHGATEWAY_URL: 'http://gw:9091',
      METRICS_JOB: 'edge refresh',
      METRICS_GROUPING: 'edge=berlin/1,site=b ü',
    });
    if (parsed?._tag !== 'Right') throw new Error(`expected a config, got ${JSON.stringify(parsed)}`);
    expect(pushUrl(parsed.right, simConfig().topology)).toBe(
      `http://gw:9091/metrics/job/edge%20refresh/edge@base64/${Buffer.from('berlin/1').toString('base64url')}/site/b%20%C3%BC`,
    );
  });

  it.each([
    ['edge', '"edge" is not label=value'],
    ['edge=', '"edge=" is not label=value'],
    ['1edge=x', '"1edge" is not a Prometheus label name'],
    ['__edge=x', '"__edge" is not a Prometheus label name'],
    ['job=x', '"job" is METRICS_JOB'],
    ['a=1,a=2', 'label "a" is given twice'],
  ])('METRICS_GROUPING=%s is a configuration error naming the variable', (grouping, problem) => {
    const parsed = parseMetricsConfig({ ...release, PUSHGATEWAY_URL: 'http://gw:9091', METRICS_GROUPING: grouping });
    expect(parsed?._tag).toBe('Left');
    const [error] = parsed?._tag === 'Left' ? parsed.left : [];
    expect(error?.variable).toBe('METRICS_GROUPING');
    expect(error?.problem).toContain(problem);
  });

  it('PUSHGATEWAY_URL that is not http(s) is a configuration error', () => {
    const parsed = parseMetricsConfig({ ...release, PUSHGATEWAY_URL: 'gw:9091' });
    expect(parsed?._tag === 'Left' ? parsed.left.map((e) => e.variable) : []).toEqual(['PUSHGATEWAY_URL']);
  });
});

describe('requests by kind, from the request path', () => {
  it.each([
    ['/apis/apps/v1/namespaces/tracebloc/deployments/stg-jobs-manager', 'kubernetes'],
    ['/k8s/clusters/c-1/api/v1/namespaces', 'kubernetes'],
    ['/apis/events.k8s.io/v1/namespaces/tracebloc/events', 'events'],
    ['/v2/tracebloc/jobs-manager/manifests/stg', 'registry'],
    ['/mirror/v2/tracebloc/jobs-manager/manifests/stg', 'registry'],
    ['/token?service=registry&scope=repository:tracebloc/jobs-manager:pull', 'token'],
  ])('%s is %s', (path, kind) => {
    expect(requestKindOf(path)).toBe(kind);
  });
});
