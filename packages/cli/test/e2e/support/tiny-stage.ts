import { afterEach, beforeAll } from 'vitest';
import { BUILD_TIMEOUT_MS, ensureBundle } from './bundle.js';
import { type Stage, startStage } from './cluster-stage.js';
import { startTinyRegistry, type TinyRegistry } from './tiny-registry.js';

// A fresh fake release and tiny registry per test, closed after it, with a
// current bundle: what the process-level stories (signals, hanging servers)
// each start from.

export interface TinyStage {
  readonly registry: TinyRegistry;
  readonly stage: Stage;
}

/** Registers the bundle build and the per-test cleanup; returns the function that starts a stage. */
export const tinyStagePerTest = (): (() => Promise<TinyStage>) => {
  let current: TinyStage | undefined;
  beforeAll(async () => {
    await ensureBundle();
  }, BUILD_TIMEOUT_MS);
  afterEach(async () => {
    const c = current;
    current = undefined;
    await c?.stage.close();
    await c?.registry.close();
  });
  return async () => {
    const registry = await startTinyRegistry();
    try {
      current = { registry, stage: await startStage({ url: registry.url, seen: registry.seen }) };
    } catch (error) {
      await registry.close();
      throw error;
    }
    return current;
  };
};
