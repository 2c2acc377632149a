import { decoupledScopeOf } from '../../domain/decoupled-pass.js';
import { resolveRequests } from '../../domain/resolutions.js';
import { startJitterDelayMs } from '../../domain/start-jitter.js';
import type { InputArgs } from '../tick-context.js';

// What the resolve phase's steps hand their actors.

/** START_JITTER's wait: this edge's own delay, the same every tick (§3.3). */
export const jitterWait = ({ context }: InputArgs) => ({
  delayMs: startJitterDelayMs(context.observe.gateUid, context.config.startJitterMs),
});

/** MIRROR_MODE=follow-upstream: each changed digest, by digest, on the mirror (§3.3). */
export const mirrorRequests = ({ context }: InputArgs) => ({
  requests: context.resolve.mirrorQuestions.map((q) => q.request),
});

/** The unpinned images (in a decoupled pass, only those its settled workloads follow), and FLEET_HALT_REF's tag. */
export const digestRequests = ({ context }: InputArgs) => ({
  requests: resolveRequests(context.config, decoupledScopeOf(context.observe.decoupled)),
});
