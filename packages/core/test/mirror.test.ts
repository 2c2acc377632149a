import * as E from 'fp-ts/lib/Either.js';
import * as O from 'fp-ts/lib/Option.js';
import { describe, expect, it } from 'vitest';
import { parseTickConfig } from '../src/config/parse-config.js';
import type { Profile } from '../src/config/profile/profile.js';
import { describeConfigError } from '../src/config/tick-config.js';
import type { Digest } from '../src/domain/digest.js';
import { mirrorQuestions, servedThroughMirror } from '../src/domain/mirror.js';
import { runTick } from '../src/index.js';
import { SIM_ENVIRONMENT, SimWorld, simConfig, simDigest, simPorts } from '../src/sim/index.js';
import { MIRROR, MIRRORED_SHOP } from './support/mirrored-shop.js';

// Follow upstream, pull through the mirror (MIRROR_MODE=follow-upstream,
// docs/behaviour.md §3.3): tags are resolved upstream, a changed digest is
// asked of the mirror by digest, and only one the mirror served as it is is
// pinned — at <mirror>/<path>@<digest>. Unset, a tick behind a mirror stays
// inert, as the script (I14).

const PROFILE = MIRRORED_SHOP;

const anEdge = (env: Record<string, string> = { MIRROR_MODE: 'follow-upstream' }, profile: Profile = PROFILE) => {
  const config = simConfig(env, profile);
  const world = new SimWorld(config);
  const ports = simPorts(world);
  return { config, world, tick: () => runTick(config, ports) };
};
const mirrorCalls = (world: SimWorld) => world.calls.filter((c) => c.op === 'askMirror').map((c) => c.detail);
const line = (events: readonly { code: string; message: string }[], code: string) =>
  events.filter((e) => e.code === code).map((e) => e.message);

describe('MIRROR_MODE=follow-upstream', () => {
  it('records upstream digests on a first observation and asks the mirror nothing; a steady tick neither', async () => {
    const edge = anEdge();
    expect(edge.world.workloads.web?.images).toEqual({
      web: `${MIRROR}/shop/web:stg`,
      log: `${MIRROR}/shop/log:stg`,
    });
    expect((await edge.tick()).exitCode).toBe(0);
    const steady = await edge.tick();
    expect(steady.result).toBe('complete');
    // Through the mirror step and the streak's judgement, a steady tick still writes nothing.
    expect(steady.writes).toEqual([]);
    expect(mirrorCalls(edge.world)).toEqual([]);
  });

  it('pins a changed digest through the mirror once the mirror serves it', async () => {
    const edge = anEdge();
    await edge.tick();
    const web2 = simDigest('web 2');
    edge.world.publish('shop/web', web2);
    const second = await edge.tick();
    expect(second.exitCode).toBe(0);
    expect(mirrorCalls(edge.world)).toEqual([`shop/web@${web2}`]);
    expect(edge.world.workloads.web?.images.web).toBe(`${MIRROR}/shop/web@${web2}`);
    expect(edge.world.annotations['shop.example.com/last-refreshed-web-digest']).toBe(web2);
  });

  it('a digest the mirror has not served yet waits: no re-image, no record, no attempt, counted on the streak; served later, pinned', async () => {
    const edge = anEdge();
    await edge.tick();
    const web2 = simDigest('web 2');
    edge.world.publish('shop/web', web2);
    edge.world.mirrorLagging.add('shop/web');
    const waiting = await edge.tick();
    expect(waiting.exitCode).toBe(0);
    expect(waiting.unresolved).toEqual(['web']);
    expect(waiting.reimages).toEqual([]);
    expect(edge.world.workloads.web?.images.web).toBe(`${MIRROR}/shop/web:stg`);
    expect(edge.world.annotations['shop.example.com/refresh-attempt']).toBeUndefined();
    expect(line(waiting.events, 'MIRROR_NOT_SERVING')).toEqual([
      expect.stringContaining(`WARN: mirror ${MIRROR} has not served shop/web@${web2} yet`),
    ]);
    expect(line(waiting.events, 'REGISTRY_SILENT')).toEqual([
      expect.stringContaining(`shop/web (mirror ${MIRROR} has not served ${web2} for 1 ticks)`),
    ]);
    expect(edge.world.annotations['shop.example.com/refresh-resolve-failure-streak']).toBe('1');
    edge.world.mirrorLagging.clear();
    const served = await edge.tick();
    expect(served.exitCode).toBe(0);
    expect(edge.world.workloads.web?.images.web).toBe(`${MIRROR}/shop/web@${web2}`);
    expect(edge.world.annotations['shop.example.com/refresh-resolve-failure-streak']).toBeUndefined();
  });

  it('a mirror that answers another digest is a finding, exit 1, never a pin', async () => {
    const edge = anEdge();
    await edge.tick();
    const web2 = simDigest('web 2');
    edge.world.publish('shop/web', web2);
    edge.world.mirrorCorrupt.add('shop/web');
    const mismatch = await edge.tick();
    expect(mismatch.result).toBe('mirrorMismatch');
    expect(mismatch.exitCode).toBe(1);
    expect(edge.world.workloads.web?.images.web).toBe(`${MIRROR}/shop/web:stg`);
    expect(line(mismatch.events, 'MIRROR_MISMATCH')).toEqual([
      expect.stringContaining(`ERROR: MIRROR MISMATCH: mirror ${MIRROR} answered`),
    ]);
  });

  it('unset: a profile behind a mirror is inert, as the chart behind IMAGE_REGISTRY (I14)', async () => {
    const edge = anEdge({});
    const outcome = await edge.tick();
    expect(outcome.result).toBe('mirrorInert');
    expect(edge.world.calls).toEqual([]);
  });

  it("the chart's topology behind IMAGE_REGISTRY follows upstream too", async () => {
    const config = simConfig({ IMAGE_REGISTRY: MIRROR, MIRROR_MODE: 'follow-upstream' });
    const world = new SimWorld(config);
    const ports = simPorts(world);
    await runTick(config, ports);
    const jm2 = simDigest('jobs-manager 2');
    world.publish('tracebloc/jobs-manager', jm2);
    expect((await runTick(config, ports)).exitCode).toBe(0);
    expect(world.workloads['jobs-manager']?.images.api).toBe(`${MIRROR}/tracebloc/jobs-manager@${jm2}`);
  });
});

