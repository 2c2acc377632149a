import { rmSync } from 'node:fs';
import { imageOf, type TickConfig, type TopologyWorkload, workloadOf } from '@image-refresh/core';
import type { RolloutBehaviour } from './fake-api-controller.js';
import { type FakeKubeconfig, writeFakeKubeconfig } from './fake-api-kubeconfig.js';
import { daemonSetObject, deploymentObject } from './fake-api-objects.js';
import type { JsonObject } from './fake-api-patch.js';
import { type FakeApiServer, type FakeApiServerOptions, startFakeApiServer } from './fake-api-server.js';

// A fake API server holding a fresh install of any profile's topology
// (docs/profiles.md): every workload of the profile, in its namespace, each
// container running its image's repo:tag, settled — the world the core
// simulator's SimWorld starts from. The chart's topology seeds exactly the
// objects of chartWorkloads (fake-api-chart.ts), in the same order, so a
// chart story sees the release it always saw (parity/topology-cluster.test.ts
// proves it).

export interface TopologyCluster {
  readonly server: FakeApiServer;
  readonly kubeconfig: FakeKubeconfig;
  /** A workload of the topology, by its id in the profile, as the server holds it now. */
  readonly workload: (id: string) => JsonObject;
  readonly close: () => Promise<void>;
}

export interface TopologyClusterOptions extends FakeApiServerOptions {
  /** How the fake controller rolls every workload out (default: settles). */
  readonly behaviour?: RolloutBehaviour;
}

/**
 * What Helm renders into a container for one of the topology's images: the
 * mirror the pods pull through (the chart's IMAGE_REGISTRY, a profile's mirror), else the image's own host, its repo and the tag it follows — the image the
 * simulator's fresh install and its `helmRerender` give a container.
 */
export const renderedImage = (config: TickConfig, image: string): string => {
  const { host, repo, tag } = imageOf(config.topology, image);
  return `${config.mirror?.host ?? host}/${repo}:${tag}`;
};

const workloadObject = (config: TickConfig, workload: TopologyWorkload): JsonObject => {
  const seed = {
    namespace: workload.namespace,
    name: workload.name,
    containers: workload.containers.map(({ container, image }) => ({
      name: container,
      image: renderedImage(config, image),
    })),
  };
  return workload.kind === 'Deployment' ? deploymentObject(seed) : daemonSetObject(seed);
};

/** The objects of a fresh install of the config's topology, in the profile's order. */
export const topologyWorkloads = (config: TickConfig): JsonObject[] =>
  config.topology.workloads.map((workload) => workloadObject(config, workload));

export const startTopologyCluster = async (
  config: TickConfig,
  options: TopologyClusterOptions = {},
): Promise<TopologyCluster> => {
  const server = await startFakeApiServer(options);
  const behaviour = options.behaviour ?? 'settles';
  for (const object of topologyWorkloads(config)) server.store.put(object, behaviour);
  // kubectl and client-node default to the gate's namespace, as the CronJob's pod does.
  const kubeconfig = writeFakeKubeconfig(server, { namespace: config.topology.gate.namespace });
  return {
    server,
    kubeconfig,
    workload: (id) => {
      const { kind, namespace, name } = workloadOf(config.topology, id);
      const object = server.store.get(kind, namespace, name);
      if (object === undefined) throw new Error(`the fake API server holds no ${kind} ${namespace}/${name}`);
      return object;
    },
    close: async () => {
      await server.close();
      rmSync(kubeconfig.dir, { recursive: true, force: true });
    },
  };
};
