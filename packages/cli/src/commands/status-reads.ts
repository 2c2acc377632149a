import {
  CONTAINER,
  IMAGES,
  type ImageName,
  type ImageSpec,
  type RegistryError,
  type Resolution,
  type TickConfig,
  workloadRef,
} from '@image-refresh/core';
import type { Either } from 'fp-ts/lib/Either.js';
import type { Connection } from '../connection.js';

// What `status` and `status --json` read, once for both: the three workloads
// (one GET each) and, unless --no-registry, one registry pass for the
// unpinned images. Reads only.

/** Where each image runs live, by workload and container. */
export const LIVE: Record<
  ImageName,
  readonly { workload: 'jobs-manager' | 'requests-proxy' | 'resource-monitor'; container: string }[]
> = {
  'jobs-manager': [
    { workload: 'jobs-manager', container: CONTAINER.api },
    { workload: 'requests-proxy', container: CONTAINER.proxy },
  ],
  'pods-monitor': [{ workload: 'jobs-manager', container: CONTAINER.podsMonitor }],
  'resource-monitor': [{ workload: 'resource-monitor', container: CONTAINER.resourceMonitor }],
};

export const inspectRelease = async (connection: Connection, config: TickConfig) => ({
  'jobs-manager': await connection.inspect(workloadRef(config, 'jobs-manager')),
  'requests-proxy': await connection.inspect(workloadRef(config, 'requests-proxy')),
  'resource-monitor': await connection.inspect(workloadRef(config, 'resource-monitor')),
});

/** image → the registry's answer; undefined for a pinned image or one not asked. */
export const resolveForStatus = async (
  connection: Connection,
  config: TickConfig,
  noRegistry: boolean,
): Promise<(image: ImageSpec) => Either<RegistryError, Resolution> | undefined> => {
  const unpinned = IMAGES.filter((i) => !config.pins[i.pin]);
  const answers =
    noRegistry || unpinned.length === 0
      ? []
      : await connection
          .ports({ onProgress: () => undefined, onRateLimit: () => undefined })
          .registry.resolveDigests(unpinned.map((i) => ({ repo: i.repo, tag: config.imageTag })))();
  return (image) => (config.pins[image.pin] ? undefined : answers[unpinned.indexOf(image)]);
};
