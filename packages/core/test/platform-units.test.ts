import * as E from 'fp-ts/lib/Either.js';
import { describe, expect, it } from 'vitest';
import type { Digest } from '../src/domain/digest.js';
import {
  judgePlatforms,
  lackingPlatforms,
  normalizePlatform,
  type Platform,
  type PlatformSubject,
  platformName,
  platformReportsOf,
  platformTargetsOf,
  runnablePlatforms,
  withPlatformHolds,
} from '../src/domain/platforms.js';
import { simDigest } from '../src/sim/index.js';

// docs/behaviour.md §3.4a step 4, the decision alone: which platforms a digest
// must provide, and what each answer of the port means. (No "/" in a test's
// name: Stryker's vitest runner then runs none of its mutants' tests there.)

const p = (name: string): Platform => {
  const [os = '', architecture = '', variant] = name.split('/');
  return variant === undefined ? { os, architecture } : { os, architecture, variant };
};
const names = (platforms: readonly Platform[]) => platforms.map(platformName);
const OLD = simDigest('old') as Digest;
const NEW = simDigest('new') as Digest;
const subject: PlatformSubject = {
  image: 'jobs-manager',
  host: 'docker.io',
  repo: 'tracebloc/jobs-manager',
  from: OLD,
  to: NEW,
};
const provides = (...list: string[]) => E.right({ _tag: 'Platforms' as const, platforms: list.map(p) });

describe('platforms, as containerd compares them', () => {
  it('arm64 v8 is arm64, amd64 v1 is amd64, arm is arm v7, x86_64 is amd64; names are lower case', () => {
    expect(
      names(
        [p('linux/arm64/v8'), p('linux/amd64/v1'), p('linux/arm'), p('Linux/x86_64'), p('linux/aarch64')].map(
          normalizePlatform,
        ),
      ),
    ).toEqual(['linux/arm64', 'linux/amd64', 'linux/arm/v7', 'linux/amd64', 'linux/arm64']);
    expect(platformName(normalizePlatform(p('linux/arm/v6')))).toBe('linux/arm/v6');
    // v8 and v1 are the defaults of arm64 and amd64 only: another architecture keeps them.
    expect(names([p('linux/arm/v8'), p('linux/riscv64/v1')].map(normalizePlatform))).toEqual([
      'linux/arm/v8',
      'linux/riscv64/v1',
    ]);
    expect(platformName(normalizePlatform({ os: 'linux', architecture: 'ppc64le', variant: '' }))).toBe(
      'linux/ppc64le',
    );
  });

  it('a variant that is not the default one stays (arm64 v9, amd64 v2); an empty one is none', () => {
    expect(names([p('linux/arm64/v9'), p('linux/amd64/v2'), p('linux/arm/v6')].map(normalizePlatform))).toEqual([
      'linux/arm64/v9',
      'linux/amd64/v2',
      'linux/arm/v6',
    ]);
    expect(platformName({ os: 'linux', architecture: 'amd64', variant: '' })).toBe('linux/amd64');
    expect(platformName({ os: 'linux', architecture: 'arm', variant: 'v7' })).toBe('linux/arm/v7');
  });

  it('an entry whose os or architecture is unknown runs nowhere', () => {
    expect(names(runnablePlatforms([p('unknown/amd64'), p('linux/unknown'), p('linux/s390x')]))).toEqual([
      'linux/s390x',
    ]);
  });

  it("buildx's unknown/unknown attestation entries and repeats are not platforms", () => {
    expect(
      names(runnablePlatforms([p('linux/amd64'), p('unknown/unknown'), p('linux/amd64/v1'), p('linux/arm64')])),
    ).toEqual(['linux/amd64', 'linux/arm64']);
  });

  it('lacking: what the recorded digest provides and the candidate does not', () => {
    expect(names(lackingPlatforms([p('linux/amd64'), p('linux/arm64')], [p('linux/amd64')]))).toEqual(['linux/arm64']);
    expect(names(lackingPlatforms([p('linux/arm64/v8')], [p('linux/arm64'), p('linux/amd64')]))).toEqual([]);
    expect(names(lackingPlatforms([p('linux/arm/v7')], [p('linux/arm/v6')]))).toEqual(['linux/arm/v7']);
  });
});

