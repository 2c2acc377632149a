import type { Environment } from '../../src/config/environment.js';
import type { TickEvent } from '../../src/machine/tick-event.js';
import type { TickOutcome } from '../../src/machine/tick-outcome.js';
import { runTick } from '../../src/run-tick.js';
import {
  SIM_HALT_REPO,
  SIM_PROMOTION_ENVIRONMENT,
  SIM_PROMOTION_TAG,
  SimWorld,
  simConfig,
  simPorts,
  simPromotionDocument,
} from '../../src/sim/index.js';
import { SIM_EPOCH_MS } from '../../src/sim/sim-ports.js';
import { specCalls } from './spec-calls.js';

// One simulated edge of ring 1 watching a fleet promotion (FLEET_PROMOTION_REF,
// docs/fleet-promotion.md), for the example tests: each case states its world
// and shares nothing. Its ticks are read from the world's own log.

export const HOUR = 3_600_000;

export const aPromotionEdge = (env: Environment = {}) => {
  const config = simConfig({ ...SIM_PROMOTION_ENVIRONMENT, ...env });
  const world = new SimWorld(config);
  const ports = simPorts(world);
  let last: TickOutcome | undefined;
  const now = () => SIM_EPOCH_MS + world.clockMs;
  return {
    config,
    world,
    ports,
    async tick(): Promise<TickOutcome> {
      world.calls.length = 0;
      last = await runTick(config, ports);
      return last;
    },
    /** This tick's calls, each bookkeeping patch named by what it writes, as `op detail`. */
    ops: (): string[] => specCalls(world.calls, config).map((c) => c.op),
    /** The messages of this tick's events with this code. */
    lines: (code: TickEvent['code']): string[] =>
      (last?.events ?? []).filter((e) => e.code === code).map((e) => e.message),
    codes: (): string[] => (last?.events ?? []).map((e) => e.code),
    /** Publish a promotion under FLEET_PROMOTION_REF's tag; signed by the trusted key unless said otherwise. */
    publishPromotion(
      entries: Parameters<typeof simPromotionDocument>[0],
      options: { signed?: boolean; expiresInMs?: number } = {},
    ): string {
      const document = simPromotionDocument(entries, now() + (options.expiresInMs ?? 24 * HOUR));
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