describe('MIRROR_MODE as configuration', () => {
  const problems = (env: Record<string, string>, profile?: Profile) => {
    const parsed = parseTickConfig(
      { ...(profile === undefined ? SIM_ENVIRONMENT : { IMAGE_TAG: 'stg' }), ...env },
      profile,
    );
    return E.isLeft(parsed) ? parsed.left.map(describeConfigError) : [];
  };

  it('anything but follow-upstream is refused, naming the variable', () => {
    expect(problems({ IMAGE_REGISTRY: MIRROR, MIRROR_MODE: 'on' })).toEqual([
      'MIRROR_MODE="on": must be "follow-upstream" (resolve upstream, pin through the mirror) or unset',
    ]);
  });

  it('with no mirror to pull through, it is refused: the chart without IMAGE_REGISTRY, a profile without mirror', () => {
    const noMirror =
      'MIRROR_MODE="follow-upstream": names no mirror: set IMAGE_REGISTRY to it (the chart\'s topology) or the profile\'s top-level mirror';
    expect(problems({ MIRROR_MODE: 'follow-upstream' })).toEqual([noMirror]);
    expect(problems({ MIRROR_MODE: 'follow-upstream' }, (({ mirror: _, ...rest }) => rest)(PROFILE))).toEqual([
      noMirror,
    ]);
  });

  it("a profile's mirror wins; IMAGE_REGISTRY is the chart's and ignored beside a profile", () => {
    const config = simConfig({ MIRROR_MODE: 'follow-upstream', IMAGE_REGISTRY: 'other.example:5000' }, PROFILE);
    expect(config.mirror).toEqual({ host: MIRROR, followUpstream: true });
  });
});

