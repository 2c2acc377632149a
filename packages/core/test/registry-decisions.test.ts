import * as E from 'fp-ts/lib/Either.js';
import * as O from 'fp-ts/lib/Option.js';
import { describe, expect, it } from 'vitest';
import { type Digest, isWellFormedDigest, shortDigest } from '../src/domain/digest.js';
import type { ImageResolution } from '../src/domain/plan.js';
import { isRegistryBudgetLow, lowestRateLimitRemaining } from '../src/domain/registry-budget.js';
import { acceptResolutions, imagesToResolve, unpinnedRequests } from '../src/domain/resolutions.js';
import { simConfig, simDigest } from '../src/sim/index.js';
import { aSteadyEdge, JM, RM } from './support/edge.js';

// What the tick decides from the registry's answers alone, at the edges the
// scoped Stryker run (test/spec/README.md, "Mutation proof") showed no scenario
// reached: a digest one character too long or with a character in front, a
// pull budget reported by some images and not others, and the requests of a
// DECOUPLED_REFRESH pass with requests-proxy pinned and unpinned.

const HEX64 = '0123456789abcdef'.repeat(4);
const HEX128 = HEX64.repeat(2);
const SHA256 = `sha256:${HEX64}`;
const SHA512 = `sha512:${HEX128}`;

describe('I19: only a registered algorithm with its exact length is a digest', () => {
  it.each([
    ['sha256 with 64 lowercase hex digits', SHA256],
    ['sha512 with 128 lowercase hex digits', SHA512],
  ])('%s is well-formed', (_, digest) => expect(isWellFormedDigest(digest)).toBe(true));

  it.each([
    ['sha256 with 65 hex digits', `${SHA256}0`],
    ['sha256 with a character before its 64 hex digits', `sha256:x${HEX64}`],
    ['sha256 with a character after its 64 hex digits', `${SHA256}x`],
    ['sha256 with 63 hex digits', SHA256.slice(0, -1)],
    ['sha256 in uppercase hex', SHA256.toUpperCase().replace('SHA256', 'sha256')],
    ['sha256 with a trailing newline (a header read with its line end)', `${SHA256}\n`],
    ['sha256 with a second colon', `sha256::${HEX64}`],
    ['sha512 with 129 hex digits', `${SHA512}0`],
    ['sha512 with a character before its 128 hex digits', `sha512:x${HEX128}`],
    ['sha512 with a character after its 128 hex digits', `${SHA512}x`],
    ['a sha512 length under the sha256 name', `sha256:${HEX128}`],
    ['a sha256 length under the sha512 name', `sha512:${HEX64}`],
    ['sha256 with a prefix', `xsha256:${HEX64}`],
    ['sha512 with a prefix', `xsha512:${HEX128}`],
    ['an algorithm OCI allows but nobody registered', `sha256+b64u:${HEX64}`],
    ['the hex without its algorithm', HEX64],
    ['an empty answer', ''],
    // A name every object inherits is not a registered algorithm: looking it
    // up in a plain table found Object itself, and the check threw.
    ['an algorithm named like an inherited property', `constructor:${HEX64}`],
    ['an algorithm named __proto__', `__proto__:${HEX64}`],
  ])('%s is not: the tick treats it as a resolution failure', (_, digest) =>
    expect(isWellFormedDigest(digest)).toBe(false),
  );

  it('a registry answer that is not a digest is Unresolved, never Resolved, and keeps its words for the log', () => {
    const config = simConfig();
    const answers = [`${SHA256}0`, `x${SHA256}`, SHA512].map((digest) =>
      E.right({ digest, rateLimitRemaining: O.none }),
    );
    const resolutions = acceptResolutions(config, answers);
    expect(resolutions.map((r) => r._tag)).toEqual(['Unresolved', 'Unresolved', 'Resolved']);
    expect(resolutions[0]).toMatchObject({
      image: 'jobs-manager',
      error: { _tag: 'Malformed', message: `the registry answered "${SHA256}0", which is not an OCI digest` },
    });
  });

  it('a registry answering `constructor:<hex>` skips that image only; the tick does not crash (I15, I19)', async () => {
    const edge = await aSteadyEdge();
    const rm2 = simDigest(`${RM}#2`);
    edge.world.publish(JM, `constructor:${HEX64}`);
    edge.world.publish(RM, rm2);
    const outcome = await edge.tick();
    expect(outcome.exitCode).toBe(0);
    expect(edge.line('RESOLVE_FAILED')).toContain(`"constructor:${HEX64}", which is not an OCI digest`);
    expect(edge.writes()).toEqual([
      'writeResolveFailureStreak 1',
      'writeRefreshAttempt 1',
      `setImages resource-monitor tracebloc-resource-monitor=docker.io/${RM}@${rm2}`,
      'clearFlapState',
      `recordDigests ${JSON.stringify({ 'tracebloc.io/last-refreshed-resource-monitor-digest': rm2 })}`,
    ]);
  });

  it('a log line cuts any digest after 12 characters of its encoded part, even one with an empty algorithm', () => {
    expect(shortDigest(SHA512)).toBe('sha512:0123456789ab…');
    expect(shortDigest(`:${HEX64}`)).toBe(':0123456789ab…');
  });
});

const digest = (text: string): Digest => {
  if (!isWellFormedDigest(text)) throw new Error(`not a digest: ${text}`);
  return text;
};

/** A resolution as the tick holds it after acceptResolutions. */
const resolved = (image: ImageResolution['image'], remaining: number | undefined): ImageResolution => ({
  _tag: 'Resolved',
  image,
  digest: digest(SHA256),
  rateLimitRemaining: O.fromNullable(remaining),
});

