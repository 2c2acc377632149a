import type { Environment } from '../config/environment.js';
import type { Profile } from '../config/profile/profile.js';
import { imageOf } from '../domain/workloads.js';
import type { Scenario, ScenarioStep } from './scenarios.js';
import { simDigest } from './sim-digest.js';
import type { SimWorld } from './sim-world.js';

// The story any topology can tell (`image-refresh simulate --profile FILE`):
// what the chart's own stories show — a first observation, each image's new
// build rolled out, a build that crash-loops rolled back and quarantined, a
// fixed build after it — told with the profile's own images and workloads.

/** Build `build` of an image, published under the tag it follows. */
export const publishBuild = (world: SimWorld, image: string, build: number): string => {
  const { repo, tag } = imageOf(world.config.topology, image);
  const digest = simDigest(`${repo}#${build}`);
  world.publish(repo, digest, tag);
  return digest;
};

const named = (profile: Profile, image: string): string =>
  profile.images.find((i) => i.name === image)?.repository ?? image;

/**
 * The tour of a topology: fresh install, a quiet tick, build 2 of the gate's
 * first image, build 2 of every other image, a build 3 of the last image that
 * crash-loops (ON_ROLLOUT_FAILURE=revert rolls it back and quarantines it), a
 * tick that holds it, and a fixed build 4. `extra` steps follow, `env` goes on
 * top of the tour's.
 */
export const profileTour = (
  profile: Profile,
  options: {
    readonly name?: string;
    readonly summary?: string;
    readonly env?: Environment;
    readonly extra?: readonly ScenarioStep[];
  } = {},
): Scenario => {
  const gateWorkload = profile.workloads.find((w) => w.id === profile.gate);
  const first = Object.values(gateWorkload?.containers ?? {})[0] ?? profile.images[0]?.name ?? '';
  const others = profile.images.map((i) => i.name).filter((image) => image !== first);
  const last = others.at(-1) ?? first;
  return {
    name: options.name ?? 'profile',
    summary:
      options.summary ??
      'The tour of a topology: first observation, each new build rolled out, a crash-looping build rolled back and quarantined (ON_ROLLOUT_FAILURE=revert), then a fixed one.',
    env: { ON_ROLLOUT_FAILURE: 'revert', ...options.env },
    profile,
    steps: [
      { event: 'fresh install' },
      { event: '-' },
      { event: `publish ${named(profile, first)} build 2`, act: (w) => void publishBuild(w, first, 2) },
      ...(others.length === 0
        ? []
        : [
            {
              event: `publish ${others.map((i) => named(profile, i)).join(', ')} build 2`,
              act: (w: SimWorld) => {
                for (const image of others) publishBuild(w, image, 2);
              },
            },
          ]),
      {
        event: `publish ${named(profile, last)} build 3, which crash-loops`,
        act: (w) => w.breakBuild(publishBuild(w, last, 3)),
      },
      { event: '-' },
      { event: `publish ${named(profile, last)} build 4, fixed`, act: (w) => void publishBuild(w, last, 4) },
      ...(options.extra ?? []),
    ],
  };
};
