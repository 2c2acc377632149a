import type { Environment } from '../../src/config/environment.js';
import {
  SIM_HALT_REPO,
  SIM_PROMOTION_ENVIRONMENT,
  SIM_PROMOTION_TAG,
  simPromotionDocument,
} from '../../src/sim/index.js';
import { aSimEdge, HOUR } from './sim-edge.js';

// One simulated edge of ring 1 watching a fleet promotion (FLEET_PROMOTION_REF,
// docs/fleet-promotion.md), for the example tests: each case states its world
// and shares nothing. Its ticks are read from the world's own log (sim-edge.ts).

export { HOUR };

export const aPromotionEdge = (env: Environment = {}) => {
  const edge = aSimEdge({ ...SIM_PROMOTION_ENVIRONMENT, ...env });
  const { world } = edge;
  return {
    ...edge,
    /** Publish a promotion under FLEET_PROMOTION_REF's tag; signed by the trusted key unless said otherwise. */
    publishPromotion(
      entries: Parameters<typeof simPromotionDocument>[0],
      options: { signed?: boolean; expiresInMs?: number } = {},
    ): string {
      const document = simPromotionDocument(entries, edge.now() + (options.expiresInMs ?? 24 * HOUR));
      return world.publishHalt(document, {
        signed: options.signed ?? true,
        repo: SIM_HALT_REPO,
        tag: SIM_PROMOTION_TAG,
      });
    },
    publishRawPromotion(document: string, signed = true): string {
      return world.publishHalt(document, { signed, repo: SIM_HALT_REPO, tag: SIM_PROMOTION_TAG });
    },
    withdrawPromotion(): void {
      world.deleteTag(SIM_HALT_REPO, SIM_PROMOTION_TAG);
    },
  };
};

/** That edge after its first tick: build 1 of everything recorded, exit 0, nothing promoted yet. */
export const aSteadyPromotionEdge = async (env: Environment = {}) => {
  const edge = aPromotionEdge(env);
  const first = await edge.tick();
  if (first.exitCode !== 0) throw new Error(`setup: the first tick exited ${first.exitCode} (${first.result})`);
  return edge;
};
