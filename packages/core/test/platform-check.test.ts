import { describe, expect, it } from 'vitest';
import { driveTick } from '../src/machine/drive-tick.js';
import { kubernetesEventsFor } from '../src/machine/kubernetes-events.js';
import { portBounds } from '../src/machine/port-bounds.js';
import { runTick } from '../src/run-tick.js';
import { platformTimers } from '../src/shell/backstop.js';
import { callPort, portCalls } from '../src/shell/port-calls.js';
import { SimWorld, simConfig, simDigest, simPorts } from '../src/sim/index.js';
import { aSteadyEdge, JM, PM, RM } from './support/edge.js';

// PLATFORM_CHECK (docs/behaviour.md §3.4a step 4): a changed digest must
// provide every platform the recorded one does, checked after the signature
// and before the attempt; a refusal is a finding that spends no attempt.

const ON = { PLATFORM_CHECK: 'on' };
const JM2 = simDigest(`${JM}#2`);
const JM1 = simDigest(`${JM}#1`);
const RM2 = simDigest(`${RM}#2`);
const amd64 = { os: 'linux', architecture: 'amd64' };
const arm64 = { os: 'linux', architecture: 'arm64' };

describe('PLATFORM_CHECK=off (the default)', () => {
  it('reads no manifest, even on a drift, and re-images as the script does (I43)', async () => {
    const edge = await aSteadyEdge();
    edge.world.publishFor(JM, JM2, [amd64]);
    const outcome = await edge.tick();
    expect(outcome.exitCode).toBe(0);
    expect(edge.ops()).not.toContain('readPlatforms');
    expect(edge.ops()).toContain('setImages');
  });
});

