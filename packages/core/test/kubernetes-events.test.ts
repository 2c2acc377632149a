import { describe, expect, it } from 'vitest';
import { clipNote, kubernetesEventsFor, MAX_NOTE_BYTES } from '../src/machine/kubernetes-events.js';
import type { TickEvent } from '../src/machine/tick-event.js';
import { simDigest } from '../src/sim/index.js';
import { ANNOTATION } from './support/chart.js';
import { anEdge, aSteadyEdge, JM } from './support/edge.js';

// Every finding and warning is also a Kubernetes Event on the
// jobs-manager Deployment, where `kubectl describe` shows it; repeats update
// one Event; an Event that cannot be written changes nothing but a WARN line.

describe('Kubernetes Events', () => {
  it('a tick at the skip ceiling records a Warning RefreshFrozen with the log line as its message', async () => {
    const edge = anEdge();
    edge.world.setBehaviour('jobs-manager', 'neverReady');
    edge.world.setAnnotation(ANNOTATION.skipStreak, '7');
    await edge.tick();
    const frozen = edge.world.kubeEvents.find((e) => e.reason === 'RefreshFrozen');
    expect(frozen).toMatchObject({ type: 'Warning', count: 1 });
    expect(frozen?.message).toBe(edge.line('FROZEN').split('\n')[0]);
  });

  it("a failed resolution's reason comes from its error's tag, never from words in its message", async () => {
    const edge = await aSteadyEdge();
    edge.world.injectRegistryFault('tracebloc/pods-monitor', 'RateLimited');
    const outcome = await edge.tick();
    // A registry whose own error text quotes "(RateLimited: …)" is still a
    // plain resolve failure: only a RateLimited answer is the rate-limit reason.
    const quoting: TickEvent = {
      level: 'warn',
      code: 'RESOLVE_FAILED',
      message:
        'WARN: could not resolve latest digest of tracebloc/jobs-manager:stg (Transport: proxy said "(RateLimited: no)")',
      cause: 'Transport',
    };
    const reasons = kubernetesEventsFor({ ...outcome, events: [...outcome.events, quoting] }).map((e) => e.reason);
    expect(reasons).toEqual(['RefreshRegistryRateLimited', 'RefreshResolveFailed']);
  });

  it('repeats within a streak update one Event and count, rather than piling up', async () => {
    const edge = anEdge();
    edge.world.setBehaviour('jobs-manager', 'neverReady');
    for (let i = 0; i < 3; i++) await edge.tick();
    expect(edge.world.kubeEvents).toEqual([
      expect.objectContaining({ type: 'Normal', reason: 'RefreshSkipped', count: 3 }),
    ]);
    expect(edge.world.kubeEvents[0]?.message).toContain('skipping this refresh tick 3/8');
  });

  it('a successful re-image records a Normal event naming old → new digest per workload', async () => {
    const edge = await aSteadyEdge();
    edge.world.publish(JM, simDigest(`${JM}#2`));
    await edge.tick();
    const reimaged = edge.world.kubeEvents.find((e) => e.reason === 'RefreshReimaged');
    expect(reimaged?.type).toBe('Normal');
    const old = simDigest(`${JM}#1`).slice(0, 19);
    const now = simDigest(`${JM}#2`).slice(0, 19);
    expect(reimaged?.message).toBe(
      `deployment/stg-jobs-manager re-imaged: api ${old}… → ${now}… | deployment/stg-requests-proxy re-imaged: proxy ${old}… → ${now}…`,
    );
  });

  it('a decoupled re-image, whose jobs-manager digest is not recorded, names what the proxy ran before from the live image', async () => {
    const edge = await aSteadyEdge({ DECOUPLED_REFRESH: '1' });
    edge.world.setBehaviour('jobs-manager', 'neverReady');
    edge.world.publish(JM, simDigest(`${JM}#2`));
    await edge.tick();
    const now = simDigest(`${JM}#2`).slice(0, 19);
    // A fresh install runs the chart's repo:tag until its first re-image (#569).
    expect(edge.world.kubeEvents.find((e) => e.reason === 'RefreshReimaged')?.message).toBe(
      `deployment/stg-requests-proxy re-imaged: proxy docker.io/tracebloc/jobs-manager:stg → ${now}…`,
    );
  });

  it('a steady tick records no Event: nothing is written on healthy ticks', async () => {
    const edge = await aSteadyEdge();
    await edge.tick();
    expect(edge.ops()).not.toContain('recordEvent');
  });

  it('an Event that cannot be written is a WARN line and changes neither the exit code nor the writes', async () => {
    const failing = anEdge();
    const working = anEdge();
    for (const edge of [failing, working]) {
      edge.world.setBehaviour('jobs-manager', 'neverReady');
      edge.world.setAnnotation(ANNOTATION.skipStreak, '7');
    }
    failing.world.injectClusterFault('recordEvent', 'Forbidden');
    const broken = await failing.tick();
    const fine = await working.tick();
    expect(broken.exitCode).toBe(fine.exitCode);
    expect(broken.result).toBe(fine.result);
    expect(broken.writes).toEqual(fine.writes);
    expect(failing.line('EVENT_NOT_RECORDED')).toContain(
      'could not record the Kubernetes Event RefreshFrozen (Forbidden',
    );
  });

  it('IMAGE_REFRESH_EVENTS=0 records none', async () => {
    const edge = anEdge({ IMAGE_REFRESH_EVENTS: '0' });
    edge.world.setBehaviour('jobs-manager', 'neverReady');
    await edge.tick();
    expect(edge.ops()).not.toContain('recordEvent');
    expect(edge.world.kubeEvents).toEqual([]);
  });
});

