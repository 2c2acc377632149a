import * as E from 'fp-ts/lib/Either.js';
import { describe, expect, it } from 'vitest';
import { dryRunPorts } from '../src/dry-run.js';
import { SimWorld, simConfig, simPorts } from '../src/sim/index.js';
import { workloadRef } from './support/chart.js';

// What the --dry-run ports answer when called one by one: a stability watch and
// START_JITTER's wait are said and succeed without waiting; the signature port
// and the clock's reading pass through as the real ones (docs/behaviour.md §3, Dry run),
// and a port the real tick lacks stays absent rather than turning up undefined.

const aDryRun = () => {
  const config = simConfig({});
  const world = new SimWorld(config);
  const real = simPorts(world);
  const said: string[] = [];
  return { config, world, real, said, dry: dryRunPorts(real, config, (a) => said.push(a)) };
};

describe('--dry-run port answers', () => {
  it('a stability watch is said with its workload and window and succeeds at once', async () => {
    const { config, world, said, dry } = aDryRun();
    const before = world.clockMs;
    const answer = await dry.cluster.watchStability?.(workloadRef(config, 'jobs-manager'), 90_000)();
    expect(answer).toEqual(E.right(undefined));
    expect(said).toEqual(['watch deployment/stg-jobs-manager stay complete for 1m30s']);
    expect(world.clockMs).toBe(before);
  });

  it('START_JITTER’s wait is said, not waited; the clock still reads the real time', async () => {
    const { world, real, said, dry } = aDryRun();
    const before = world.clockMs;
    expect(await dry.clock?.sleep(1_500)()).toEqual(E.right(undefined));
    expect(said).toEqual(['wait 1.5s (START_JITTER)']);
    expect(world.clockMs).toBe(before);
    expect(dry.clock?.now).toBe(real.clock?.now);
  });

  it('the signature port is the real one: a dry run checks as the tick would', () => {
    const { real, dry } = aDryRun();
    expect(dry.signatures).toBe(real.signatures);
  });

  it('the fleet halt port is the real one: a dry run reads a halt as the tick would (docs/behaviour.md §3.4b)', () => {
    const { real, dry } = aDryRun();
    expect(dry.fleetHalt).toBe(real.fleetHalt);
  });

  it('without a signature, platform, staging, fleet halt or promotion port or a clock the dry ports have none either', () => {
    const config = simConfig({});
    const {
      signatures: _s,
      clock: _c,
      fleetHalt: _f,
      fleetPromotion: _fp,
      platforms: _p,
      staging: _st,
      ...real
    } = simPorts(new SimWorld(config));
    const dry = dryRunPorts(real, config, () => undefined);
    expect(Object.keys(dry).sort()).toEqual(['cluster', 'events', 'registry']);
  });

  it('the platform port is the real one (it only reads)', () => {
    const { real, dry } = aDryRun();
    expect(dry.platforms).toBe(real.platforms);
  });

  it('the fleet promotion port is the real one (reading a promotion only reads)', () => {
    const { real, dry } = aDryRun();
    expect(dry.fleetPromotion).toBe(real.fleetPromotion);
  });

  it('staging is said per workload, every target answered Staged, and no node stages anything (§3.5a)', async () => {
    const { config, world, said, dry } = aDryRun();
    const before = world.clockMs;
    const jobs = workloadRef(config, 'jobs-manager');
    const proxy = workloadRef(config, 'requests-proxy');
    const answer = await dry.staging?.stage({
      targets: [
        { workload: jobs, images: ['docker.io/tracebloc/jobs-manager@sha256:aa'] },
        { workload: proxy, images: ['docker.io/tracebloc/requests-proxy@sha256:bb'] },
      ],
      timeoutMs: 1_800_000,
      parallel: 1,
    })();
    expect(answer).toEqual(
      E.right([
        { _tag: 'Staged', nodes: [] },
        { _tag: 'Staged', nodes: [] },
      ]),
    );
    expect(said).toEqual([
      'stage docker.io/tracebloc/jobs-manager@sha256:aa on the nodes of deployment/stg-jobs-manager -n tracebloc (up to 30m)',
      'stage docker.io/tracebloc/requests-proxy@sha256:bb on the nodes of deployment/stg-requests-proxy -n tracebloc (up to 30m)',
    ]);
    expect(world.clockMs).toBe(before);
  });
});
