import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type ParityRegistry,
  REGISTRY_SETUP_TIMEOUT_MS,
  startParityRegistry,
} from '../../../../k8s-adapter/test/parity/support/parity-registry.js';
import { type ChartCluster, startChartCluster } from '../../../../k8s-adapter/test/support/fake-api-chart.js';
import { BUILD_TIMEOUT_MS, readyToRunOnKubeconfig } from './bundle.js';
import type { BundleTarget } from './chart-env.js';

// What a one-release story file starts before its chapters: a current bundle,
// the parity suite's registry (docker-registry with token auth behind its
// fault proxy), one fake API server holding the chart's release, and a temp
// HOME, so ~/.kube is never read. The chapters share all of it.

/** For the beforeAll that calls startChartWorld. */
export const CHART_WORLD_SETUP_TIMEOUT_MS = BUILD_TIMEOUT_MS + REGISTRY_SETUP_TIMEOUT_MS;

export interface ChartWorld extends BundleTarget {
  readonly registry: ParityRegistry;
  readonly cluster: ChartCluster;
  readonly home: string;
  close(): Promise<void>;
}

export const startChartWorld = async (homePrefix = 'image-refresh-e2e-home-'): Promise<ChartWorld> => {
  await readyToRunOnKubeconfig();
  const registry = await startParityRegistry();
  let cluster: ChartCluster;
  try {
    cluster = await startChartCluster({ stepMs: 20 });
  } catch (error) {
    await registry.close();
    throw error;
  }
  const home = mkdtempSync(join(tmpdir(), homePrefix));
  return {
    registry,
    cluster,
    home,
    close: async () => {
      await cluster.close();
      await registry.close();
      rmSync(home, { recursive: true, force: true });
    },
  };
};
