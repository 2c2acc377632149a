import { describe, expect, it } from 'vitest';
import { DEFAULT_PROFILE } from '../src/config/profile/chart-profile.js';
import type { Profile } from '../src/config/profile/profile.js';
import { runTick } from '../src/run-tick.js';
import { SCENARIOS, type Scenario } from '../src/sim/scenarios.js';
import { SIM_ENVIRONMENT, simConfig } from '../src/sim/sim-config.js';
import { simPorts } from '../src/sim/sim-ports.js';
import { SimWorld } from '../src/sim/sim-world.js';

// The chart's topology written as a profile file behaves byte-for-byte like
// the built-in default (docs/profiles.md): every chart scenario, ticked once on
// the default topology named by the chart's variables and once on that
// topology as a document (through JSON, as a file would carry it) with none of
// those variables set, gives the same outcomes, the same calls in the same
// order and the same world after each tick.

const CHART_AS_DOCUMENT: Profile = JSON.parse(
  JSON.stringify(
    DEFAULT_PROFILE({
      releaseName: SIM_ENVIRONMENT.RELEASE_NAME as string,
      releaseNamespace: SIM_ENVIRONMENT.RELEASE_NAMESPACE as string,
      deploymentName: SIM_ENVIRONMENT.DEPLOYMENT_NAME as string,
      requestsProxyDeployment: SIM_ENVIRONMENT.REQUESTS_PROXY_DEPLOYMENT as string,
      resourceMonitorDaemonSet: SIM_ENVIRONMENT.RESOURCE_MONITOR_DAEMONSET as string,
      nodeAgentsNamespace: SIM_ENVIRONMENT.NODE_AGENTS_NAMESPACE as string,
    }),
  ),
);

/** Every tick of one edge of `scenario`: its outcome, the calls it made, the world it left. */
const ticksOf = async (scenario: Scenario, edgeEnv: Record<string, string>, asProfile: boolean) => {
  const env = { ...scenario.env, ...edgeEnv };
  // The chart's IMAGE_REGISTRY other than docker.io is its mirror: a profile says it as `mirror`.
  const { IMAGE_REGISTRY, ...withoutRegistry } = env;
  const mirror = IMAGE_REGISTRY === undefined ? {} : { mirror: IMAGE_REGISTRY };
  const config = asProfile ? simConfig(withoutRegistry, { ...CHART_AS_DOCUMENT, ...mirror }) : simConfig(env);
  const world = new SimWorld(config);
  const ports = simPorts(world);
  const ticks = [];
  for (const step of scenario.steps) {
    step.act?.(world);
    const firstCall = world.calls.length;
    const outcome = await runTick(config, ports);
    ticks.push({
      outcome,
      calls: world.calls.slice(firstCall),
      annotations: { ...world.annotations },
      clockMs: world.clockMs,
    });
  }
  return { config, ticks };
};

const chartScenarios = SCENARIOS.filter((s) => s.profile === undefined);

/** The switches that read the topology differently, each set over every scenario. */
const SWITCHES: readonly { readonly name: string; readonly env: Record<string, string> }[] = [
  { name: 'as configured', env: {} },
  { name: 'decoupled and live', env: { DECOUPLED_REFRESH: '1', RECONCILE_LIVE: '1' } },
  { name: 'pinned', env: { REQUESTS_PROXY_PINNED: '1', RESOURCE_MONITOR_PINNED: '1' } },
  { name: 'reverting, unguarded', env: { ON_ROLLOUT_FAILURE: 'revert', OWNERSHIP_CHECK: 'off' } },
  { name: 'soaked, staged', env: { MIN_DIGEST_AGE: '20m', PLATFORM_CHECK: 'on', PREPULL: 'on' } },
];

describe("the chart's topology as a profile document", () => {
  it('is followed with none of the chart variables set, and none is said to be ignored', () => {
    const config = simConfig({}, CHART_AS_DOCUMENT);
    expect(config.ignoredVariables).toEqual([]);
    expect(config.topology.gate.name).toBe('stg-jobs-manager');
  });

  it.each(
    chartScenarios.flatMap((scenario) =>
      (scenario.edges ?? [{ name: 'edge', env: {} }]).flatMap((edge) =>
        SWITCHES.map((switches) => ({
          name: `${scenario.name} [${edge.name}, ${switches.name}]`,
          scenario,
          env: { ...switches.env, ...edge.env } as Record<string, string>,
        })),
      ),
    ),
  )('$name: same outcomes, calls and bookkeeping as the built-in default', async ({ scenario, env }) => {
    const builtIn = await ticksOf(scenario, env, false);
    const asProfile = await ticksOf(scenario, env, true);
    expect(asProfile.ticks.length).toBeGreaterThan(0);
    expect(asProfile.ticks).toEqual(builtIn.ticks);
  });

  it('covers every chart scenario', () => {
    expect(SCENARIOS.filter((s) => !chartScenarios.includes(s)).map((s) => s.name)).toEqual([
      'shop',
      'private-registry',
    ]);
  });
});
