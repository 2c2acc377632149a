import { parseImageReference, sameRepository } from '../config/profile/image-reference.js';
import type { TickConfig } from '../config/tick-config.js';
import { pulledFrom } from './mirror.js';
import type { RefreshPlan } from './plan.js';
import { topologyFingerprint } from './topology-fingerprint.js';
import {
  type ImageSpec,
  imageOf,
  type LiveWorkload,
  type ManagedContainer,
  managedOf,
  type TopologyWorkload,
  workloadOf,
} from './workloads.js';

// Never overwrite what is not ours (OWNERSHIP_CHECK, docs/behaviour.md §3.4c):
// a container is re-imaged, and an image's digest recorded, only while every
// container the tick would touch for it runs the followed repository — at
// the followed tag, or at a digest of it (this tool's own pin is one). One
// wrong line of a profile would otherwise put the web image into a log
// sidecar; a container someone set to another image on purpose would be
// silently replaced. Pure: the machine reads the workloads, this judges.

/** A container the tick would touch that is not the followed image's, and what it runs instead. */
export type OwnershipFinding =
  | {
      readonly _tag: 'Foreign';
      readonly workload: TopologyWorkload;
      readonly container: string;
      readonly image: string;
      /** The reference it runs now. */
      readonly runs: string;
    }
  | {
      readonly _tag: 'Missing';
      readonly workload: TopologyWorkload;
      readonly container: string;
      readonly image: string;
      /** The containers the workload has. */
      readonly has: readonly string[];
    };

/**
 * `reference` runs `image`'s repository on the registry its pods pull from —
 * its own, or the mirror the tick follows upstream through (`host`; Docker's
 * normalization: `shop/web`, `docker.io/shop/web` and
 * `index.docker.io/shop/web` are one) — at its tag, no tag meaning `latest`,
 * or at any digest of it.
 */
export const runsFollowedImage = (image: ImageSpec, reference: string, host: string = image.host): boolean => {
  const runs = parseImageReference(reference);
  if (!sameRepository(runs, { host, path: image.repo })) return false;
  return runs.digest !== undefined || (runs.tag ?? 'latest') === image.tag;
};

/**
 * The containers whose ownership this plan stakes: every container it sets,
 * and every managed container of an image it records as a first
 * observation (a baseline recorded for a container that runs something else
 * would be what a rollback goes back to). With `wholeTopology` — the
 * topology changed since the gate's fingerprint (topology-fingerprint.ts) —
 * every managed container.
 */
export const containersToJudge = (
  config: TickConfig,
  plan: RefreshPlan,
  wholeTopology = false,
): readonly ManagedContainer[] => {
  const { topology } = config;
  if (wholeTopology) return topology.managed;
  const set = plan.changes.flatMap((change) =>
    change.images.flatMap(({ container }) =>
      topology.managed.filter((m) => m.workload === change.workload.id && m.container === container),
    ),
  );
  const baselines = Object.keys(plan.firstObservations).flatMap((image) => managedOf(topology, image));
  const all = [...set, ...baselines];
  return all.filter(
    (m, index) => all.findIndex((o) => o.workload === m.workload && o.container === m.container) === index,
  );
};

/** The workloads the judgement needs, in the profile's order, but for those already read this tick. */
export const workloadsToRead = (
  config: TickConfig,
  plan: RefreshPlan,
  known: Readonly<Record<string, LiveWorkload>>,
  wholeTopology = false,
): readonly string[] => {
  const needed = new Set(containersToJudge(config, plan, wholeTopology).map((m) => m.workload));
  return config.topology.workloads.filter((w) => needed.has(w.id) && known[w.id] === undefined).map((w) => w.id);
};

/** Every container the plan stakes that does not run its followed image, or is not there at all. */
export const ownershipFindings = (
  config: TickConfig,
  plan: RefreshPlan,
  live: Readonly<Record<string, LiveWorkload>>,
  wholeTopology = false,
): readonly OwnershipFinding[] =>
  containersToJudge(config, plan, wholeTopology).flatMap((m): OwnershipFinding[] => {
    const running = live[m.workload];
    // Every workload judged was read: a read that failed ended the check before this.
    if (running === undefined) return [];
    const workload = workloadOf(config.topology, m.workload);
    const reference = running.images[m.container];
    if (reference === undefined) {
      return [{ _tag: 'Missing', workload, container: m.container, image: m.image, has: Object.keys(running.images) }];
    }
    const image = imageOf(config.topology, m.image);
    return runsFollowedImage(image, reference, pulledFrom(config, image))
      ? []
      : [{ _tag: 'Foreign', workload, container: m.container, image: m.image, runs: reference }];
  });

/**
 * OWNERSHIP_CHECK on, and the plan stakes some container (a re-image, a
 * first observation to record), or the topology changed since it was last
 * found true.
 */
export const needsOwnershipCheck = (config: TickConfig, plan: RefreshPlan, wholeTopology = false): boolean =>
  config.ownershipCheck && containersToJudge(config, plan, wholeTopology).length > 0;

/** The topology differs from the one the gate's fingerprint was recorded for (or none was). */
export const topologyChangedSince = (config: TickConfig, recorded: string | undefined): boolean =>
  recorded !== topologyFingerprint(config.topology);
