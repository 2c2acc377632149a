import { describe, expect, it } from 'vitest';
import { ANNOTATION } from '../src/domain/workloads.js';
import { simDigest } from '../src/sim/index.js';
import { anEdge, aSteadyEdge, JM } from './support/edge.js';

// Issue 6: every finding and warning is also a Kubernetes Event on the
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
