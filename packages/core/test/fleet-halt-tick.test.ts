import { describe, expect, it } from 'vitest';
import { dryRunPorts } from '../src/dry-run.js';
import { runTick } from '../src/run-tick.js';
import { SimWorld, simConfig, simDigest, simPorts } from '../src/sim/index.js';
import { ANNOTATION } from './support/chart.js';
import { aHaltEdge, HOUR } from './support/halt-edge.js';

// The fleet halt on a simulated edge (docs/behaviour.md §3.4b): what a tick
// asks, writes, says and exits with, for each thing the registry can answer
// under FLEET_HALT_REF — no halt, a halt verified now or before, one that
// cannot be verified, one expired, one lifted — and what a halt does to the
// tag's answers: held, or sent back to its pin.

const JM = 'tracebloc/jobs-manager';
const RM = 'tracebloc/resource-monitor';
const JM_RECORD = 'tracebloc.io/last-refreshed-jobs-manager-digest';
const RM_RECORD = 'tracebloc.io/last-refreshed-resource-monitor-digest';
const ATTEMPT = 'tracebloc.io/refresh-attempt';
const JM1 = simDigest(`${JM}#1`);
const JM2 = simDigest(`${JM}#2`);
const JM3 = simDigest(`${JM}#3`);
const RM2 = simDigest(`${RM}#2`);
const ref = (repo: string, digest: string) => `docker.io/${repo}@${digest}`;
const setImages = (calls: readonly string[]) => calls.filter((c) => c.startsWith('setImages'));
const HALT_KEYS = [ANNOTATION.fleetHaltDigest, ANNOTATION.fleetHaltDocument];

/** An edge that recorded build 1 of everything, watching the halt tag (none published yet). */
const aSteadyHaltEdge = async (env: Record<string, string> = {}) => {
  const edge = aHaltEdge(env);
  expect((await edge.tick()).exitCode).toBe(0);
  return edge;
};

/** An edge that rolled jobs-manager build 2 out and recorded it: the bad build runs here (ring 0). */
const anEdgeOnTheBadBuild = async (env: Record<string, string> = {}) => {
  const edge = await aSteadyHaltEdge(env);
  edge.world.publish(JM, JM2);
  expect((await edge.tick()).reimages).toHaveLength(2);
  expect(edge.world.annotations[JM_RECORD]).toBe(JM2);
  return edge;
};

describe('FLEET_HALT_REF unset: the script’s tick (I35)', () => {
  it('a halt published under the tag changes nothing: no request, no annotation, no line', async () => {
    const watching = new SimWorld(simConfig());
    const blind = new SimWorld(simConfig());
    watching.publishHalt('{"anything":1}', { signed: true, repo: 'tracebloc/fleet-control', tag: 'stg-halt' });
    for (const world of [watching, blind]) {
      world.publish(JM, JM2);
      await runTick(world.config, simPorts(world));
      await runTick(world.config, simPorts(world));
    }
    const spoken = (w: SimWorld) => w.calls.map((c) => `${c.op} ${c.detail} ${c.outcome}`);
    expect(spoken(watching)).toEqual(spoken(blind));
    expect(watching.calls.filter((c) => c.detail.includes('fleet-control') || c.op === 'readClock')).toEqual([]);
    expect(Object.keys(watching.annotations).filter((k) => k.includes('fleet-halt'))).toEqual([]);
  });
});

describe('no halt published (404)', () => {
  it('a steady tick costs one HEAD more (in the same resolve batch), writes nothing, says so, exit 0', async () => {
    const edge = await aSteadyHaltEdge();
    const outcome = await edge.tick();
    expect(outcome.exitCode).toBe(0);
    expect(edge.calls()).toEqual([
      'observeJobsManager',
      'readSkipStreak',
      'resolveDigest tracebloc/jobs-manager',
      'resolveDigest tracebloc/pods-monitor',
      'resolveDigest tracebloc/resource-monitor',
      'resolveDigest tracebloc/fleet-control',
      'readRecordedDigests',
      'readClock',
    ]);
    expect(edge.line('FLEET_HALT_NONE')).toBe(
      'fleet halt: none published under docker.io/tracebloc/fleet-control:stg-halt',
    );
    expect(outcome.halt).toEqual({
      state: 'none',
      reference: 'docker.io/tracebloc/fleet-control:stg-halt',
      digest: null,
      reason: null,
      expires: null,
      why: null,
    });
  });
});

