import { signatureModeOf } from '../config/signature-config.js';
import { isPlatformCheckOn, prepullOf } from '../config/staging-config.js';
import type { TickConfig } from '../config/tick-config.js';
import { requiredDigestAgeMs } from './digest-age.js';
import type { HaltPins } from './fleet-halt-admission.js';

// The configuration's switches as the tick's guards ask them: each answer
// names the behaviour it turns on, so a guard reads as one question.

/** §3.1 — behind a private mirror a docker.io digest may be unpullable (I14, #569). */
export const isPrivateMirror = (config: TickConfig): boolean =>
  config.mirror !== undefined && !config.mirror.followUpstream;

/** §3.3 MIRROR_MODE=follow-upstream: tags resolved upstream, digests pinned through the mirror once it serves them. */
export const followsUpstreamThroughMirror = (config: TickConfig): boolean => config.mirror?.followUpstream === true;

/** DECOUPLED_REFRESH=1: refresh what is settled past an unsettled gate (I24). */
export const isDecoupledRefreshOn = (config: TickConfig): boolean => config.decoupledRefresh;

/** RECONCILE_LIVE on, on a settled tick (no decoupled pass): compare live images with what was pinned (I23). */
export const isLiveReconcileOn = (config: TickConfig, decoupledPass: boolean): boolean =>
  config.reconcileLive !== 'off' && !decoupledPass;

/**
 * VERIFY_SIGNATURES=off (the default, the script's behaviour): no check, no
 * request, no line (I28) — unless the fleet halt sends an image back to
 * its pin, whose signature is checked whatever VERIFY_SIGNATURES says
 * (docs/behaviour.md §3.4b).
 */
export const isSignatureCheckOff = (config: TickConfig, haltPins: HaltPins = {}): boolean =>
  signatureModeOf(config) === 'off' && Object.keys(haltPins).length === 0;

/** FLEET_HALT_REF unset (the default, the script's behaviour): no halt request, annotation or line (I35). */
export const isFleetHaltOff = (config: TickConfig): boolean => config.fleetHalt === undefined;

/** §3.4a — MIN_DIGEST_AGE + ROLLOUT_RING × RING_DELAY is 0 (the default): the check passes, no read, no write. */
export const isDigestAgeOff = (config: TickConfig): boolean => requiredDigestAgeMs(config) === 0;

/** ON_ROLLOUT_FAILURE=revert: a failed rollout is rolled back, not left half-rolled (§3.6, I29). */
export const isRevertOn = (config: TickConfig): boolean => config.onRolloutFailure === 'revert';

/** ROLLOUT_STABLE_FOR above 0: a completed rollout must stay complete before it counts (§3.6). */
export const hasStabilityWindow = (config: TickConfig): boolean => config.rolloutStableForMs > 0;

/** PLATFORM_CHECK=off (the default, the script's behaviour): no manifest is read (docs/behaviour.md §3.4a step 4). */
export const isPlatformCheckOff = (config: TickConfig): boolean => !isPlatformCheckOn(config);

/** PREPULL=off (the default, the script's behaviour): no staging pod, no Event (docs/behaviour.md §3.5a). */
export const isPrepullOff = (config: TickConfig): boolean => prepullOf(config) === undefined;

/** IMAGE_REFRESH_EVENTS=0: no Kubernetes Event is recorded, not even as staging starts. */
export const areKubernetesEventsOff = (config: TickConfig): boolean => !config.kubernetesEvents;
