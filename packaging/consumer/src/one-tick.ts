// One tick against the cluster of $KUBECONFIG (or the pod's service account),
// configured by the chart's environment variables — the CronJob in 20 lines.
import { runTickFromEnvironment } from '@image-refresh/core';
import { createClusterPort, createEventsPort, createRegistryPort, loadClusterConfig } from '@image-refresh/k8s-adapter';
import * as E from 'fp-ts/lib/Either.js';

const cluster = loadClusterConfig(process.env);
if (E.isLeft(cluster)) throw new Error(cluster.left.message);
const { kubeConfig, source } = cluster.right;

const outcome = await runTickFromEnvironment(
  process.env,
  (config) => ({
    cluster: createClusterPort(kubeConfig, config),
    registry: createRegistryPort({ baseUrl: config.registryUrl, timeoutMs: config.registryTimeoutMs }),
    events: createEventsPort(kubeConfig, config),
  }),
  { onEvent: (event) => console.error(`[image-refresh] ${event.message}`) },
);
console.log(`${source}: ${outcome.result}, exit ${outcome.exitCode}`);
process.exitCode = outcome.exitCode;
