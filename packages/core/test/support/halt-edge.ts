import type { Environment } from '../../src/config/environment.js';
import { SIM_HALT_ENVIRONMENT, SIM_HALT_REPO, SIM_HALT_TAG, simHaltDocument } from '../../src/sim/index.js';
import { aSimEdge, HOUR } from './sim-edge.js';

// One simulated edge watching a fleet halt (FLEET_HALT_REF, docs/behaviour.md
// §3.4b), for the example tests: each case states its world and shares
// nothing. Its ticks are read from the world's own log (sim-edge.ts).

export { HOUR };

export const aHaltEdge = (env: Environment = {}) => {
  const edge = aSimEdge({ ...SIM_HALT_ENVIRONMENT, ...env });
  const { world } = edge;
  return {
    ...edge,
    /** Publish a halt document under FLEET_HALT_REF's tag; signed by the trusted key unless said otherwise. */
    publishHalt(
      repositories: Parameters<typeof simHaltDocument>[2],
      options: { signed?: boolean; expiresInMs?: number; reason?: string } = {},
    ): string {
      const document = simHaltDocument(
        options.reason ?? 'build 2 loses jobs on restart',
        edge.now() + (options.expiresInMs ?? 24 * HOUR),
        repositories,
      );
      return world.publishHalt(document, { signed: options.signed ?? true, repo: SIM_HALT_REPO, tag: SIM_HALT_TAG });
    },
    publishRawHalt(document: string, signed = true): string {
      return world.publishHalt(document, { signed, repo: SIM_HALT_REPO, tag: SIM_HALT_TAG });
    },
    liftHalt(): void {
      world.deleteTag(SIM_HALT_REPO, SIM_HALT_TAG);
    },
  };
};

export type HaltEdge = ReturnType<typeof aHaltEdge>;
