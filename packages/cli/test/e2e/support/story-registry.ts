import { afterAll, beforeAll, describe } from 'vitest';
import {
  type ParityRegistry,
  REGISTRY_SETUP_TIMEOUT_MS,
  registryBinaryMissing,
  startParityRegistry,
} from '../../../../k8s-adapter/test/parity/support/parity-registry.js';
import { BUILD_TIMEOUT_MS, readyToRunOnKubeconfig } from './bundle.js';
import { JM, PM, RM } from './chart-facts.js';
import type { RegistryEndpoint } from './cluster-stage.js';
import { type BudgetProxy, startBudgetProxy } from './registry-budget-proxy.js';

// What a switch suite starts once, before its stories: a current bundle, the
// parity suite's registry (docker-registry with token auth behind its fault
// proxy) and the budget proxy in front of that, which is what the CLI is
// pointed at. Stories share the registry and nothing else.

/** For the beforeAll that calls startStoryRegistry. */
export const STORY_SETUP_TIMEOUT_MS = BUILD_TIMEOUT_MS + REGISTRY_SETUP_TIMEOUT_MS;

export interface Builds {
  readonly jm: string;
  readonly pm: string;
  readonly rm: string;
}

export interface StoryRegistry {
  readonly registry: ParityRegistry;
  readonly budget: BudgetProxy;
  /** Where the CLI is pointed (IMAGE_REFRESH_REGISTRY_URL), and what reached it. */
  readonly endpoint: RegistryEndpoint;
  /** Push a fresh build of repo:stg; its digest. */
  push(repo: string): Promise<string>;
  /** Push a build of repo:stg whose pods never become Ready, on either test server; its digest. */
  pushNeverReady(repo: string): Promise<string>;
  /** A fresh build of each of the three images under :stg, so a story's first install starts from its own digests. */
  pushAll(): Promise<Builds>;
  close(): Promise<void>;
}

export const startStoryRegistry = async (): Promise<StoryRegistry> => {
  await readyToRunOnKubeconfig();
  const registry = await startParityRegistry();
  let budget: BudgetProxy;
  try {
    budget = await startBudgetProxy(registry.url);
  } catch (error) {
    await registry.close();
    throw error;
  }
  const push = (repo: string) => registry.push(repo, 'stg');
  return {
    registry,
    budget,
    endpoint: { url: budget.url, seen: budget.seen },
    push,
    pushNeverReady: (repo) => registry.pushNeverReady(repo, 'stg'),
    pushAll: async () => ({ jm: await push(JM), pm: await push(PM), rm: await push(RM) }),
    close: async () => {
      await budget.close();
      await registry.close();
    },
  };
};

/**
 * A switch suite: `title`'s describe, skipped (and saying why on stderr, as
 * the default reporter folds a skipped file into one line) where
 * docker-registry is missing, with one story registry started before its
 * stories and closed after them. `world` answers for that registry once the
 * suite's beforeAll has run.
 */
export const describeOnStoryRegistry = (file: string, title: string, body: (world: StoryRegistry) => void): void => {
  if (registryBinaryMissing !== undefined) console.warn(`SKIPPED ${file}: ${registryBinaryMissing}`);
  describe.skipIf(registryBinaryMissing !== undefined)(
    `${title}${registryBinaryMissing === undefined ? '' : ` (skipped: ${registryBinaryMissing})`}`,
    () => {
      let current: StoryRegistry | undefined;
      const started = (): StoryRegistry => {
        if (current === undefined) throw new Error(`${title}: the story registry is used before its beforeAll ran`);
        return current;
      };
      beforeAll(async () => {
        current = await startStoryRegistry();
      }, STORY_SETUP_TIMEOUT_MS);
      afterAll(async () => {
        await current?.close();
      });
      body({
        get registry() {
          return started().registry;
        },
        get budget() {
          return started().budget;
        },
        get endpoint() {
          return started().endpoint;
        },
        push: (repo) => started().push(repo),
        pushNeverReady: (repo) => started().pushNeverReady(repo),
        pushAll: () => started().pushAll(),
        close: () => started().close(),
      });
    },
  );
};