describe('what the mirror is asked, and its answers', () => {
  const config = simConfig({ MIRROR_MODE: 'follow-upstream' }, PROFILE);
  const D1 = simDigest('one') as Digest;
  const D2 = simDigest('two') as Digest;
  const resolved = (image: string, digest: Digest) =>
    ({ _tag: 'Resolved', image, digest, rateLimitRemaining: O.none }) as const;

  it('only a digest that differs from a record: neither a first observation nor an unchanged one', () => {
    const questions = mirrorQuestions(config, [resolved('web', D2), resolved('log', D1)], {
      web: O.some(D1),
      log: O.some(D1),
    });
    expect(questions).toEqual([{ image: 'web', request: { host: MIRROR, repo: 'shop/web', tag: D2 } }]);
    expect(mirrorQuestions(config, [resolved('web', D2)], {})).toEqual([]);
    expect(mirrorQuestions(simConfig({}, PROFILE), [resolved('web', D2)], { web: O.some(D1) })).toEqual([]);
  });

  it('asks nothing of an image the registry did not answer, nor of one whose record is empty', () => {
    const failed = { _tag: 'Unresolved', image: 'web', error: { _tag: 'Timeout', message: 'slow' } } as const;
    expect(mirrorQuestions(config, [failed], { web: O.some(D1) })).toEqual([]);
    expect(mirrorQuestions(config, [resolved('web', D2)], { web: O.some('') })).toEqual([]);
    // The mirror's host and the image's own repository, whatever the image's name.
    expect(mirrorQuestions(config, [resolved('log', D2)], { log: O.some(D1) })).toEqual([
      { image: 'log', request: { host: MIRROR, repo: 'shop/log', tag: D2 } },
    ]);
  });

  it('each miss says what the mirror did: another digest (at most a digest long), or not served and why', () => {
    const question = { image: 'web', request: { host: MIRROR, repo: 'shop/web', tag: D2 } };
    const other = { _tag: 'Right', right: { digest: `${D1}${'x'.repeat(200)}`, rateLimitRemaining: O.none } } as const;
    const [mismatch] = servedThroughMirror([resolved('web', D2)], [question], [other as never]);
    expect(mismatch).toEqual({
      _tag: 'Unresolved',
      image: 'web',
      error: {
        _tag: 'Malformed',
        message: `mirror ${MIRROR} answered ${`${D1}${'x'.repeat(200)}`.slice(0, 100)} for ${D2}`,
      },
      unservedBy: { mirror: MIRROR, digest: D2, answered: `${D1}${'x'.repeat(200)}`.slice(0, 100) },
    });
    const notFound = { _tag: 'Left', left: { _tag: 'NotFound', message: 'manifest unknown' } } as const;
    const [missing] = servedThroughMirror([resolved('web', D2)], [question], [notFound]);
    expect(missing).toMatchObject({
      _tag: 'Unresolved',
      error: { _tag: 'NotFound', message: `mirror ${MIRROR} has not served ${D2} (NotFound: manifest unknown)` },
      unservedBy: { mirror: MIRROR, digest: D2 },
    });
    const served = { _tag: 'Right', right: { digest: D2, rateLimitRemaining: O.none } } as const;
    expect(servedThroughMirror([resolved('web', D2)], [question], [served as never])).toEqual([resolved('web', D2)]);
  });

  it('an image it asked nothing of, or that the registry did not answer, passes as it was', () => {
    const question = { image: 'web', request: { host: MIRROR, repo: 'shop/web', tag: D2 } };
    const failed = { _tag: 'Unresolved', image: 'web', error: { _tag: 'Timeout', message: 'slow' } } as const;
    expect(servedThroughMirror([failed], [question], [])).toEqual([failed]);
    expect(servedThroughMirror([resolved('log', D2)], [question], [])).toEqual([resolved('log', D2)]);
  });

  it('an answer the port never gave is a miss (fail closed), never a pin', () => {
    const question = { image: 'web', request: { host: MIRROR, repo: 'shop/web', tag: D2 } };
    const [web] = servedThroughMirror([resolved('web', D2)], [question], []);
    expect(web).toMatchObject({ _tag: 'Unresolved', unservedBy: { mirror: MIRROR, digest: D2 } });
    expect(web).toMatchObject({ error: { message: expect.stringContaining('the registry port gave no answer') } });
  });
});
