import { NEVER_READY_PREFIX } from '../../support/never-ready-build.js';
import {
  REGISTRY_SETUP_TIMEOUT_MS,
  type RegistryProcess,
  registryBinaryMissing,
  startRegistry,
} from '../../support/registry-process.js';
import { pushImage } from '../../support/registry-push.js';
import {
  startTokenServer,
  TOKEN_ISSUER,
  TOKEN_SERVICE,
  type TokenServer,
} from '../../support/registry-token-server.js';
import { type FaultProxy, startFaultProxy } from './registry-fault-proxy.js';

// The registry side of the real stack: Debian's docker-registry with token
// auth (the anonymous bearer flow Docker Hub uses, so the token request is
// part of every tick as it is in production), its token server, and the
// counting, fault-staging proxy the adapter is pointed at.

export { REGISTRY_SETUP_TIMEOUT_MS, registryBinaryMissing };

export interface ParityRegistry {
  /** What IMAGE_REFRESH_REGISTRY_URL names: the proxy in front of the registry. */
  readonly url: string;
  readonly proxy: FaultProxy;
  /** The registry itself, past the proxy: where a test publishes what it stages. */
  readonly direct: string;
  readonly tokens: TokenServer;
  /** Push a fresh single-platform image to repo:tag (straight to the registry, past the proxy); its digest. */
  push(repo: string, tag: string): Promise<string>;
  /** The same, a build whose pods both test servers keep Running and never Ready (never-ready-build.ts). */
  pushNeverReady(repo: string, tag: string): Promise<string>;
  close(): Promise<void>;
}

export const startParityRegistry = async (): Promise<ParityRegistry> => {
  const tokens = await startTokenServer();
  let registry: RegistryProcess | undefined;
  try {
    registry = await startRegistry({
      realm: tokens.realm,
      service: TOKEN_SERVICE,
      issuer: TOKEN_ISSUER,
      certificatePem: tokens.certificatePem,
    });
    const direct = registry.url;
    const proxy = await startFaultProxy(direct);
    const running = registry;
    return {
      url: proxy.url,
      proxy,
      direct,
      tokens,
      push: async (repo, tag) =>
        (await pushImage(direct, repo, tag, { token: tokens.mint([`repository:${repo}:pull,push`]) })).digest,
      pushNeverReady: async (repo, tag) =>
        (
          await pushImage(direct, repo, tag, {
            token: tokens.mint([`repository:${repo}:pull,push`]),
            digestPrefix: NEVER_READY_PREFIX,
          })
        ).digest,
      close: async () => {
        await proxy.close();
        await running.stop();
        await tokens.close();
      },
    };
  } catch (error) {
    await registry?.stop();
    await tokens.close();
    throw error;
  }
};
