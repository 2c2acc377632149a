import fc from 'fast-check';
import type { Profile, ProfileImage, ProfileWorkload } from '../../src/config/profile/profile.js';

// Topologies no one wrote by hand (docs/profiles.md): 1 to 6 workloads of
// both kinds across several namespaces, images shared between workloads,
// sidecars, image and workload pins, a gate with and without decoupled
// workloads beside it. Every one is a valid profile: the parser's refusals are
// proven on their own (profile.test.ts), the tick's invariants on these.

/** What a drawn profile is made of, for the property suite's per-shape floors. */
export interface ProfileShape {
  readonly workloads: number;
  readonly daemonSets: number;
  readonly namespaces: number;
  /** Some image runs in more than one workload. */
  readonly sharedImage: boolean;
  /** Some workload runs more than one container. */
  readonly sidecar: boolean;
  readonly imagePins: number;
  readonly workloadPins: number;
  readonly decoupled: number;
}

const NAMESPACES = ['edge', 'edge-nodes', 'shop'] as const;
const PREFIXES = ['fleet.example.com', 'shop.example.com', 'x.io'] as const;
// Docker Hub's short, official and long names, and two other registries (each image is asked and pinned on its own host).
const REPOSITORIES = [
  'team/api',
  'ghcr.io/team/worker',
  'team/sidecar',
  'nginx',
  'registry.local:5000/team/cache',
  'docker.io/team/agent',
  'index.docker.io/tools/probe',
];

/** One workload's draw: its kind, namespace, containers (as image indexes), pin and decoupling. */
const workloadDraw = (images: number) =>
  fc.record({
    kind: fc.constantFrom<ProfileWorkload['kind']>('Deployment', 'Deployment', 'DaemonSet'),
    namespace: fc.constantFrom(...NAMESPACES),
    // One container most of the time, as most workloads run; a sidecar or two in about a third of them.
    containers: fc.oneof(
      { arbitrary: fc.tuple(fc.nat({ max: images - 1 })), weight: 2 },
      { arbitrary: fc.array(fc.nat({ max: images - 1 }), { minLength: 2, maxLength: 3 }), weight: 1 },
    ),
    pinned: fc.constantFrom(false, false, false, true),
    decoupled: fc.boolean(),
  });

/** A valid profile of up to 6 workloads and 4 images. */
export const profileArbitrary: fc.Arbitrary<Profile> = fc
  .integer({ min: 1, max: 4 })
  .chain((imageCount) =>
    fc.record({
      imageCount: fc.constant(imageCount),
      imagePins: fc.array(fc.constantFrom(false, false, true), { minLength: imageCount, maxLength: imageCount }),
      ownTags: fc.array(fc.constantFrom(undefined, undefined, 'stable'), {
        minLength: imageCount,
        maxLength: imageCount,
      }),
      workloads: fc.array(workloadDraw(imageCount), { minLength: 1, maxLength: 6 }),
      gate: fc.nat(),
      prefix: fc.constantFrom(...PREFIXES),
      hint: fc.option(fc.constant('check the gate pod:\n  kubectl describe pods'), { nil: undefined }),
    }),
  )
  .map(({ imageCount, imagePins, ownTags, workloads, gate, prefix, hint }): Profile => {
    const gateIndex = gate % workloads.length;
    // Every image is run by some container: image i is appended to workload i mod n when none runs it.
    const containers = workloads.map((w) => [...w.containers]);
    for (let image = 0; image < imageCount; image += 1) {
      if (!containers.some((cs) => cs.includes(image))) containers[image % workloads.length]?.push(image);
    }
    const images: ProfileImage[] = Array.from({ length: imageCount }, (_, i) => ({
      name: `image-${i}`,
      repository: REPOSITORIES[i % REPOSITORIES.length] as string,
      ...(ownTags[i] === undefined ? {} : { tag: ownTags[i] }),
      ...(imagePins[i] === true ? { pinnedBy: `IMAGE_${i}_PINNED` } : {}),
    }));
    return {
      annotationPrefix: prefix,
      gate: `w${gateIndex}`,
      ...(hint === undefined ? {} : { frozenHint: hint }),
      images,
      workloads: workloads.map((w, i) => ({
        id: `w${i}`,
        kind: w.kind,
        namespace: w.namespace,
        name: `workload-${i}`,
        containers: Object.fromEntries((containers[i] ?? []).map((image, c) => [`c${c}`, `image-${image}`])),
        ...(w.pinned ? { pinnedBy: `W${i}_PINNED` } : {}),
        ...(w.decoupled && i !== gateIndex ? { decoupled: true } : {}),
      })),
    };
  });

/** The shape of a profile, for counting what the property suite reached. */
export const shapeOf = (profile: Profile): ProfileShape => {
  const runners = new Map<string, Set<string>>();
  for (const w of profile.workloads) {
    for (const image of Object.values(w.containers)) runners.set(image, (runners.get(image) ?? new Set()).add(w.id));
  }
  return {
    workloads: profile.workloads.length,
    daemonSets: profile.workloads.filter((w) => w.kind === 'DaemonSet').length,
    namespaces: new Set(profile.workloads.map((w) => w.namespace)).size,
    sharedImage: [...runners.values()].some((ids) => ids.size > 1),
    sidecar: profile.workloads.some((w) => Object.keys(w.containers).length > 1),
    imagePins: profile.images.filter((i) => i.pinnedBy !== undefined).length,
    workloadPins: profile.workloads.filter((w) => w.pinnedBy !== undefined).length,
    decoupled: profile.workloads.filter((w) => w.decoupled === true).length,
  };
};