// The apiserver's note limit is 1024 bytes of UTF-8 (Go's len), and core's
// messages carry `→` and `…` (3 bytes each): clipping at 1024 JS characters
// let a long note through to a 422, and cutting a string by bytes can split a
// code point.
describe('an Event message is clipped to 1024 UTF-8 bytes', () => {
  const bytes = (text: string) => Buffer.byteLength(text, 'utf8');

  it('a message within 1024 bytes is left as it is, even at exactly 1024', () => {
    const exact = `${'→'.repeat(341)}x`;
    expect(bytes(exact)).toBe(MAX_NOTE_BYTES);
    expect(clipNote(exact)).toBe(exact);
    expect(clipNote('api sha256:0a1b… → sha256:9f8e…')).toBe('api sha256:0a1b… → sha256:9f8e…');
  });

  it('a message of multibyte characters under 1024 characters but over 1024 bytes is clipped, ending in …', () => {
    const arrows = 'deployment/stg-jobs-manager re-imaged: api sha256:0a1b2c3d4e5f… → sha256:9f8e7d6c5b4a… | '.repeat(
      12,
    );
    expect(arrows.length).toBeLessThan(1100);
    expect(bytes(arrows)).toBeGreaterThan(MAX_NOTE_BYTES);
    const clipped = clipNote(arrows);
    expect(bytes(clipped)).toBeLessThanOrEqual(MAX_NOTE_BYTES);
    expect(clipped.endsWith('…')).toBe(true);
    expect(arrows.startsWith(clipped.slice(0, -1))).toBe(true);
  });

  it('counts each UTF-8 width from its first code point: U+0080 is 2 bytes, U+0800 is 3, U+10000 is 4', () => {
    // At each boundary, 1026 bytes in truth; one byte fewer per character if
    // the boundary code point were counted narrower, which would fit.
    for (const [char, n] of [
      ['\u0080', 513],
      ['\u0800', 342],
      ['\u{10000}', 256],
    ] as const) {
      const text = `${char.repeat(n)}${'a'.repeat(1026 - bytes(char.repeat(n)))}`;
      expect(bytes(text), char).toBe(1026);
      expect(clipNote(text), char).not.toBe(text);
      expect(bytes(clipNote(text)), char).toBeLessThanOrEqual(MAX_NOTE_BYTES);
    }
    // And no wider: 512 two-byte characters are exactly 1024 bytes and stay whole.
    expect(clipNote('é'.repeat(512))).toBe('é'.repeat(512));
  });

  it('never splits a code point: the cut falls before a character that does not fit whole', () => {
    // 1020 ASCII bytes, then → (3 bytes) would end at 1023 but leaves no room for … (3): cut before it.
    const message = `${'a'.repeat(1020)}→→→`;
    const clipped = clipNote(message);
    expect(clipped).toBe(`${'a'.repeat(1020)}…`);
    expect(bytes(clipped)).toBe(1023);
    // Astral characters (4 bytes, two UTF-16 units) are kept or dropped whole.
    const astral = clipNote('😀'.repeat(300));
    expect(astral).toBe(`${'😀'.repeat(255)}…`);
    expect(bytes(astral)).toBe(1023);
    expect(astral).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])/);
  });
});
