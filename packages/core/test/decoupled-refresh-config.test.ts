import * as E from 'fp-ts/lib/Either.js';
import { describe, expect, it } from 'vitest';
import { parseTickConfig } from '../src/config/parse-config.js';
import { describeConfigError } from '../src/config/tick-config.js';
import { shopWith } from './support/profile-document.js';

// DECOUPLED_REFRESH=1 refreshes the workloads a profile marks `decoupled: true`
// past an unsettled gate (I24, docs/profiles.md). Over a profile that marks
// none it would refresh nothing while its line named no workload: refused,
// exit 2, as a switch that needs another is.

const CHART = { RELEASE_NAME: 'stg', RELEASE_NAMESPACE: 'stg', IMAGE_TAG: 'stg' };
const problemsOf = (env: Record<string, string>, profile?: unknown): string[] => {
  const parsed = parseTickConfig(env, profile);
  return E.isLeft(parsed) ? parsed.left.map(describeConfigError) : [];
};
const NOTHING_DECOUPLED = shopWith((doc) => {
  for (const workload of doc.workloads) delete workload.decoupled;
});

describe('DECOUPLED_REFRESH over a profile', () => {
  it('on, over a profile that marks no workload decoupled, is a configuration error naming why', () => {
    expect(problemsOf({ IMAGE_TAG: 'stg', DECOUPLED_REFRESH: '1' }, NOTHING_DECOUPLED)).toEqual([
      'DECOUPLED_REFRESH="1": refreshes the workloads the profile marks decoupled: true past an unsettled gate, and it marks none',
    ]);
  });

  it('on, over a profile that marks one, is accepted', () => {
    const oneDecoupled = shopWith((doc) => {
      for (const workload of doc.workloads) workload.decoupled = workload.id === 'agent';
    });
    expect(problemsOf({ IMAGE_TAG: 'stg', DECOUPLED_REFRESH: '1' }, oneDecoupled)).toEqual([]);
  });

  it('off, over a profile that marks none, is accepted: the pass is not asked for', () => {
    expect(problemsOf({ IMAGE_TAG: 'stg', DECOUPLED_REFRESH: '0' }, NOTHING_DECOUPLED)).toEqual([]);
    expect(problemsOf({ IMAGE_TAG: 'stg' }, NOTHING_DECOUPLED)).toEqual([]);
  });

  it('on, over a profile refused for its own problems, says those alone: nothing is judged of a profile not understood', () => {
    const broken = shopWith((doc) => {
      doc.gate = 'nowhere';
    });
    expect(problemsOf({ IMAGE_TAG: 'stg', DECOUPLED_REFRESH: '1' }, broken)).toEqual([
      'IMAGE_REFRESH_PROFILE: gate: "nowhere" is not a declared workload; declared: web, worker, agent',
    ]);
  });

  it('on, over the chart’s own topology (its two decoupled workloads), is accepted', () => {
    expect(problemsOf({ ...CHART, DECOUPLED_REFRESH: '1' })).toEqual([]);
  });
});