describe('a verified halt in force', () => {
  it('holds the drift it names: no set image, not recorded, the line and a Warning RefreshHalted, exit 0', async () => {
    const edge = await aSteadyHaltEdge();
    edge.world.publish(JM, JM2);
    const haltDigest = edge.publishHalt({ [JM]: { digests: [JM2] } });
    const outcome = await edge.tick();
    expect(outcome.exitCode).toBe(0);
    expect(setImages(edge.calls())).toEqual([]);
    expect(edge.world.annotations[JM_RECORD]).toBe(JM1);
    expect(edge.line('FLEET_HALT_IN_FORCE')).toBe(
      [
        'FLEET HALT in force: build 2 loses jobs on restart (until 2026-01-02T00:00:00Z)',
        `docker.io/tracebloc/fleet-control:stg-halt answers ${haltDigest.slice(0, 19)}…, signature verified`,
        `${JM}: ${JM2.slice(0, 19)}… (no pin)`,
      ].join('\n'),
    );
    expect(edge.line('DIGEST_HALTED')).toBe(
      `${JM}: latest=${JM2} is halted by the fleet halt (build 2 loses jobs on restart); not re-imaging it`,
    );
    expect(edge.line('DIGEST_CHANGED')).toBe(`${JM}: digest changed (${JM1} -> ${JM2}); held back by the fleet halt`);
    expect(edge.world.kubeEvents.map((e) => `${e.type} ${e.reason}`)).toEqual(['Warning RefreshHalted']);
    expect(outcome.halt?.state).toBe('inForce');
    // Verified this tick: read, its signature checked, kept beside its digest.
    expect(edge.calls().filter((c) => c.includes('fleet-control'))).toEqual([
      'resolveDigest tracebloc/fleet-control',
      `readFleetHalt tracebloc/fleet-control@${haltDigest}`,
      `verifySignature tracebloc/fleet-control@${haltDigest}`,
    ]);
    expect(edge.world.annotations[ANNOTATION.fleetHaltDigest]).toBe(haltDigest);
    expect(JSON.parse(edge.world.annotations[ANNOTATION.fleetHaltDocument] ?? '').reason).toBe(
      'build 2 loses jobs on restart',
    );
  });

  it('a digest seen before costs nothing more: one HEAD, no read, no signature check, no write (I39)', async () => {
    const edge = await aSteadyHaltEdge();
    edge.world.publish(JM, JM2);
    edge.publishHalt({ [JM]: { digests: [JM2] } });
    await edge.tick();
    const outcome = await edge.tick();
    expect(outcome.exitCode).toBe(0);
    expect(outcome.writes).toEqual([]);
    expect(edge.ops().filter((op) => op === 'readFleetHalt' || op === 'verifySignature')).toEqual([]);
    expect(edge.codes()).toContain('FLEET_HALT_IN_FORCE');
    expect(edge.codes()).toContain('DIGEST_HALTED');
  });

  it('FLEET_HALT_EXIT=1: a halt that holds a change back is a finding (exit 1); one that holds nothing is not', async () => {
    const edge = await aSteadyHaltEdge({ FLEET_HALT_EXIT: '1' });
    edge.publishHalt({ [JM]: { digests: [JM2] } });
    expect((await edge.tick()).exitCode).toBe(0);
    edge.world.publish(JM, JM2);
    const held = await edge.tick();
    expect(held.exitCode).toBe(1);
    expect(edge.line('DIGEST_HALTED')).toBe(
      `ERROR: FLEET HALT holds back ${JM}@${JM2} (build 2 loses jobs on restart); not re-imaging it (FLEET_HALT_EXIT=1)`,
    );
  });

  it('`*` holds every change of that repository, a first observation too; the other repositories go on', async () => {
    const edge = aHaltEdge();
    edge.publishHalt({ [RM]: { digests: '*' } });
    const first = await edge.tick();
    expect(first.exitCode).toBe(0);
    expect(edge.world.annotations[RM_RECORD]).toBeUndefined();
    expect(edge.world.annotations[JM_RECORD]).toBe(JM1);
    expect(edge.line('DIGEST_HALTED')).toContain(`${RM}: latest=${simDigest(`${RM}#1`)} is halted`);
    edge.world.publish(JM, JM2);
    edge.world.publish(RM, RM2);
    await edge.tick();
    expect(setImages(edge.calls())).toEqual([
      `setImages jobs-manager api=${ref(JM, JM2)}`,
      `setImages requests-proxy proxy=${ref(JM, JM2)}`,
    ]);
    expect(edge.world.workload('resource-monitor').images['tracebloc-resource-monitor']).toBe(
      'docker.io/tracebloc/resource-monitor:stg',
    );
  });
});

describe('the pin: ring 0 is sent back (a re-image like any other, I38)', () => {
  it('attempt counted, its signature verified, both containers in one patch, rollouts waited, recorded, attempt cleared', async () => {
    const edge = await anEdgeOnTheBadBuild();
    edge.world.sign(JM, JM1);
    edge.publishHalt({ [JM]: { digests: [JM2], pin: JM1 } });
    const outcome = await edge.tick();
    expect(outcome.exitCode).toBe(0);
    const calls = edge.calls();
    const order = [
      `verifySignature ${JM}@${JM1}`,
      'writeRefreshAttempt 1',
      `setImages jobs-manager api=${ref(JM, JM1)}`,
      'waitForRollout jobs-manager',
      `setImages requests-proxy proxy=${ref(JM, JM1)}`,
      'waitForRollout requests-proxy',
      'clearFlapState',
    ];
    expect(calls.filter((c) => order.includes(c))).toEqual(order);
    expect(edge.world.annotations[JM_RECORD]).toBe(JM1);
    expect(edge.world.annotations[ATTEMPT]).toBeUndefined();
    expect(edge.line('HALT_PIN')).toBe(
      `${JM}: runs ${JM2}, which the fleet halt names (build 2 loses jobs on restart); sending it back to the halt's pin ${JM1}`,
    );
    expect(edge.line('DIGEST_CHANGED')).toBe(
      `${JM}: sending it back to the fleet halt's pin (${JM2} -> ${JM1}); re-image needed`,
    );
    // The tag still names the bad build: held from now on.
    const after = await edge.tick();
    expect(after.exitCode).toBe(0);
    expect(setImages(edge.calls())).toEqual([]);
    expect(edge.line('DIGEST_CHANGED')).toBe(`${JM}: digest changed (${JM1} -> ${JM2}); held back by the fleet halt`);
  });

  it('an unsigned pin is not deployed, whatever VERIFY_SIGNATURES says: a finding, no attempt spent', async () => {
    const edge = await anEdgeOnTheBadBuild();
    edge.publishHalt({ [JM]: { digests: [JM2], pin: JM1 } });
    const outcome = await edge.tick();
    expect(outcome.exitCode).toBe(1);
    expect(setImages(edge.calls())).toEqual([]);
    expect(edge.world.annotations[ATTEMPT]).toBeUndefined();
    expect(edge.line('SIGNATURE_REJECTED')).toMatch(
      new RegExp(`^ERROR: SIGNATURE NOT VERIFIED for ${JM}@${JM1}: .*\nthis digest is the fleet halt's pin`),
    );
  });

  it('the pin is not made to soak: an edge of ring 1 on the bad build is sent back at once', async () => {
    const edge = await aSteadyHaltEdge({ ROLLOUT_RING: '1', RING_DELAY: '1h' });
    // It rolled build 2 out before (a ring that had soaked it long enough).
    edge.world.publish(JM, JM2);
    edge.world.setAnnotation(JM_RECORD, JM2);
    edge.world.setLiveImage('jobs-manager', 'api', ref(JM, JM2));
    edge.world.setLiveImage('requests-proxy', 'proxy', ref(JM, JM2));
    edge.world.sign(JM, JM1);
    edge.publishHalt({ [JM]: { digests: [JM2], pin: JM1 } });
    await edge.tick();
    expect(setImages(edge.calls())).toEqual([
      `setImages jobs-manager api=${ref(JM, JM1)}`,
      `setImages requests-proxy proxy=${ref(JM, JM1)}`,
    ]);
    expect(edge.ops()).not.toContain('writePendingDigests');
    expect(edge.codes()).not.toContain('DIGEST_SOAK_STARTED');
  });

  it('under revert, a pin whose rollout fails has no good place to go back to (the record is halted): ROLLBACK FAILED', async () => {
    const edge = await anEdgeOnTheBadBuild({ ON_ROLLOUT_FAILURE: 'revert' });
    edge.world.sign(JM, JM1);
    edge.world.breakBuild(JM1);
    edge.publishHalt({ [JM]: { digests: [JM2], pin: JM1 } });
    const outcome = await edge.tick();
    expect(outcome.result).toBe('rollbackFailed');
    expect(outcome.exitCode).toBe(1);
    expect(edge.line('ROLLBACK_FAILED')).toContain(
      `would go back to ${JM}@${JM2}, a digest the fleet halt in force names`,
    );
    expect(setImages(edge.calls())).toEqual([`setImages jobs-manager api=${ref(JM, JM1)}`]);
    expect(edge.world.annotations[JM_RECORD]).toBe(JM2);
    expect(edge.world.annotations[ATTEMPT]).toBe('1');
  });

  it('without a pin, an edge on a halted build stays on it and says so (a WARN, a RefreshHalted Event)', async () => {
    const edge = await anEdgeOnTheBadBuild();
    edge.publishHalt({ [JM]: { digests: [JM2] } });
    const outcome = await edge.tick();
    expect(outcome.exitCode).toBe(0);
    expect(setImages(edge.calls())).toEqual([]);
    expect(edge.line('HALT_NO_PIN')).toBe(
      `WARN: ${JM}: runs ${JM2}, which the fleet halt names, and the halt gives no pin for ${JM}: left as it runs`,
    );
  });

  it('a fixed build behind the tag rolls out past a halt that names only the bad one', async () => {
    const edge = await anEdgeOnTheBadBuild();
    edge.publishHalt({ [JM]: { digests: [JM2] } });
    edge.world.publish(JM, JM3);
    await edge.tick();
    expect(setImages(edge.calls())).toEqual([
      `setImages jobs-manager api=${ref(JM, JM3)}`,
      `setImages requests-proxy proxy=${ref(JM, JM3)}`,
    ]);
  });

  it('RECONCILE_LIVE=1 never re-pins a container onto a halted record', async () => {
    const edge = await anEdgeOnTheBadBuild({ RECONCILE_LIVE: '1' });
    edge.publishHalt({ [JM]: { digests: [JM2] } });
    edge.world.setLiveImage('requests-proxy', 'proxy', ref(JM, JM1));
    const outcome = await edge.tick();
    expect(outcome.exitCode).toBe(0);
    expect(setImages(edge.calls())).toEqual([]);
    expect(edge.line('LIVE_DRIFT')).toContain(
      'not re-pinning it: the recorded digest is one the fleet halt in force names',
    );
  });
});

describe('fail closed: a halt that cannot be verified (I37)', () => {
  const unverified = async (
    arrange: (edge: ReturnType<typeof aHaltEdge>) => void,
    why: string | RegExp,
    env: Record<string, string> = {},
  ) => {
    const edge = await aSteadyHaltEdge(env);
    edge.world.publish(JM, JM2);
    arrange(edge);
    const outcome = await edge.tick();
    expect(outcome.exitCode).toBe(1);
    expect(setImages(edge.calls())).toEqual([]);
    expect(edge.world.annotations[JM_RECORD]).toBe(JM1);
    expect(edge.world.annotations[ATTEMPT]).toBeUndefined();
    const line = edge.line('FLEET_HALT_UNVERIFIED').split('\n')[0] ?? '';
    expect(line.startsWith('ERROR: FLEET HALT UNVERIFIED: docker.io/tracebloc/fleet-control:stg-halt: ')).toBe(true);
    expect(line).toMatch(why);
    expect(
      line.endsWith('; nothing is re-imaged this tick (a halt that cannot be verified holds everything back)'),
    ).toBe(true);
    expect(edge.world.kubeEvents.map((e) => `${e.type} ${e.reason}`)).toEqual(['Warning RefreshHaltUnverified']);
    expect(edge.line('DIGEST_CHANGED')).toBe(
      `${JM}: digest changed (${JM1} -> ${JM2}); held back by the fleet halt, which could not be verified this tick`,
    );
    for (const key of HALT_KEYS) expect(edge.world.annotations[key]).toBeUndefined();
    expect(outcome.halt?.state).toBe('unverified');
    return edge;
  };

  it('an unsigned halt', () =>
    unverified(
      (e) => e.publishHalt({ [JM]: { digests: [JM2] } }, { signed: false }),
      /its signature did not verify: no signature of/,
    ));
  it('a halt that does not parse', () =>
    unverified(
      (e) => e.publishRawHalt('{"version":1,"reason":"x"}'),
      /its document does not parse: expires is not an RFC 3339 time/,
    ));
  it('a halt that expires more than 30 days ahead', () =>
    unverified(
      (e) => e.publishHalt({ [JM]: { digests: [JM2] } }, { expiresInMs: 31 * 24 * HOUR }),
      /more than 30 days ahead/,
    ));
  it('the halt tag answers 503', () =>
    unverified((e) => {
      e.publishHalt({ [JM]: { digests: [JM2] } });
      e.world.injectRegistryFault('tracebloc/fleet-control', 'Transport');
    }, /the halt tag could not be read \(Transport: /));
  it('the halt tag hangs', () =>
    unverified(
      (e) => e.world.injectRegistryFault('tracebloc/fleet-control', 'Hang'),
      /the halt tag could not be read \(Timeout: /,
    ));
  it('the halt tag answers 401 after the token (a private or missing repository is not "no halt")', () =>
    unverified(
      (e) => e.world.injectRegistryFault('tracebloc/fleet-control', 'Forbidden'),
      /the halt tag could not be read \(Forbidden \(HTTP 403\)/,
    ));
  it('its document cannot be read', () =>
    unverified((e) => {
      e.publishHalt({ [JM]: { digests: [JM2] } });
      e.world.injectHaltDocumentFault('Timeout');
    }, /its document could not be read \(Timeout: /));
  it('its artifact holds no document', () =>
    unverified((e) => {
      e.publishHalt({ [JM]: { digests: [JM2] } });
      e.world.injectHaltDocumentFault('Unusable');
    }, /the halt manifest holds 0 layers/));
  it('its signature cannot be checked (the registry fails)', () =>
    unverified((e) => {
      e.publishHalt({ [JM]: { digests: [JM2] } });
      e.world.injectSignatureFault('tracebloc/fleet-control', 'RateLimited');
    }, /its signature could not be checked \(RateLimited: /));

  it('a fresh install under an unverifiable halt records no baseline', async () => {
    const edge = aHaltEdge();
    edge.publishHalt({ [JM]: { digests: [JM2] } }, { signed: false });
    const outcome = await edge.tick();
    expect(outcome.exitCode).toBe(1);
    // No digest recorded; only what the ownership check found true of the containers (§3.4c).
    expect(outcome.writes.map((w) => w.kind)).toEqual(['recordTopologyFingerprint']);
    expect(outcome.events.filter((e) => e.code === 'FIRST_OBSERVATION').map((e) => e.message)).toEqual(
      ['jobs-manager', 'pods-monitor', 'resource-monitor'].map(
        (name) =>
          `tracebloc/${name}: latest=${simDigest(`tracebloc/${name}#1`)} recorded=<unset> -- first observation; held back by the fleet halt, which could not be verified this tick, not recorded`,
      ),
    );
  });

  it('no clock port: its expiry cannot be judged, so it is unverified', async () => {
    const edge = await aSteadyHaltEdge();
    const { clock: _none, ...ports } = edge.ports;
    edge.world.publish(JM, JM2);
    const outcome = await runTick(edge.config, ports);
    expect(outcome.exitCode).toBe(1);
    expect(outcome.events.find((e) => e.code === 'FLEET_HALT_UNVERIFIED')?.message).toContain(
      'there is no clock to judge its expiry by',
    );
    expect(outcome.reimages).toEqual([]);
  });

  it('every image pinned: the halt is still judged and said', async () => {
    const edge = aHaltEdge({ JOBS_MANAGER_PINNED: '1', PODS_MONITOR_PINNED: '1', RESOURCE_MONITOR_PINNED: '1' });
    edge.publishHalt({ [JM]: { digests: [JM2] } }, { signed: false });
    const outcome = await edge.tick();
    expect(outcome.exitCode).toBe(1);
    expect(edge.calls().filter((c) => c.startsWith('resolveDigest'))).toEqual([
      'resolveDigest tracebloc/fleet-control',
    ]);
    expect(edge.codes()).toContain('FLEET_HALT_UNVERIFIED');
  });
});

describe('expired, lifted, kept', () => {
  it('an expired halt is ignored and said once (a WARN): the drift goes on, exit 0', async () => {
    const edge = await aSteadyHaltEdge();
    edge.publishHalt({ [JM]: { digests: [JM2] } }, { expiresInMs: HOUR });
    edge.world.clockMs += 2 * HOUR;
    edge.world.publish(JM, JM2);
    const outcome = await edge.tick();
    expect(outcome.exitCode).toBe(0);
    expect(edge.line('FLEET_HALT_EXPIRED')).toBe(
      'WARN: the fleet halt under docker.io/tracebloc/fleet-control:stg-halt expired at 2026-01-01T01:00:00Z and is ignored: build 2 loses jobs on restart (delete the tag, or publish a halt that names nothing)',
    );
    expect(setImages(edge.calls())).toHaveLength(2);
    expect(outcome.halt?.state).toBe('expired');
    expect(edge.world.kubeEvents.map((e) => e.reason)).not.toContain('RefreshHalted');
  });

  it('the tag deleted: the halt is lifted, said once, its record removed; the next tick is a plain 404', async () => {
    const edge = await aSteadyHaltEdge();
    const haltDigest = edge.publishHalt({ [JM]: { digests: [JM2] } });
    await edge.tick();
    edge.liftHalt();
    const lifted = await edge.tick();
    expect(lifted.exitCode).toBe(0);
    expect(edge.line('FLEET_HALT_LIFTED')).toBe(
      `fleet halt lifted: docker.io/tracebloc/fleet-control:stg-halt answers 404; the halt ${haltDigest.slice(0, 19)}… no longer holds, and its record on deployment/stg-jobs-manager is removed`,
    );
    expect(lifted.writes).toEqual([
      {
        kind: 'liftFleetHalt',
        annotations: { [ANNOTATION.fleetHaltDigest]: null, [ANNOTATION.fleetHaltDocument]: null },
      },
    ]);
    expect(lifted.halt?.state).toBe('lifted');
    const after = await edge.tick();
    expect(after.writes).toEqual([]);
    expect(edge.codes()).toContain('FLEET_HALT_NONE');
  });

  it('a failed removal of a lifted halt is a WARN: nothing halts, the drift goes on, the next tick removes it', async () => {
    const edge = await aSteadyHaltEdge();
    edge.publishHalt({ [JM]: { digests: [JM2] } });
    await edge.tick();
    edge.liftHalt();
    edge.world.publish(JM, JM2);
    edge.world.injectClusterFault('patchBookkeeping', 'Forbidden', 1, `${ANNOTATION.fleetHaltDigest}-`);
    const lifted = await edge.tick();
    expect(lifted.exitCode).toBe(0);
    expect(edge.line('FLEET_HALT_WRITE_FAILED')).toMatch(
      /^WARN: could not remove the record of the lifted fleet halt on deployment\/stg-jobs-manager \(Forbidden \(HTTP 403\): .*\); nothing is halted, and the next tick tries again\.$/,
    );
    expect(lifted.writes.map((w) => w.kind)).not.toContain('liftFleetHalt');
    // jobs-manager and requests-proxy follow the build the halt held.
    expect(setImages(edge.calls())).toHaveLength(2);
    const after = await edge.tick();
    expect(after.writes.map((w) => w.kind)).toContain('liftFleetHalt');
    expect(edge.world.annotations[ANNOTATION.fleetHaltDigest]).toBeUndefined();
  });

  it('with no image resolved the halt is still judged against its record: a deleted tag removes it', async () => {
    const edge = await aSteadyHaltEdge();
    edge.publishHalt({ [JM]: { digests: [JM2] } });
    await edge.tick();
    edge.liftHalt();
    for (const repo of [JM, 'tracebloc/pods-monitor', RM]) edge.world.injectRegistryFault(repo, 'Transport', 3);
    const lifted = await edge.tick();
    expect(edge.codes()).toContain('FLEET_HALT_LIFTED');
    // The registry's silence is counted first (I46).
    expect(lifted.writes.map((w) => w.kind)).toEqual(['writeResolveFailureStreak', 'liftFleetHalt']);
    expect(edge.world.annotations[ANNOTATION.fleetHaltDigest]).toBeUndefined();
  });

  it('a halt that names nothing lifts one: published, verified, kept; the drift goes on', async () => {
    const edge = await aSteadyHaltEdge();
    edge.publishHalt({ [JM]: { digests: [JM2] } });
    edge.world.publish(JM, JM2);
    await edge.tick();
    expect(setImages(edge.calls())).toEqual([]);
    edge.publishHalt({}, { reason: 'all clear' });
    await edge.tick();
    expect(setImages(edge.calls())).toHaveLength(2);
    expect(edge.line('FLEET_HALT_IN_FORCE')).toContain('it names no repository: nothing is held');
  });

  it('a kept document that no longer parses (a hand edit) is read and verified again, and kept anew', async () => {
    const edge = await aSteadyHaltEdge();
    const haltDigest = edge.publishHalt({ [JM]: { digests: [JM2] } });
    await edge.tick();
    edge.world.setAnnotation(ANNOTATION.fleetHaltDocument, '{garbage');
    const outcome = await edge.tick();
    expect(outcome.exitCode).toBe(0);
    expect(edge.line('FLEET_HALT_READ')).toMatch(
      /answers sha256:.{12}…; the kept document no longer parses \(not JSON .*\): reading and verifying it$/,
    );
    expect(edge.ops().filter((op) => op === 'readFleetHalt' || op === 'recordFleetHalt')).toEqual([
      'readFleetHalt',
      'recordFleetHalt',
    ]);
    expect(edge.world.annotations[ANNOTATION.fleetHaltDigest]).toBe(haltDigest);
    expect(JSON.parse(edge.world.annotations[ANNOTATION.fleetHaltDocument] ?? '').version).toBe(1);
  });

  it('a failed record write is a WARN: the halt holds this tick, and the next reads it again', async () => {
    const edge = await aSteadyHaltEdge();
    edge.world.publish(JM, JM2);
    edge.publishHalt({ [JM]: { digests: [JM2] } });
    edge.world.injectClusterFault('patchBookkeeping', 'Forbidden', 1, `${ANNOTATION.fleetHaltDigest}=`);
    const outcome = await edge.tick();
    expect(outcome.exitCode).toBe(0);
    expect(setImages(edge.calls())).toEqual([]);
    expect(edge.line('FLEET_HALT_WRITE_FAILED')).toMatch(
      /^WARN: could not record the verified fleet halt on deployment\/stg-jobs-manager \(Forbidden \(HTTP 403\): .*\); it holds this tick, and the next tick reads and verifies it again\.$/,
    );
    await edge.tick();
    expect(edge.ops()).toContain('readFleetHalt');
  });
});

describe('DECOUPLED_REFRESH past an unsettled jobs-manager', () => {
  it('the halt holds the decoupled pass too: requests-proxy does not follow a halted digest', async () => {
    const edge = await aSteadyHaltEdge({ DECOUPLED_REFRESH: '1' });
    edge.world.setBehaviour('jobs-manager', 'neverReady');
    edge.world.publish(JM, JM2);
    edge.publishHalt({ [JM]: { digests: [JM2] } });
    const outcome = await edge.tick();
    expect(outcome.result).toBe('skipped');
    expect(setImages(edge.calls())).toEqual([]);
    expect(edge.codes()).toContain('FLEET_HALT_IN_FORCE');
  });
});

describe('--dry-run under a fleet halt', () => {
  it('reads and verifies a new halt as the tick would, and says the write it would make', async () => {
    const edge = await aSteadyHaltEdge();
    edge.world.publish(JM, JM2);
    const haltDigest = edge.publishHalt({ [JM]: { digests: [JM2] } });
    const said: string[] = [];
    const outcome = await runTick(
      edge.config,
      dryRunPorts(edge.ports, edge.config, (a) => said.push(a)),
    );
    expect(outcome.exitCode).toBe(0);
    expect(outcome.halt?.state).toBe('inForce');
    expect(said.filter((a) => a.includes('fleet-halt-digest'))).toEqual([
      expect.stringMatching(
        new RegExp(
          `^annotate deployment/stg-jobs-manager -n tracebloc tracebloc\\.io/fleet-halt-digest=${haltDigest} `,
        ),
      ),
    ]);
    expect(edge.world.annotations[ANNOTATION.fleetHaltDigest]).toBeUndefined();
  });
});

describe('ports that fail as a whole (a defect of the port): still fail closed, naming the step', () => {
  const withPorts = async (patch: (ports: ReturnType<typeof aHaltEdge>['ports']) => object, why: string) => {
    const edge = await aSteadyHaltEdge();
    edge.world.publish(JM, JM2);
    edge.publishHalt({ [JM]: { digests: [JM2] } });
    const outcome = await runTick(edge.config, { ...edge.ports, ...patch(edge.ports) });
    expect(outcome.exitCode).toBe(1);
    expect(outcome.reimages).toEqual([]);
    expect(outcome.halt).toMatchObject({ state: 'unverified', why });
  };
  const throwing = () => () => Promise.reject(new Error('boom'));

  it('the registry port rejects the whole batch: the halt tag is unread too', () =>
    withPorts(
      () => ({ registry: { resolveDigests: throwing } }),
      'the halt tag could not be read (Transport: unexpected failure: Error: boom)',
    ));
  it('the fleet halt port throws', () =>
    withPorts(
      () => ({ fleetHalt: { readDocument: throwing } }),
      'its document could not be read (Transport: unexpected failure: Error: boom)',
    ));
  it('the signature port throws', () =>
    withPorts(
      () => ({ signatures: { verify: throwing } }),
      'its signature could not be checked (Transport: unexpected failure: Error: boom)',
    ));
});

describe('what the tick writes of a halt it verifies', () => {
  it('one write of kind recordFleetHalt: the digest and the document on one line', async () => {
    const edge = await aSteadyHaltEdge();
    const haltDigest = edge.publishHalt({ [JM]: { digests: [JM2] } });
    const outcome = await edge.tick();
    expect(outcome.writes.map((w) => w.kind)).toEqual(['recordFleetHalt']);
    expect(outcome.writes[0]?.annotations[ANNOTATION.fleetHaltDigest]).toBe(haltDigest);
    expect(outcome.writes[0]?.annotations[ANNOTATION.fleetHaltDocument]).not.toContain('\n');
  });

  it('a kept digest without its document is read again, said without a note', async () => {
    const edge = await aSteadyHaltEdge();
    const haltDigest = edge.publishHalt({ [JM]: { digests: [JM2] } });
    edge.world.setAnnotation(ANNOTATION.fleetHaltDigest, haltDigest);
    await edge.tick();
    expect(edge.line('FLEET_HALT_READ')).toBe(
      `fleet halt: docker.io/tracebloc/fleet-control:stg-halt answers ${haltDigest.slice(0, 19)}…, not verified here before: reading and verifying it`,
    );
  });

  it('an image whose tag could not be resolved this tick is not sent back: the next tick does it', async () => {
    const edge = await anEdgeOnTheBadBuild();
    edge.world.sign(JM, JM1);
    edge.publishHalt({ [JM]: { digests: [JM2], pin: JM1 } });
    edge.world.injectRegistryFault(JM, 'Transport');
    await edge.tick();
    expect(setImages(edge.calls())).toEqual([]);
    await edge.tick();
    expect(setImages(edge.calls())).toHaveLength(2);
  });

  it('the halt tag answers garbage: unverified, quoting it', async () => {
    const edge = await aSteadyHaltEdge();
    edge.publishHalt({ [JM]: { digests: [JM2] } });
    edge.world.injectRegistryFault('tracebloc/fleet-control', 'Garbage');
    const outcome = await edge.tick();
    expect(outcome.halt?.why).toBe(
      'the registry answered "sha256:not-a-digest" for the halt tag, which is not an OCI digest',
    );
  });
});

describe('a halt that does not name what a guard goes back to changes nothing of it', () => {
  it('RECONCILE_LIVE=1 still re-pins a live drift onto a record the halt does not name', async () => {
    const edge = await aSteadyHaltEdge({ RECONCILE_LIVE: '1' });
    edge.publishHalt({ [JM]: { digests: [JM3] } });
    edge.world.setLiveImage('requests-proxy', 'proxy', ref(JM, JM2));
    await edge.tick();
    expect(setImages(edge.calls())).toEqual([`setImages requests-proxy proxy=${ref(JM, JM1)}`]);
  });

  it('ON_ROLLOUT_FAILURE=revert still rolls back onto a record the halt does not name', async () => {
    const edge = await aSteadyHaltEdge({ ON_ROLLOUT_FAILURE: 'revert' });
    edge.publishHalt({ [RM]: { digests: [RM2] } });
    edge.world.publish(JM, JM2);
    edge.world.breakBuild(JM2);
    const outcome = await edge.tick();
    expect(outcome.result).toBe('rolledBack');
    expect(edge.world.workload('jobs-manager').images.api).toBe(ref(JM, JM1));
  });

  it('an unverified halt stops the live re-pins too (nothing is re-imaged)', async () => {
    const edge = await aSteadyHaltEdge({ RECONCILE_LIVE: '1' });
    edge.publishHalt({ [JM]: { digests: [JM3] } }, { signed: false });
    edge.world.setLiveImage('requests-proxy', 'proxy', ref(JM, JM2));
    const outcome = await edge.tick();
    expect(outcome.exitCode).toBe(1);
    expect(setImages(edge.calls())).toEqual([]);
    expect(edge.codes()).toContain('LIVE_DRIFT');
  });
});

describe('the pin’s signature under VERIFY_SIGNATURES', () => {
  it('warn: an unsigned pin is still not deployed (judged as under enforce), while the images’ checks warn', async () => {
    const edge = await anEdgeOnTheBadBuild({ VERIFY_SIGNATURES: 'warn' });
    edge.publishHalt({ [JM]: { digests: [JM2], pin: JM1 } });
    edge.world.publish(RM, RM2);
    const outcome = await edge.tick();
    expect(outcome.exitCode).toBe(1);
    expect(edge.line('SIGNATURE_REJECTED')).toMatch(new RegExp(`^ERROR: SIGNATURE NOT VERIFIED for ${JM}@${JM1}`));
    expect(edge.line('SIGNATURE_NOT_VERIFIED')).toContain(`${RM}@${RM2}`);
    expect(setImages(edge.calls())).toEqual([`setImages resource-monitor tracebloc-resource-monitor=${ref(RM, RM2)}`]);
  });

  it('enforce: the pin and every changed digest are checked, each once', async () => {
    const edge = await aSteadyHaltEdge({ VERIFY_SIGNATURES: 'enforce' });
    edge.world.sign(JM, JM2);
    edge.world.publish(JM, JM2);
    expect((await edge.tick()).reimages).toHaveLength(2);
    edge.world.sign(JM, JM1);
    edge.world.publish(RM, RM2);
    edge.world.sign(RM, RM2);
    edge.publishHalt({ [JM]: { digests: [JM2], pin: JM1 } });
    await edge.tick();
    expect(edge.calls().filter((c) => c.startsWith('verifySignature') && !c.includes('fleet-control'))).toEqual([
      `verifySignature ${JM}@${JM1}`,
      `verifySignature ${RM}@${RM2}`,
    ]);
    expect(setImages(edge.calls())).toHaveLength(3);
  });

  it('off: only the pin is checked; the tag’s other changes go on unchecked, as the script', async () => {
    const edge = await anEdgeOnTheBadBuild();
    edge.world.sign(JM, JM1);
    edge.world.publish(RM, RM2);
    edge.publishHalt({ [JM]: { digests: [JM2], pin: JM1 } });
    await edge.tick();
    expect(edge.calls().filter((c) => c.startsWith('verifySignature') && !c.includes('fleet-control'))).toEqual([
      `verifySignature ${JM}@${JM1}`,
    ]);
    expect(setImages(edge.calls())).toHaveLength(3);
  });
});