describe('the pull budget (REGISTRY_BUDGET_FLOOR, docs/behaviour.md §6): the lowest ratelimit-remaining of the tick decides', () => {
  const config = simConfig({ REGISTRY_BUDGET_FLOOR: '10' });

  it('several images report different budgets: the lowest counts, wherever it is in the list', () => {
    expect(
      lowestRateLimitRemaining([
        resolved('jobs-manager', 40),
        resolved('pods-monitor', 3),
        resolved('resource-monitor', 25),
      ]),
    ).toBe(3);
    expect(lowestRateLimitRemaining([resolved('jobs-manager', 3), resolved('pods-monitor', 40)])).toBe(3);
  });

  it('an image that reported no budget is not counted as one that did: one silent, one low is still low', () => {
    const oneSilent = [resolved('jobs-manager', undefined), resolved('pods-monitor', 4)];
    expect(lowestRateLimitRemaining(oneSilent)).toBe(4);
    expect(isRegistryBudgetLow(config, oneSilent)).toBe(true);
    expect(isRegistryBudgetLow(config, [resolved('jobs-manager', 4), resolved('pods-monitor', undefined)])).toBe(true);
  });

  it('a low budget on one image holds back the tick even when another still has plenty', () => {
    expect(isRegistryBudgetLow(config, [resolved('jobs-manager', 500), resolved('resource-monitor', 9)])).toBe(true);
    expect(isRegistryBudgetLow(config, [resolved('jobs-manager', 500), resolved('resource-monitor', 10)])).toBe(false);
  });

  it('no image reported a budget: nothing is known to be low (the reference never reads the header)', () => {
    const silent = [resolved('jobs-manager', undefined), resolved('pods-monitor', undefined)];
    expect(lowestRateLimitRemaining(silent)).toBeUndefined();
    expect(isRegistryBudgetLow(config, silent)).toBe(false);
    expect(isRegistryBudgetLow(simConfig({ REGISTRY_BUDGET_FLOOR: '0' }), [resolved('jobs-manager', 0)])).toBe(false);
  });

  it('a 429 on any image is low whatever budget the others reported; pinned and unasked images report nothing', () => {
    const limited: ImageResolution = {
      _tag: 'Unresolved',
      image: 'pods-monitor',
      error: { _tag: 'RateLimited', message: 'toomanyrequests' },
    };
    expect(isRegistryBudgetLow(config, [resolved('jobs-manager', 500), limited])).toBe(true);
    // Fail closed: only an explicit REGISTRY_BUDGET_FLOOR=off turns the guard off, not a config that lacks the field.
    const { registryBudgetGuard: _dropped, ...withoutTheField } = config;
    expect(isRegistryBudgetLow(withoutTheField as typeof config, [limited])).toBe(true);
    expect(
      lowestRateLimitRemaining([
        { _tag: 'Pinned', image: 'jobs-manager' },
        { _tag: 'NotAsked', image: 'pods-monitor' },
        resolved('resource-monitor', 12),
      ]),
    ).toBe(12);
  });
});

describe('I13, DECOUPLED_REFRESH: what a pass past an unsettled jobs-manager asks the registry', () => {
  const names = (config = simConfig(), settled?: Parameters<typeof imagesToResolve>[1]) =>
    imagesToResolve(config, settled).map((image) => image.name);
  const proxyPinned = simConfig({ REQUESTS_PROXY_PINNED: '1' });

  it('only resource-monitor settled: the jobs-manager image is not asked, requests-proxy cannot follow it', () =>
    expect(names(simConfig(), ['resource-monitor'])).toEqual(['resource-monitor']));

  it('requests-proxy settled and unpinned: the jobs-manager image is asked for it, pods-monitor never', () => {
    expect(names(simConfig(), ['requests-proxy'])).toEqual(['jobs-manager']);
    expect(names(simConfig(), ['requests-proxy', 'resource-monitor'])).toEqual(['jobs-manager', 'resource-monitor']);
    expect(unpinnedRequests(simConfig(), ['requests-proxy'])).toEqual([
      { host: 'docker.io', repo: 'tracebloc/jobs-manager', tag: 'stg' },
    ]);
  });

  it('requests-proxy settled but pinned: nobody follows the jobs-manager image, so it costs no request', () => {
    expect(names(proxyPinned, ['requests-proxy'])).toEqual([]);
    expect(names(proxyPinned, ['requests-proxy', 'resource-monitor'])).toEqual(['resource-monitor']);
  });

  it('nothing settled: not one request', () => expect(unpinnedRequests(simConfig(), [])).toEqual([]));

  it('outside a decoupled pass every unpinned image is asked, requests-proxy pinned or not', () => {
    expect(names()).toEqual(['jobs-manager', 'pods-monitor', 'resource-monitor']);
    expect(names(proxyPinned)).toEqual(['jobs-manager', 'pods-monitor', 'resource-monitor']);
  });

  it('the answers pair with the images asked; the others are NotAsked, a pinned one Pinned', () => {
    const config = simConfig({ RESOURCE_MONITOR_PINNED: '1' });
    const answer = E.right({ digest: SHA256, rateLimitRemaining: O.some(7) });
    expect(acceptResolutions(config, [answer], ['requests-proxy', 'resource-monitor'])).toEqual([
      { _tag: 'Resolved', image: 'jobs-manager', digest: SHA256, rateLimitRemaining: O.some(7) },
      { _tag: 'NotAsked', image: 'pods-monitor' },
      { _tag: 'Pinned', image: 'resource-monitor' },
    ]);
  });
});
