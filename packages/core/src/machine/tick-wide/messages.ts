import { DEFAULTS } from '../../config/environment.js';
import { DOCKER_HUB } from '../../config/profile/image-reference.js';
import type { ImageSpec } from '../../config/profile/topology.js';
import type { TickConfig } from '../../config/tick-config.js';
import { withoutUserinfo } from '../../config/url-userinfo.js';
import { followsUpstreamThroughMirror } from '../../domain/switches.js';
import { describeWorkload, type TopologyWorkload } from '../../domain/workloads.js';
import { event, imagesNoun } from '../operator-words.js';
import type { TickEvent } from '../tick-event.js';

// The tick's first and last lines.

/** `shop/{web,log}`: repositories under one namespace said once, as a shell brace would. */
const repositories = (repos: readonly string[]): string => {
  const slash = (repo: string) => repo.lastIndexOf('/');
  const [first = ''] = repos;
  const prefix = first.slice(0, slash(first) + 1);
  const shared = repos.length > 1 && prefix !== '' && repos.every((r) => r.slice(0, slash(r) + 1) === prefix);
  return shared ? `${prefix}{${repos.map((r) => r.slice(prefix.length)).join(',')}}` : repos.join(', ');
};

/**
 * Where Docker Hub's tags are asked when that is not Docker Hub's registry (a
 * proxy, a test registry): IMAGE_REFRESH_REGISTRY_URL belongs to Docker Hub
 * alone (docs/configuration.md, "The registry").
 */
const askedAt = (c: TickConfig): string =>
  c.registryUrl === DEFAULTS.registryUrl || !c.topology.images.some((i) => i.host === DOCKER_HUB)
    ? ''
    : ` (asked at ${withoutUserinfo(c.registryUrl)})`;

/**
 * What the tick follows: every image under its tag, on the registry the pods
 * pull from — said once when they share it, else each image's own.
 */
const followedImages = (c: TickConfig): string => {
  const { images } = c.topology;
  const [host, ...others] = [...new Set(images.map((i) => i.host))];
  const oneHost = others.length === 0 && host !== undefined;
  const upstream = followsUpstreamThroughMirror(c);
  const where = oneHost ? ` on ${host === DOCKER_HUB && !upstream ? c.imageRegistry : host}` : '';
  const name = (i: ImageSpec) => (oneHost ? i.repo : `${i.host}/${i.repo}`);
  // MIRROR_MODE=follow-upstream (docs/behaviour.md §3.3): asked upstream, pulled through the mirror.
  const through = upstream ? `, pulled through mirror ${c.mirror?.host}` : '';
  return images.every((i) => i.tag === c.imageTag)
    ? `${imagesNoun(c)}: ${repositories(images.map(name))}${where} under tag=${c.imageTag}${askedAt(c)}${through}`
    : `${imagesNoun(c)}: ${images.map((i) => `${name(i)}:${i.tag}`).join(', ')}${where}${askedAt(c)}${through}`;
};

/** `deployment/worker (web image)`, `daemonset/agent in shop-nodes`. */
const reconciledBeside = (c: TickConfig, w: TopologyWorkload): string => {
  const images = [...new Set(w.containers.map((m) => m.image))];
  const ownImage = images.length === 1 && images[0] === w.id;
  return `${describeWorkload(w)}${ownImage ? '' : ` (${images.join(', ')} image${images.length > 1 ? 's' : ''})`}${w.namespace === c.topology.gate.namespace ? '' : ` in ${w.namespace}`}`;
};

export const tickStart = (c: TickConfig): TickEvent => {
  const { gate, profile } = c.topology;
  // A workload with nothing to follow on this edge (pinned, or every image it runs pinned) is not reconciled.
  const others = c.topology.workloads.filter(
    (w) => w.id !== gate.id && c.topology.managed.some((m) => m.workload === w.id),
  );
  return event(
    'info',
    'TICK_START',
    `${profile.release === undefined ? '' : `release=${profile.release} `}namespace=${gate.namespace} ${gate.kind === 'Deployment' ? 'deployment' : 'daemonset'}=${gate.name}`,
    [
      followedImages(c),
      ...(others.length === 0 ? [] : [`also reconciling: ${others.map((w) => reconciledBeside(c, w)).join(', ')}`]),
    ],
  );
};

export const tickComplete = (): TickEvent => event('info', 'TICK_COMPLETE', 'tick complete');

/** With a profile the chart's name variables mean nothing: each one set is said, once per tick. */
export const ignoredVariables = (c: TickConfig): TickEvent[] =>
  c.ignoredVariables.length === 0
    ? []
    : [
        event(
          'warn',
          'VARIABLES_IGNORED',
          `WARN: ${c.ignoredVariables.join(', ')} ${c.ignoredVariables.length === 1 ? 'is' : 'are'} set but ignored: IMAGE_REFRESH_PROFILE names the workloads, their namespaces and pins`,
        ),
      ];