describe('PLATFORM_CHECK=on', () => {
  it('a steady tick reads no manifest; a first observation is not checked', async () => {
    const edge = await aSteadyEdge(ON);
    await edge.tick();
    expect(edge.ops()).not.toContain('readPlatforms');
    const fresh = new SimWorld(simConfig(ON));
    await runTick(fresh.config, simPorts(fresh));
    expect(fresh.calls.map((c) => c.op)).not.toContain('readPlatforms');
  });

  it('several platforms lacking and several provided are each listed, comma separated', async () => {
    const edge = await aSteadyEdge(ON);
    const s390x = { os: 'linux', architecture: 's390x' };
    const riscv64 = { os: 'linux', architecture: 'riscv64' };
    edge.world.publishFor(JM, JM1, [amd64, arm64, s390x]);
    edge.world.publishFor(JM, JM2, [amd64, riscv64]);
    await edge.tick();
    expect(edge.line('PLATFORM_MISMATCH').split('\n').slice(0, 2)).toEqual([
      `ERROR: PLATFORM MISMATCH ${JM}@${JM2}: lacks linux/arm64, linux/s390x`,
      `it provides linux/amd64, linux/riscv64; the recorded sha256:${JM1.slice(7, 19)}… ran on this edge with linux/arm64, linux/s390x too. Not re-imaged (PLATFORM_CHECK=on), no attempt spent; the other images go on.`,
    ]);
  });

  it('a digest that drops linux arm64: PLATFORM MISMATCH, exit 1, not re-imaged, no attempt spent, nothing recorded', async () => {
    const edge = await aSteadyEdge(ON);
    edge.world.publishFor(JM, JM2, [amd64]);
    const before = { ...edge.world.annotations };
    const outcome = await edge.tick();
    expect(outcome.exitCode).toBe(1);
    expect(edge.line('PLATFORM_MISMATCH').split('\n')).toEqual([
      `ERROR: PLATFORM MISMATCH ${JM}@${JM2}: lacks linux/arm64`,
      `it provides linux/amd64; the recorded sha256:${JM1.slice(7, 19)}… ran on this edge with linux/arm64 too. Not re-imaged (PLATFORM_CHECK=on), no attempt spent; the other images go on.`,
      'push the tag again for every platform (docker buildx build --platform …), or set PLATFORM_CHECK=off to take it as it is.',
    ]);
    expect(outcome.findings.map((f) => f.code)).toEqual(['PLATFORM_MISMATCH']);
    expect(edge.calls().filter((c) => c.startsWith('readPlatforms'))).toEqual([
      `readPlatforms ${JM}@${JM2} linux/amd64`,
      `readPlatforms ${JM}@${JM1} linux/amd64,linux/arm64`,
    ]);
    expect(edge.writes()).toEqual([]);
    expect(edge.world.annotations).toEqual(before);
    expect(edge.line('DIGEST_CHANGED')).toMatch(/held back by the platform check$/);
    expect(kubernetesEventsFor(outcome)).toEqual([
      { type: 'Warning', reason: 'RefreshPlatformMismatch', message: expect.stringContaining('PLATFORM MISMATCH') },
    ]);
  });

  it('the other images go on: a refused jobs-manager leaves resource-monitor re-imaged and recorded (I15)', async () => {
    const edge = await aSteadyEdge(ON);
    edge.world.publishFor(JM, JM2, [arm64]);
    edge.world.publish(RM, RM2);
    const outcome = await edge.tick();
    expect(outcome.exitCode).toBe(1);
    expect(edge.writes()).toEqual([
      'writeRefreshAttempt 1',
      `setImages resource-monitor tracebloc-resource-monitor=docker.io/${RM}@${RM2}`,
      'clearFlapState',
      `recordDigests {"tracebloc.io/last-refreshed-resource-monitor-digest":"${RM2}"}`,
    ]);
    expect(edge.line('PLATFORMS_CHECKED')).toBe(
      `platforms of ${RM}@${RM2}: linux/amd64, linux/arm64 (every platform of the recorded sha256:${simDigest(`${RM}#1`).slice(7, 19)}… is there)`,
    );
  });

  it('a single-platform image on another platform is refused; one that adds a platform is admitted', async () => {
    const edge = await aSteadyEdge(ON);
    edge.world.platformsByDigest.set(JM1, [arm64]);
    edge.world.publishFor(JM, JM2, [amd64]);
    await edge.tick();
    expect(edge.line('PLATFORM_MISMATCH')).toMatch(/: lacks linux\/arm64\n/);
    edge.world.publishFor(JM, simDigest(`${JM}#3`), [amd64, arm64, { os: 'unknown', architecture: 'unknown' }]);
    const outcome = await edge.tick();
    expect(outcome.exitCode).toBe(0);
    expect(outcome.reimages.map((r) => r.workload.id)).toEqual(['jobs-manager', 'requests-proxy']);
  });

  it('a manifest it cannot read fails closed: WARN naming the cause, exit 0, not re-imaged, retried next tick', async () => {
    const edge = await aSteadyEdge(ON);
    edge.world.publishFor(
      JM,
      JM2,
      'its media type application/vnd.docker.distribution.manifest.v1+json is not one the check reads',
    );
    let outcome = await edge.tick();
    expect(outcome.exitCode).toBe(0);
    expect(edge.line('PLATFORM_CHECK_FAILED')).toBe(
      `WARN: could not check the platforms of ${JM}@${JM2} (the new manifest ${JM2}: its media type application/vnd.docker.distribution.manifest.v1+json is not one the check reads); not re-imaging this image this tick, the others go on. Will retry next tick.`,
    );
    // A manifest the check cannot read has no cause beyond its why: the line carries none.
    expect(outcome.events.find((e) => e.code === 'PLATFORM_CHECK_FAILED')).not.toHaveProperty('cause');
    expect(edge.writes()).toEqual([]);
    expect(kubernetesEventsFor(outcome).map((e) => e.reason)).toEqual(['RefreshResolveFailed']);
    edge.world.platformsByDigest.delete(JM2);
    edge.world.injectPlatformFault(JM, 'RateLimited');
    edge.world.calls.length = 0;
    outcome = await edge.tick();
    expect(kubernetesEventsFor(outcome).map((e) => e.reason)).toEqual(['RefreshRegistryRateLimited']);
    expect(edge.writes()).toEqual([]);
    edge.world.calls.length = 0;
    outcome = await edge.tick();
    expect(outcome.reimages).toHaveLength(2);
  });

  it('a hand-edited record that is not a digest cannot be compared: held, said so', async () => {
    const edge = await aSteadyEdge(ON);
    edge.world.setAnnotation('tracebloc.io/last-refreshed-pods-monitor-digest', 'latest');
    edge.world.publish(PM, simDigest(`${PM}#2`));
    await edge.tick();
    expect(edge.line('PLATFORM_CHECK_FAILED')).toContain('the recorded digest "latest" is not a digest');
    expect(edge.calls().filter((c) => c.startsWith('readPlatforms'))).toHaveLength(1);
  });

  it('fails closed without a platform port: no digest is admitted', async () => {
    const world = new SimWorld(simConfig(ON));
    const { platforms: _none, ...ports } = simPorts(world);
    await runTick(world.config, ports);
    world.publish(JM, JM2);
    const outcome = await runTick(world.config, ports);
    expect(outcome.reimages).toEqual([]);
    expect(outcome.events.find((e) => e.code === 'PLATFORM_CHECK_FAILED')?.message).toContain(
      'no platform port (TickPorts.platforms)',
    );
  });

  it('a platform port that fails as a whole admits nothing: every changed digest held, said why', async () => {
    const world = new SimWorld(simConfig(ON));
    const ports = simPorts(world);
    await runTick(world.config, ports);
    world.publish(JM, JM2);
    world.publish(RM, RM2);
    world.calls.length = 0;
    const outcome = await runTick(world.config, {
      ...ports,
      platforms: {
        read: () => {
          throw new Error('the platform port broke');
        },
      },
    });
    expect(outcome.reimages).toEqual([]);
    expect(world.calls.map((c) => c.op)).not.toContain('patchBookkeeping');
    expect(outcome.events.filter((e) => e.code === 'PLATFORM_CHECK_FAILED').map((e) => e.message)).toEqual([
      `WARN: could not check the platforms of ${JM}@${JM2} (the new manifest ${JM2}: Transport: unexpected failure: Error: the platform port broke); not re-imaging this image this tick, the others go on. Will retry next tick.`,
      `WARN: could not check the platforms of ${RM}@${RM2} (the new manifest ${RM2}: Transport: unexpected failure: Error: the platform port broke); not re-imaging this image this tick, the others go on. Will retry next tick.`,
    ]);
  });

  it('asks the platform port nothing when no changed digest is left to check (a steady tick invokes no read)', async () => {
    const invoked: string[] = [];
    const world = new SimWorld(simConfig(ON));
    const ports = simPorts(world);
    await runTick(world.config, ports);
    await driveTick(world.config, async (src, input) => {
      invoked.push(src);
      const answer = await callPort(portCalls(ports, portBounds(world.config)), platformTimers(), src, input);
      return answer._tag === 'Right' ? { ok: true, value: answer.right } : { ok: false, error: answer.left };
    });
    // The guard's read, the resolve, the recorded digests' read: no readPlatforms.
    expect(invoked).toEqual(['readGate', 'readGate', 'resolveDigests', 'readGate']);
  });

  it('comes after the signature check: a digest the signature held is not read', async () => {
    const edge = await aSteadyEdge({ ...ON, VERIFY_SIGNATURES: 'enforce', SIGNATURE_PUBLIC_KEYS: '/k.pub' });
    edge.world.publish(JM, JM2);
    await edge.tick();
    expect(edge.ops()).toContain('verifySignature');
    expect(edge.ops()).not.toContain('readPlatforms');
    edge.world.sign(JM, JM2);
    edge.world.calls.length = 0;
    await edge.tick();
    expect(edge.ops().indexOf('verifySignature')).toBeLessThan(edge.ops().indexOf('readPlatforms'));
    expect(edge.ops().indexOf('readPlatforms')).toBeLessThan(edge.ops().indexOf('writeRefreshAttempt'));
  });

  it('is not made while the pull budget is low: the re-image is deferred anyway (I7b)', async () => {
    const edge = await aSteadyEdge(ON);
    edge.world.rateLimitRemaining = 3;
    edge.world.publish(JM, JM2);
    await edge.tick();
    expect(edge.ops()).not.toContain('readPlatforms');
    expect(edge.codes()).toContain('REGISTRY_BUDGET_LOW');
  });
});
