import type { JsonObject } from './fake-api-patch.js';

// One rule both test servers keep: a pod of a build whose digest begins with
// "dead" Runs and is never Ready — the pod whose HTTP server never binds its
// port (docs/behaviour.md §3.2). The real control plane keeps it through kwok
// (tools/control-plane/kwok-stages.yaml); the fake's controller keeps it too
// (fake-api-controller.ts), so a story written once — publish such a build,
// watch the rollout never finish — means the same on either server.

/** The digest's first hex digits that mark such a build. */
export const NEVER_READY_PREFIX = 'dead';

/** What a container image names when it runs such a build. */
export const NEVER_READY_IMAGE = new RegExp(`@sha256:${NEVER_READY_PREFIX}`);

/** A digest of that kind, for a test that sets an image without a registry. */
export const neverReadyDigest = (fill = 'e'): string => `sha256:${NEVER_READY_PREFIX}${fill.repeat(60)}`;

/** True when any container of the object's pod template runs a never-ready build. */
export const runsNeverReadyBuild = (object: JsonObject): boolean => {
  const template = (object.spec as JsonObject | undefined)?.template as JsonObject | undefined;
  const containers = ((template?.spec as JsonObject | undefined)?.containers ?? []) as JsonObject[];
  return containers.some((c) => typeof c.image === 'string' && NEVER_READY_IMAGE.test(c.image));
};

/**
 * Staging's slow link on the real control plane (docs/behaviour.md §3.5a): a
 * pod of a build whose digest begins with "5104" Runs only after 3 s (kwok's
 * `pod-ready-after-a-slow-pull` stage), so a staging pod is seen pulling first.
 */
export const SLOW_PULL_PREFIX = '5104';
