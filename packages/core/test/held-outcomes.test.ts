import { describe, expect, it } from 'vitest';
import { simDigest } from '../src/sim/index.js';
import { aSteadyEdge, JM, RM } from './support/edge.js';
import { aHaltEdge } from './support/halt-edge.js';

// A tick that ran through but held a digest back ends under the hold's name
// (docs/behaviour.md §3.4a), so the summary's outcome= and the pushed
// image_refresh_tick_outcome say what an SRE alerts on; the outcome lists
// what was held and why. Before, all of these ended `complete`.

const KEYS = { VERIFY_SIGNATURES: 'enforce', SIGNATURE_PUBLIC_KEYS: '/etc/image-refresh/keys/sim.pub' };
const HOUR = 3_600_000;

describe('the outcome names what the admission checks held back', () => {
  it('a signature rejection: signatureRejected, exit 1, the digest listed', async () => {
    const edge = await aSteadyEdge(KEYS);
    const jm2 = simDigest(`${JM}#2`);
    edge.world.publish(JM, jm2);
    const outcome = await edge.tick();
    expect([outcome.result, outcome.exitCode]).toEqual(['signatureRejected', 1]);
    expect(outcome.held).toEqual([{ image: 'jobs-manager', digest: jm2, reason: 'signatureRejected' }]);
  });

  it('a signature the registry failed to answer is a retry, not a rejection: complete, exit 0', async () => {
    const edge = await aSteadyEdge(KEYS);
    const jm2 = simDigest(`${JM}#2`);
    edge.world.publish(JM, jm2);
    edge.world.injectSignatureFault(JM, 'Transport');
    const outcome = await edge.tick();
    expect([outcome.result, outcome.exitCode]).toEqual(['complete', 0]);
    expect(outcome.held).toEqual([{ image: 'jobs-manager', digest: jm2, reason: 'signatureUnchecked' }]);
  });

  it('a digest soaking: soaking, exit 0; once old enough it rolls and the tick is complete', async () => {
    const edge = await aSteadyEdge({ MIN_DIGEST_AGE: '1h' });
    const jm2 = simDigest(`${JM}#2`);
    edge.world.publish(JM, jm2);
    const soaking = await edge.tick();
    expect([soaking.result, soaking.exitCode]).toEqual(['soaking', 0]);
    expect(soaking.held).toEqual([{ image: 'jobs-manager', digest: jm2, reason: 'soaking' }]);
    edge.world.clockMs += HOUR;
    const rolled = await edge.tick();
    expect(rolled.result).toBe('complete');
    expect(rolled.held).toBeUndefined();
  });

  it('a quarantined build held: quarantineHeld, exit 0', async () => {
    const edge = await aSteadyEdge({ ON_ROLLOUT_FAILURE: 'revert' });
    const bad = simDigest(`${JM}#2`);
    edge.world.breakBuild(bad);
    edge.world.publish(JM, bad);
    expect((await edge.tick()).result).toBe('rolledBack');
    const held = await edge.tick();
    expect([held.result, held.exitCode]).toEqual(['quarantineHeld', 0]);
    expect(held.held).toEqual([{ image: 'jobs-manager', digest: bad, reason: 'quarantined' }]);
  });

  it('the most urgent hold names the tick: a rejection before a soak', async () => {
    const edge = await aSteadyEdge({ ...KEYS, MIN_DIGEST_AGE: '1h' });
    const jm2 = simDigest(`${JM}#2`);
    const rm2 = simDigest(`${RM}#2`);
    edge.world.publish(JM, jm2);
    edge.world.clockMs += 0;
    expect((await edge.tick()).result).toBe('soaking');
    edge.world.clockMs += HOUR;
    edge.world.publish(RM, rm2);
    const outcome = await edge.tick();
    expect(outcome.result).toBe('signatureRejected');
    expect(outcome.held?.map((h) => [h.image, h.reason])).toEqual([
      ['jobs-manager', 'signatureRejected'],
      ['resource-monitor', 'soaking'],
    ]);
  });
});

