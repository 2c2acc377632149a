import { readFileSync } from 'node:fs';
import type { TickConfig } from '@image-refresh/core';
import { SHOP_PROFILE, SimWorld, simConfig } from '@image-refresh/core/sim';
import { afterEach, describe, expect, it } from 'vitest';
import { type ChartCluster, imagesOf, startChartCluster } from '../support/fake-api-chart.js';
import { startTopologyCluster, type TopologyCluster } from '../support/fake-api-topology.js';

// The parity suite stages every story on a fake cluster seeded from the
// story's topology (support/real-stack.ts). Two things make that seeding
// trustworthy: on the chart's topology it is the very release the chart's
// stories always ran on (fake-api-chart.ts), object for object; on any
// topology it is the simulator's fresh install, container for container.

/** The kubeconfig's context namespace: where kubectl and client-node look by default. */
const contextNamespace = (path: string): string | undefined =>
  /^ {4}namespace: "(.*)"$/m.exec(readFileSync(path, 'utf8'))?.[1];

describe('a fake cluster seeded from a topology', () => {
  const started: (TopologyCluster | ChartCluster)[] = [];
  afterEach(async () => {
    for (const cluster of started.splice(0)) await cluster.close();
  });
  const topologyCluster = async (config: TickConfig) => {
    const cluster = await startTopologyCluster(config);
    started.push(cluster);
    return cluster;
  };

  it("on the chart's topology, holds exactly the chart's release: the same objects, uids and resource versions", async () => {
    const config = simConfig();
    const topology = await topologyCluster(config);
    const chart = await startChartCluster();
    started.push(chart);
    expect(topology.workload('jobs-manager')).toEqual(chart.jobsManager());
    expect(topology.workload('requests-proxy')).toEqual(chart.requestsProxy());
    expect(topology.workload('resource-monitor')).toEqual(chart.resourceMonitor());
    expect(topology.server.store.namespaces()).toEqual(chart.server.store.namespaces());
    expect(contextNamespace(topology.kubeconfig.path)).toBe('tracebloc');
    expect(contextNamespace(topology.kubeconfig.path)).toBe(contextNamespace(chart.kubeconfig.path));
  });

  it("on a profile's topology, holds each workload in its namespace with its kind, as the simulator's fresh install runs it", async () => {
    const config = simConfig({}, SHOP_PROFILE);
    const cluster = await topologyCluster(config);
    const sim = new SimWorld(config);
    expect(imagesOf(cluster.workload('web'))).toEqual({
      web: 'docker.io/shop/web:stg',
      log: 'docker.io/shop/log:stg',
    });
    expect(cluster.server.store.get('Deployment', 'shop', 'worker')).toBeDefined();
    expect(cluster.server.store.get('DaemonSet', 'shop-nodes', 'agent')).toBeDefined();
    expect([...cluster.server.store.namespaces()].sort()).toEqual(['shop', 'shop-nodes']);
    for (const { id } of config.topology.workloads) {
      expect(imagesOf(cluster.workload(id)), id).toEqual(sim.workload(id).images);
    }
    expect(contextNamespace(cluster.kubeconfig.path)).toBe('shop');
  });

  it('names the workload and its namespace when the cluster no longer holds it', async () => {
    const cluster = await topologyCluster(simConfig({}, SHOP_PROFILE));
    cluster.server.store.delete('DaemonSet', 'shop-nodes', 'agent');
    expect(() => cluster.workload('agent')).toThrow('the fake API server holds no DaemonSet shop-nodes/agent');
  });
});
