import type { Either } from 'fp-ts/lib/Either.js';
import type { TickConfig } from '../config/tick-config.js';
import { isWellFormedDigest } from '../domain/digest.js';
import type { ImageResolution } from '../domain/plan.js';
import { malformed, type RegistryError } from '../domain/port-error.js';
import { IMAGES, type ImageSpec, type WorkloadId } from '../domain/workloads.js';
import type { DigestRequest, Resolution } from '../ports/registry-port.js';

// Pure helpers the machine's actions call. Kept out of the state tree so it
// stays pure structure that reads like the diagram.

/**
 * The images a tick asks the registry about. A pinned image is not even
 * resolved (I13): it costs no registry request. In a decoupled pass
 * (DECOUPLED_REFRESH, unsettled jobs-manager) only the images a settled
 * decoupled workload would follow: jobs-manager's for requests-proxy,
 * resource-monitor's for the DaemonSet — never pods-monitor's (issue 7).
 */
export const imagesToResolve = (config: TickConfig, decoupledSettled?: readonly WorkloadId[]): ImageSpec[] =>
  IMAGES.filter((image) => {
    if (config.pins[image.pin]) return false;
    if (decoupledSettled === undefined) return true;
    if (image.name === 'jobs-manager') return !config.pins.requestsProxy && decoupledSettled.includes('requests-proxy');
    if (image.name === 'resource-monitor') return decoupledSettled.includes('resource-monitor');
    return false;
  });

export const unpinnedRequests = (config: TickConfig, decoupledSettled?: readonly WorkloadId[]): DigestRequest[] =>
  imagesToResolve(config, decoupledSettled).map((image) => ({ repo: image.repo, tag: config.imageTag }));

/**
 * Pair the registry's answers with the images asked for. A digest that is not
 * a well-formed OCI digest is a resolution failure (I19): it never reaches a
 * pod spec or an annotation. A missing answer is a failure too, never a skip.
 */
export const acceptResolutions = (
  config: TickConfig,
  answers: readonly Either<RegistryError, Resolution>[],
  decoupledSettled?: readonly WorkloadId[],
): ImageResolution[] => {
  let next = 0;
  const asked = imagesToResolve(config, decoupledSettled);
  return IMAGES.map((image): ImageResolution => {
    if (config.pins[image.pin]) return { _tag: 'Pinned', image: image.name };
    if (!asked.includes(image)) return { _tag: 'NotAsked', image: image.name };
    const answer = answers[next++];
    if (answer === undefined) {
      return {
        _tag: 'Unresolved',
        image: image.name,
        error: malformed('the registry port gave no answer for this image'),
      };
    }
    if (answer._tag === 'Left') return { _tag: 'Unresolved', image: image.name, error: answer.left };
    const { digest, rateLimitRemaining } = answer.right;
    if (!isWellFormedDigest(digest)) {
      return {
        _tag: 'Unresolved',
        image: image.name,
        error: malformed(`the registry answered ${JSON.stringify(digest.slice(0, 100))}, which is not an OCI digest`),
      };
    }
    return { _tag: 'Resolved', image: image.name, digest, rateLimitRemaining };
  });
};

/** The lowest `ratelimit-remaining` the registry reported this tick, if any did. */
export const lowestRateLimitRemaining = (resolutions: readonly ImageResolution[]): number | undefined => {
  const reported = resolutions.flatMap((r) =>
    r._tag === 'Resolved' && r.rateLimitRemaining._tag === 'Some' ? [r.rateLimitRemaining.value] : [],
  );
  return reported.length === 0 ? undefined : Math.min(...reported);
};

export const wasRateLimited = (resolutions: readonly ImageResolution[]): boolean =>
  resolutions.some((r) => r._tag === 'Unresolved' && r.error._tag === 'RateLimited');

/** Any 429 this tick, or a reported budget below REGISTRY_BUDGET_FLOOR; never with REGISTRY_BUDGET_FLOOR=off (the script has no such guard). */
export const isRegistryBudgetLow = (config: TickConfig, resolutions: readonly ImageResolution[]): boolean => {
  // Only an explicit REGISTRY_BUDGET_FLOOR=off turns the guard off; a config without the field keeps it (fail closed).
  if (config.registryBudgetGuard === false) return false;
  // No budget reported is no budget known to be low.
  const lowest = lowestRateLimitRemaining(resolutions) ?? Number.POSITIVE_INFINITY;
  return wasRateLimited(resolutions) || lowest < config.registryBudgetFloor;
};