describe('the outcome names what a fleet halt held back (docs/behaviour.md §3.4b)', () => {
  const aSteadyHaltEdge = async (env: Record<string, string> = {}) => {
    const edge = aHaltEdge({ MIN_DIGEST_AGE: '1h', ...env });
    expect((await edge.tick()).result).toBe('complete');
    return edge;
  };

  it('a halt in force that holds a digest: halted, exit 0, before a soak', async () => {
    const edge = await aSteadyHaltEdge();
    const jm2 = simDigest(`${JM}#2`);
    const rm2 = simDigest(`${RM}#2`);
    edge.world.publish(JM, jm2);
    edge.world.publish(RM, rm2);
    edge.publishHalt({ [JM]: { digests: [jm2] } });
    const outcome = await edge.tick();
    expect([outcome.result, outcome.exitCode]).toEqual(['halted', 0]);
    expect(outcome.held?.map((h) => [h.image, h.reason])).toEqual([
      ['jobs-manager', 'halted'],
      ['resource-monitor', 'soaking'],
    ]);
  });

  it('a halt in force that holds nothing this tick: complete', async () => {
    const edge = await aSteadyHaltEdge();
    edge.publishHalt({ [JM]: { digests: [simDigest(`${JM}#2`)] } });
    const outcome = await edge.tick();
    expect(outcome.halt?.state).toBe('inForce');
    expect([outcome.result, outcome.exitCode]).toEqual(['complete', 0]);
  });

  it('a halt that cannot be verified: haltUnverified, exit 1, even on a steady tick where it held nothing', async () => {
    const steady = await aSteadyHaltEdge();
    steady.publishHalt({ [JM]: { digests: '*' } }, { signed: false });
    const nothingHeld = await steady.tick();
    expect(nothingHeld.held).toBeUndefined();
    expect([nothingHeld.result, nothingHeld.exitCode]).toEqual(['haltUnverified', 1]);

    const drifting = await aSteadyHaltEdge({ VERIFY_SIGNATURES: 'enforce' });
    const jm2 = simDigest(`${JM}#2`);
    drifting.world.publish(JM, jm2);
    drifting.publishHalt({ [JM]: { digests: '*' } }, { signed: false });
    const outcome = await drifting.tick();
    expect([outcome.result, outcome.exitCode]).toEqual(['haltUnverified', 1]);
    expect(outcome.held).toEqual([{ image: 'jobs-manager', digest: jm2, reason: 'haltUnverified' }]);
  });
});

describe('the outcome names what staging and the platform check held back (docs/behaviour.md §3.4a, §3.5a)', () => {
  it('a digest that drops a platform: platformMismatch, exit 1, the digest listed', async () => {
    const edge = await aSteadyEdge({ PLATFORM_CHECK: 'on' });
    const jm2 = simDigest(`${JM}#2`);
    edge.world.publishFor(JM, jm2, [{ os: 'linux', architecture: 'amd64' }]);
    const outcome = await edge.tick();
    expect([outcome.result, outcome.exitCode]).toEqual(['platformMismatch', 1]);
    expect(outcome.held).toEqual([{ image: 'jobs-manager', digest: jm2, reason: 'platformMismatch' }]);
  });

  it('a manifest that cannot be read is a retry, not a mismatch: complete, exit 0', async () => {
    const edge = await aSteadyEdge({ PLATFORM_CHECK: 'on' });
    const jm2 = simDigest(`${JM}#2`);
    edge.world.publish(JM, jm2);
    edge.world.injectPlatformFault(JM, 'Transport');
    const outcome = await edge.tick();
    expect([outcome.result, outcome.exitCode]).toEqual(['complete', 0]);
    expect(outcome.held).toEqual([{ image: 'jobs-manager', digest: jm2, reason: 'platformUnchecked' }]);
  });

  it('a build still pulling when PREPULL_TIMEOUT passes: notStaged, that workload not switched', async () => {
    const edge = await aSteadyEdge({ PREPULL: 'on', PREPULL_TIMEOUT: '1m' });
    const rm2 = simDigest(`${RM}#2`);
    edge.world.slowLink(rm2, 20 * 60_000);
    edge.world.publish(RM, rm2);
    const outcome = await edge.tick();
    expect(outcome.result).toBe('notStaged');
    expect(outcome.reimages).toEqual([]);
    expect(outcome.held).toEqual([{ image: 'resource-monitor', digest: rm2, reason: 'notStaged' }]);
  });
});

describe('the outcome names the workload that failed a re-image, and why', () => {
  it('a rollout that timed out, then a retry tick on the same build: alreadyOnTarget', async () => {
    const edge = await aSteadyEdge();
    // A build that becomes Ready, then crashes: settled at each tick's guard, its rollout never completes.
    edge.world.publish(JM, simDigest(`${JM}#2`));
    edge.world.setBehaviour('jobs-manager', 'flaps');
    const first = await edge.tick();
    expect(first.result).toBe('reimageFailed');
    expect(first.failedReimage).toMatchObject({ workload: { id: 'jobs-manager' }, alreadyOnTarget: false });
    const retry = await edge.tick();
    expect(retry.result).toBe('reimageFailed');
    expect(retry.reimages).toEqual([]);
    expect(retry.failedReimage).toEqual({ ...first.failedReimage, alreadyOnTarget: true });
  });

  it('a complete tick names none', async () => {
    const edge = await aSteadyEdge();
    edge.world.publish(JM, simDigest(`${JM}#2`));
    expect((await edge.tick()).failedReimage).toBeUndefined();
  });
});
