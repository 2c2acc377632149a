import { describe, expect, it } from 'vitest';
import { topologyFingerprint } from '../src/domain/topology-fingerprint.js';
import { dryRunPorts } from '../src/dry-run.js';
import { runTick } from '../src/run-tick.js';
import { SimWorld, simConfig, simDigest, simPorts } from '../src/sim/index.js';
import { ANNOTATION, imageSpec } from './support/chart.js';

// `tick --dry-run` as kubectl's --dry-run=server: every write goes to the
// API server as dryRun=All (here: the simulator answering as one), is said
// only once it was accepted, and a refusal ends the tick as it would end the
// real one — while nothing persists and nothing rolls.

const JM = 'tracebloc/jobs-manager';
const JM_RECORD = imageSpec('jobs-manager').recordKey;

/** An edge with its digests recorded and a new jobs-manager build published. */
const aDriftedEdge = () => {
  const config = simConfig({});
  const world = new SimWorld(config);
  world.annotations = {
    // A topology this edge found true before: the ownership check reads nothing more (§3.4c).
    [config.topology.keys.topologyFingerprint]: topologyFingerprint(config.topology),
    [JM_RECORD]: simDigest(`${JM}#1`),
    [imageSpec('pods-monitor').recordKey]: simDigest('tracebloc/pods-monitor#1'),
    [imageSpec('resource-monitor').recordKey]: simDigest('tracebloc/resource-monitor#1'),
  };
  world.publish(JM, simDigest(`${JM}#2`));
  const said: string[] = [];
  const ports = (mode: 'client' | 'server') =>
    dryRunPorts(simPorts(world, { dryRun: mode === 'server' }), config, (a) => said.push(a), mode);
  return { config, world, said, ports };
};

describe('--dry-run against the API server (dryRun=All)', () => {
  it('sends each write, says it once accepted, and persists nothing', async () => {
    const { config, world, said, ports } = aDriftedEdge();
    const before = { annotations: { ...world.annotations }, images: { ...world.workload('jobs-manager').images } };
    const outcome = await runTick(config, ports('server'));
    expect(outcome.exitCode).toBe(0);
    expect(
      world.calls.filter((c) => c.op === 'patchBookkeeping' || c.op === 'setImages').map((c) => c.outcome),
    ).toEqual(['dry run', 'dry run', 'dry run', 'dry run', 'dry run']);
    expect(said.filter((s) => s.endsWith('(the API server accepted it as a dry run)'))).toHaveLength(5);
    expect(said).toContain(
      `set image deployment/stg-jobs-manager -n tracebloc api=docker.io/${JM}@${simDigest(`${JM}#2`)} (the API server accepted it as a dry run)`,
    );
    // Waits are said, not waited: nothing rolled.
    expect(said.filter((s) => s.startsWith('wait for the rollout of'))).toHaveLength(2);
    expect(world.annotations).toEqual(before.annotations);
    expect(world.workload('jobs-manager').images).toEqual(before.images);
  });

  it('a write the API server refuses ends the dry run as it would end the real tick: exit 1, said as the real error', async () => {
    const { config, world, said, ports } = aDriftedEdge();
    world.injectClusterFault('patchBookkeeping', 'Forbidden', 1, `${ANNOTATION.refreshAttempt}=`);
    const outcome = await runTick(config, ports('server'));
    expect(outcome.result).toBe('attemptWriteFailed');
    expect(outcome.exitCode).toBe(1);
    expect(said.some((s) => s.startsWith('annotate') && s.includes(ANNOTATION.refreshAttempt))).toBe(false);
    expect(world.calls.filter((c) => c.op === 'setImages')).toEqual([]);
  });

  it('client-side, no write reaches the cluster at all, and every one is said', async () => {
    const { config, world, said, ports } = aDriftedEdge();
    world.injectClusterFault('patchBookkeeping', 'Forbidden', 1, `${ANNOTATION.refreshAttempt}=`);
    const outcome = await runTick(config, ports('client'));
    expect(outcome.exitCode).toBe(0);
    expect(world.calls.filter((c) => c.op === 'patchBookkeeping' || c.op === 'setImages')).toEqual([]);
    expect(said.filter((s) => s.startsWith('annotate') || s.startsWith('set image'))).toHaveLength(5);
  });
});

describe('what a dry run says, to the character', () => {
  it('a set image the API server answers as already on target is not said as one it would send', async () => {
    const { config, world, said } = aDriftedEdge();
    const sim = simPorts(world, { dryRun: true });
    const onTarget = dryRunPorts(
      {
        ...sim,
        cluster: {
          ...sim.cluster,
          setImages: () => () => Promise.resolve({ _tag: 'Right', right: { changed: false } }),
        },
      },
      config,
      (a) => said.push(a),
      'server',
    );
    const outcome = await runTick(config, onTarget);
    expect(outcome.exitCode).toBe(0);
    expect(said.filter((s) => s.startsWith('set image'))).toEqual([]);
  });

  it("an Event's text is said whole up to 120 characters, and cut to 119 and an ellipsis past them", async () => {
    const config = simConfig({});
    const said: string[] = [];
    const ports = dryRunPorts(simPorts(new SimWorld(config)), config, (a) => said.push(a));
    const record = async (message: string) => {
      said.length = 0;
      await ports.events?.record({ type: 'Normal', reason: 'RefreshSkipped', message, action: 'Skip' } as never)();
      return said[0] ?? '';
    };
    const whole = 'x'.repeat(120);
    expect(await record(whole)).toBe(`record the Normal Event RefreshSkipped: ${whole}`);
    expect(await record(`${whole}y`)).toBe(`record the Normal Event RefreshSkipped: ${'x'.repeat(119)}…`);
  });
});