describe('judging one changed digest', () => {
  it('provides every platform of the recorded digest: admitted, with what it provides', () => {
    expect(
      judgePlatforms(
        subject,
        provides('linux/amd64', 'linux/arm64', 'linux/s390x'),
        provides('linux/arm64', 'linux/amd64'),
      ),
    ).toEqual({
      _tag: 'Provides',
      platforms: [p('linux/amd64'), p('linux/arm64'), p('linux/s390x')],
    });
  });

  it('a single-platform image whose platform differs lacks the old one', () => {
    expect(judgePlatforms(subject, provides('linux/amd64'), provides('linux/arm64'))).toEqual({
      _tag: 'Lacks',
      lacking: [p('linux/arm64')],
      provides: [p('linux/amd64')],
    });
  });

  it('fails closed on anything it cannot read, saying which manifest and why', () => {
    const unreadable = E.right({ _tag: 'Unreadable' as const, why: 'its media type is not a manifest' });
    expect(judgePlatforms(subject, unreadable, provides('linux/amd64'))).toEqual({
      _tag: 'Unchecked',
      why: `the new manifest ${NEW}: its media type is not a manifest`,
    });
    expect(judgePlatforms(subject, provides('linux/amd64'), E.left({ _tag: 'RateLimited', message: '429' }))).toEqual({
      _tag: 'Unchecked',
      why: `the recorded manifest ${OLD}: RateLimited: 429`,
      cause: 'RateLimited',
    });
    expect(judgePlatforms(subject, undefined, provides('linux/amd64'))).toEqual({
      _tag: 'Unchecked',
      why: `the new manifest ${NEW}: the platform port gave no answer for it`,
    });
    expect(judgePlatforms(subject, provides('unknown/unknown'), provides('linux/amd64'))).toEqual({
      _tag: 'Unchecked',
      why: `the new manifest ${NEW}: its manifest names no platform`,
    });
    expect(judgePlatforms({ ...subject, from: 'hand-edited' }, provides('linux/amd64'), undefined)).toEqual({
      _tag: 'Unchecked',
      why: 'the recorded digest "hand-edited" is not a digest: there is nothing to compare with',
    });
  });
});

describe('the check of several digests', () => {
  it('asks for each new digest, then its recorded one, skipping a record that is not a digest', () => {
    const other: PlatformSubject = {
      image: 'resource-monitor',
      host: 'docker.io',
      repo: 'tracebloc/resource-monitor',
      from: 'x',
      to: OLD,
    };
    expect(platformTargetsOf([subject, other])).toEqual([
      { host: 'docker.io', repo: 'tracebloc/jobs-manager', digest: NEW },
      { host: 'docker.io', repo: 'tracebloc/jobs-manager', digest: OLD },
      { host: 'docker.io', repo: 'tracebloc/resource-monitor', digest: OLD },
    ]);
    const answers = [provides('linux/amd64'), provides('linux/amd64', 'linux/arm64'), provides('linux/amd64')];
    const reports = platformReportsOf([subject, other], (i) => answers[i]);
    expect(reports.map((r) => r.judgement._tag)).toEqual(['Lacks', 'Unchecked']);
    expect(withPlatformHolds({}, reports)).toEqual({
      'jobs-manager': {
        _tag: 'PlatformMismatch',
        image: 'jobs-manager',
        digest: NEW,
        why: 'lacks linux/arm64',
        check: 'Lacks',
      },
      'resource-monitor': {
        _tag: 'PlatformMismatch',
        image: 'resource-monitor',
        digest: OLD,
        why: 'the recorded digest "x" is not a digest: there is nothing to compare with',
        check: 'Unchecked',
      },
    });
  });

  it('a record that is not a digest asks nothing for it, so the next subject’s answers stay its own', () => {
    const first: PlatformSubject = {
      image: 'pods-monitor',
      host: 'docker.io',
      repo: 'tracebloc/pods-monitor',
      from: 'latest',
      to: OLD,
    };
    expect(platformTargetsOf([first, subject])).toEqual([
      { host: 'docker.io', repo: 'tracebloc/pods-monitor', digest: OLD },
      { host: 'docker.io', repo: 'tracebloc/jobs-manager', digest: NEW },
      { host: 'docker.io', repo: 'tracebloc/jobs-manager', digest: OLD },
    ]);
    const answers = [
      provides('linux/amd64'),
      provides('linux/amd64'),
      provides('linux/amd64', 'linux/arm64', 'linux/arm/v7'),
    ];
    const [pm, jm] = platformReportsOf([first, subject], (i) => answers[i]);
    expect(pm?.judgement._tag).toBe('Unchecked');
    expect(jm?.judgement).toEqual({
      _tag: 'Lacks',
      lacking: [p('linux/arm64'), p('linux/arm/v7')],
      provides: [p('linux/amd64')],
    });
    expect(withPlatformHolds({}, jm === undefined ? [] : [jm])['jobs-manager']).toMatchObject({
      why: 'lacks linux/arm64, linux/arm/v7',
    });
  });

  it('an admitted digest adds no hold, and an image held by an earlier check keeps its first reason', () => {
    const reports = platformReportsOf([subject], () => provides('linux/amd64'));
    expect(withPlatformHolds({}, [{ ...subject, judgement: { _tag: 'Provides', platforms: [] } }])).toEqual({});
    const earlier = { 'jobs-manager': { _tag: 'Quarantined' as const, image: 'jobs-manager' as const, digest: NEW } };
    expect(withPlatformHolds(earlier, reports)).toBe(earlier);
  });
});
