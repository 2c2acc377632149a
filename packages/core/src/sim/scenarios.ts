import type { Environment } from '../config/environment.js';
import type { Profile } from '../config/profile/profile.js';
import { profileTour, publishBuild } from './profile-tour.js';
import { simDigest } from './sim-digest.js';
import { SIM_HALT_ENVIRONMENT, SIM_HALT_REPO, SIM_HALT_TAG, simHaltDocument } from './sim-fleet-halt.js';
import { SIM_PROMOTION_ENVIRONMENT, SIM_PROMOTION_TAG, simPromotionDocument } from './sim-fleet-promotion.js';
import { SIM_EPOCH_MS } from './sim-ports.js';
import { SHOP_PROFILE } from './sim-shop.js';
import type { SimWorld } from './sim-world.js';

// Named stories for `image-refresh simulate`, the README and the tests: each
// step is what happens in the world since the last tick, then one tick.

/** One step of a scenario: what happens in the simulated world, then one tick. */
export interface ScenarioStep {
  /** What happened in the world before this tick, for the timeline. */
  readonly event: string;
  readonly act?: (world: SimWorld) => void;
}

/** A named story for `image-refresh simulate`, the README and the tests. */
export interface Scenario {
  /** The `--scenario` name, e.g. `never-ready`. */
  readonly name: string;
  /** One sentence: what the story shows. */
  readonly summary: string;
  /** The environment it runs under, on top of the simulator's defaults. */
  readonly env?: Environment;
  /** The topology it runs on (docs/profiles.md); absent: the chart's. */
  readonly profile?: Profile;
  /** The ticks, in order; the world starts as a fresh install. */
  readonly steps: readonly ScenarioStep[];
  /**
   * Several edges side by side on one registry timeline (canary rings, §3.4a): each step
   * happens to every edge, then each ticks. Each edge's env goes on top of `env`.
   */
  readonly edges?: readonly { readonly name: string; readonly env: Environment }[];
}

const JM = 'tracebloc/jobs-manager';
const PM = 'tracebloc/pods-monitor';
const RM = 'tracebloc/resource-monitor';
const publish = (repo: string, build: number) => (world: SimWorld) =>
  world.publish(repo, simDigest(`${repo}#${build}`));
const quiet: ScenarioStep = { event: '-' };
const repeat = (n: number, step: ScenarioStep): ScenarioStep[] => Array.from({ length: n }, () => step);
/** The CronJob's 15 minutes pass (the soak is judged on the world's clock), then `act`. */
const later =
  (act: (world: SimWorld) => void = () => undefined) =>
  (world: SimWorld) => {
    world.clockMs += 15 * 60_000;
    act(world);
  };

/** The world's clock set to `hours` after the simulator's epoch (Thursday 2026-01-01T00:00Z). */
const at = (world: SimWorld, hours: number): void => {
  world.clockMs = Math.round(hours * 3_600_000);
};

/** A build CI signed with the trusted key before it pushed it (the fleet halt's pin must verify, §3.4b). */
const publishSigned = (repo: string, build: number) => (world: SimWorld) => {
  world.sign(repo, simDigest(`${repo}#${build}`));
  world.publish(repo, simDigest(`${repo}#${build}`));
};
/** The operator's halt, signed: `image-refresh halt render`, `oras push`, `cosign sign` (docs/behaviour.md §3.4b). */
const publishHalt =
  (repositories: Parameters<typeof simHaltDocument>[2], reason: string) =>
  (world: SimWorld): void => {
    world.publishHalt(simHaltDocument(reason, SIM_EPOCH_MS + world.clockMs + 24 * 3_600_000, repositories), {
      signed: true,
      repo: SIM_HALT_REPO,
      tag: SIM_HALT_TAG,
    });
  };

/**
 * The operator's (or CI's) promotion, signed: what `image-refresh promote --out`
 * writes once the canaries' evidence says yes, `oras push`, `cosign sign`
 * (docs/fleet-promotion.md). It stands for a week, as `--expires`' default.
 */
const publishPromotion =
  (entries: Parameters<typeof simPromotionDocument>[0]) =>
  (world: SimWorld): void => {
    world.publishHalt(simPromotionDocument(entries, SIM_EPOCH_MS + world.clockMs + 7 * 24 * 3_600_000), {
      signed: true,
      repo: SIM_HALT_REPO,
      tag: SIM_PROMOTION_TAG,
    });
  };

/** Every scenario `image-refresh simulate --list` shows, in that order. */
export const SCENARIOS: readonly Scenario[] = [
  {
    name: 'healthy-drift',
    summary: 'A fresh install records digests; each new build behind the tag is rolled out once, then recorded.',
    steps: [
      { event: 'fresh install' },
      quiet,
      { event: `publish ${JM} build 2`, act: publish(JM, 2) },
      quiet,
      {
        event: `publish ${PM} and ${RM} build 2`,
        act: (w) => {
          publish(PM, 2)(w);
          publish(RM, 2)(w);
        },
      },
      quiet,
    ],
  },
  {
    name: 'never-ready',
    summary:
      'jobs-manager Runs but is never Ready (#1964): 7 counted skips, FROZEN (exit 1) on the 8th, then it settles and refresh resumes by itself.',
    steps: [
      { event: 'fresh install' },
      {
        event: 'ingestion-authz.yaml typo: never Ready',
        act: (w) => w.setBehaviour('jobs-manager', 'neverReady'),
      },
      ...repeat(6, quiet),
      { event: `publish ${JM} build 2`, act: publish(JM, 2) },
      quiet,
      { event: 'operator fixes the ConfigMap: pod goes Ready', act: (w) => w.setBehaviour('jobs-manager', 'settles') },
      quiet,
    ],
  },
  {
    name: 'flapping-readiness',
    summary:
      'A new build becomes Ready then crashes (#563): 3 failed re-images, lockout with FLAP DETECTED, a human re-arms, it recovers.',
    steps: [
      { event: 'fresh install' },
      {
        event: `publish ${JM} build 2, which flaps`,
        act: (w) => {
          publish(JM, 2)(w);
          w.setBehaviour('jobs-manager', 'flaps');
        },
      },
      quiet,
      quiet,
      quiet,
      quiet,
      {
        event: `fixed build 3 published; operator runs \`image-refresh rearm\``,
        act: (w) => {
          publish(JM, 3)(w);
          w.setBehaviour('jobs-manager', 'settles');
          w.setAnnotation(w.config.topology.keys.refreshAttempt, undefined);
          w.setAnnotation(w.config.topology.keys.flapDetected, undefined);
        },
      },
      quiet,
    ],
  },
  {
    name: 'registry-outage',
    summary:
      'Docker Hub rate-limits this edge for two ticks: each image is skipped with a WARN, nothing is recorded, and the change lands when it recovers.',
    steps: [
      { event: 'fresh install' },
      {
        event: `publish ${JM} build 2; registry answers 429 for every repo`,
        act: (w) => {
          publish(JM, 2)(w);
          for (const repo of [JM, PM, RM]) w.injectRegistryFault(repo, 'RateLimited');
        },
      },
      {
        event: `registry times out for ${JM}, answers garbage for ${RM}`,
        act: (w) => {
          w.injectRegistryFault(JM, 'Hang');
          w.injectRegistryFault(RM, 'Garbage');
        },
      },
      { event: 'registry healthy again' },
      quiet,
    ],
  },
  {
    name: 'api-outage',
    summary:
      'The API server misbehaves: RBAC denial, a hung request, a lost bookkeeping write. Every one is a red tick naming its cause (#571), never a silent green one.',
    steps: [
      { event: 'fresh install' },
      {
        event: 'Role edited: get deployments is Forbidden',
        act: (w) => w.injectClusterFault('readGate', 'Forbidden'),
      },
      { event: 'API server hangs on the read', act: (w) => w.injectClusterFault('readGate', 'Hang') },
      {
        event: `publish ${JM} build 2; the attempt-counter write fails`,
        act: (w) => {
          publish(JM, 2)(w);
          w.injectClusterFault('patchBookkeeping', 'Transport', 1, `${w.config.topology.keys.refreshAttempt}=`);
        },
      },
      { event: 'API healthy again' },
      quiet,
    ],
  },
  {
    name: 'helm-revert',
    summary:
      'RECONCILE_LIVE=1: a helm upgrade re-renders repo:tag over the pins; the next tick names helm and re-pins through the guarded path. A fresh install on its tag is never touched.',
    env: { RECONCILE_LIVE: '1' },
    steps: [
      { event: 'fresh install (on repo:tag: not drift)' },
      quiet,
      { event: `publish ${JM} build 2`, act: publish(JM, 2) },
      { event: 'helm upgrade re-renders jobs-manager', act: (w) => w.helmRerender('jobs-manager') },
      quiet,
    ],
  },
  {
    name: 'proxy-skew',
    summary:
      'RECONCILE_LIVE=1: requests-proxy was left on another build of the jobs-manager image; the tick reports the skew and converges requests-proxy alone.',
    env: { RECONCILE_LIVE: '1' },
    steps: [
      { event: 'fresh install' },
      {
        event: 'requests-proxy runs build 7 (set by hand)',
        act: (w) => w.setLiveImage('requests-proxy', 'proxy', `docker.io/${JM}@${simDigest(`${JM}#7`)}`),
      },
      quiet,
    ],
  },
  {
    name: 'first-install',
    summary:
      'A fresh install with pods-monitor pinned: the first tick records what the tag points at and rolls nothing (#569); the pinned image is never even resolved.',
    env: { PODS_MONITOR_PINNED: '1' },
    steps: [
      { event: 'fresh install (pods-monitor pinned)' },
      quiet,
      { event: `publish ${PM} build 2`, act: publish(PM, 2) },
    ],
  },
  {
    name: 'bad-build',
    summary:
      'ON_ROLLOUT_FAILURE=revert: a crash-looping build is rolled, rolled back to the recorded digest (exit 1, ROLLED BACK) and quarantined; held while the tag still names it; a fixed build published two ticks later rolls out.',
    env: { ON_ROLLOUT_FAILURE: 'revert' },
    steps: [
      { event: 'fresh install' },
      {
        event: `publish ${JM} build 2, which crash-loops`,
        act: (w) => {
          w.breakBuild(simDigest(`${JM}#2`));
          publish(JM, 2)(w);
        },
      },
      { event: 'the tag still names build 2' },
      { event: `fixed build 3 published`, act: publish(JM, 3) },
      quiet,
    ],
  },
  {
    name: 'canary-ring',
    summary:
      'ROLLOUT_RING: a canary (ring 0) and an edge of ring 1 (RING_DELAY=1h) follow one tag; the canary rolls build 2 at once, it is bad and the tag is moved back within the hour, so ring 1 never runs it.',
    edges: [
      { name: 'canary', env: { ROLLOUT_RING: '0' } },
      { name: 'ring 1', env: { ROLLOUT_RING: '1', RING_DELAY: '1h' } },
    ],
    steps: [
      { event: 'fresh install' },
      { event: `publish ${JM} build 2 (bad)`, act: later(publish(JM, 2)) },
      { event: '15 minutes later', act: later() },
      { event: `build 2 is bad: tag moved back to build 1`, act: later(publish(JM, 1)) },
      ...repeat(5, { event: '15 minutes later', act: later() }),
    ],
  },
  {
    name: 'fleet-halt',
    summary:
      'FLEET_HALT_REF (docs/behaviour.md §3.4b): the canary (ring 0) rolls build 2, which is bad; a signed halt of build 2 with build 1 as its pin is published; ring 1 (RING_DELAY=1h) never moves, and the canary is sent back to the pin. A fixed build 3 rolls out past the halt.',
    env: SIM_HALT_ENVIRONMENT,
    edges: [
      { name: 'canary', env: { ROLLOUT_RING: '0' } },
      { name: 'ring 1', env: { ROLLOUT_RING: '1', RING_DELAY: '1h' } },
    ],
    steps: [
      { event: 'fresh install (build 1, signed by CI)', act: (w) => w.sign(JM, simDigest(`${JM}#1`)) },
      { event: `publish ${JM} build 2 (signed; it loses jobs)`, act: later(publishSigned(JM, 2)) },
      { event: '15 minutes later', act: later() },
      {
        event: 'halt published: build 2 halted, pin build 1',
        act: later(
          publishHalt(
            { [JM]: { digests: [simDigest(`${JM}#2`)], pin: simDigest(`${JM}#1`) } },
            'jobs-manager build 2 loses jobs on restart',
          ),
        ),
      },
      ...repeat(4, { event: '15 minutes later', act: later() }),
      { event: `fixed build 3 published (signed)`, act: later(publishSigned(JM, 3)) },
      ...repeat(4, { event: '15 minutes later', act: later() }),
      { event: "the halt's tag deleted: lifted", act: later((w) => w.deleteTag(SIM_HALT_REPO, SIM_HALT_TAG)) },
    ],
  },
  {
    name: 'evidence-rings',
    summary:
      "FLEET_PROMOTION_REF (docs/fleet-promotion.md): ring 1 (RING_DELAY=24h) moves on the canary's evidence, not on the clock. Build 2 crash-loops on the canary (ON_ROLLOUT_FAILURE=revert): rolled back and quarantined; no promotion is written, so ring 1 never runs it, a day and more later. Build 3 runs healthy on the canary; 2h on, a signed promotion to ring 1 is published and ring 1 rolls it at once, 22h before its clock would have.",
    env: SIM_PROMOTION_ENVIRONMENT,
    edges: [
      { name: 'canary', env: { ROLLOUT_RING: '0', ON_ROLLOUT_FAILURE: 'revert' } },
      { name: 'ring 1', env: { ROLLOUT_RING: '1', RING_DELAY: '24h' } },
    ],
    steps: [
      { event: 'Thu 00:00 fresh install (build 1)' },
      {
        event: 'Thu 00:15 publish build 2 (crash-loops)',
        act: (w) => {
          at(w, 0.25);
          w.breakBuild(simDigest(`${JM}#2`));
          publish(JM, 2)(w);
        },
      },
      { event: 'Thu 01:00 the tag still names build 2', act: (w) => at(w, 1) },
      { event: 'Thu 06:00 nobody watching; no promotion', act: (w) => at(w, 6) },
      { event: 'Fri 00:30 RING_DELAY (24h) has run out', act: (w) => at(w, 24.5) },
      {
        event: 'Fri 01:00 publish build 3 (good)',
        act: (w) => {
          at(w, 25);
          publish(JM, 3)(w);
        },
      },
      { event: 'Fri 02:00 build 3 healthy on the canary', act: (w) => at(w, 26) },
      {
        event: 'Fri 03:00 build 3 promoted to ring 1',
        act: (w) => {
          at(w, 27);
          publishPromotion([{ image: 'jobs-manager', digest: simDigest(`${JM}#3`), ring: 1 }])(w);
        },
      },
      { event: 'Fri 04:00 (ring 1 clock: Sat 01:00)', act: (w) => at(w, 28) },
    ],
  },
  {
    name: 'slow-link',
    summary:
      'PREPULL (docs/behaviour.md §3.5a): build 2 takes 20 minutes to pull over the site link. Without PREPULL the rollout times out with the old pod gone and, under ON_ROLLOUT_FAILURE=revert, the good build is rolled back and quarantined; with it the tick stages the image on the node first, then switches in seconds.',
    env: { ON_ROLLOUT_FAILURE: 'revert' },
    edges: [
      { name: 'without PREPULL', env: {} },
      { name: 'with PREPULL', env: { PREPULL: 'on' } },
    ],
    steps: [
      { event: 'fresh install' },
      {
        event: `publish ${JM} build 2: a 20-minute pull`,
        act: later((w) => {
          w.slowLink(simDigest(`${JM}#2`), 20 * 60_000);
          publish(JM, 2)(w);
        }),
      },
      { event: '15 minutes later', act: later() },
      { event: '15 minutes later', act: later() },
    ],
  },
  profileTour(SHOP_PROFILE, {
    name: 'shop',
    summary:
      "A topology of one's own (docs/profiles.md): a two-container web Deployment gates the tick, a worker shares the web image, an agent DaemonSet runs in another namespace. First observation, each new build rolled out (web and worker together), an agent build that crash-loops rolled back and quarantined, a fixed one; then a log container someone set to nginx is refused (OWNERSHIP_CHECK) until it is set back.",
    extra: [
      {
        event: 'someone sets web log=nginx:1.27; publish shop/log build 3',
        act: (w) => {
          w.setLiveImage('web', 'log', 'docker.io/library/nginx:1.27');
          publishBuild(w, 'log', 3);
        },
      },
      {
        event: 'the log container is set back to shop/log:stg',
        act: (w) => w.setLiveImage('web', 'log', 'docker.io/shop/log:stg'),
      },
    ],
  }),
  {
    name: 'private-registry',
    summary:
      "A profile whose images live on a private registry (registry.example:5000, reached with the nodes' pull Secret, docs/configuration.md): each image asked and pinned there, never as docker.io/…. The Secret is rotated and the old credential refused (401 Unauthorized): the images wait and the silence streak counts, REGISTRY UNREACHABLE at MAX_RESOLVE_FAILURE_TICKS=3 (exit 1); the Secret fixed, the registry answers again and the streak is cleared.",
    env: { MAX_RESOLVE_FAILURE_TICKS: '3' },
    profile: {
      ...SHOP_PROFILE,
      images: SHOP_PROFILE.images.map((i) => ({ ...i, repository: `registry.example:5000/${i.repository}` })),
    },
    steps: [
      { event: 'fresh install (pods pull registry.example:5000/shop/…:stg)' },
      { event: 'publish shop/web build 2', act: (w) => w.publish('shop/web', simDigest('shop/web#2')) },
      {
        event: 'the pull Secret is rotated: the old credential is refused (401)',
        act: (w) => {
          for (const repo of ['shop/web', 'shop/log', 'shop/agent']) w.injectRegistryFault(repo, 'Unauthorized', 3);
        },
      },
      quiet,
      quiet,
      { event: 'the Secret is fixed', act: () => undefined },
    ],
  },
  {
    name: 'mirror',
    summary:
      'Follow upstream, pull through the mirror (MIRROR_MODE=follow-upstream, docs/behaviour.md §3.3): the edge pulls through mirror.local:5000; each tag is resolved upstream, a new digest is asked of the mirror by digest and pinned at mirror.local:5000/<repo>@<digest> once the mirror serves it. A mirror that lags keeps the image waiting (WARN, no attempt, no record, counted on the silence streak); one that answers another digest is a finding.',
    env: { IMAGE_REGISTRY: 'mirror.local:5000', MIRROR_MODE: 'follow-upstream' },
    steps: [
      { event: 'fresh install (pods pull mirror.local:5000/tracebloc/…:stg)' },
      {
        event: 'publish jobs-manager build 2; the mirror has not fetched it yet',
        act: (w) => {
          w.mirrorLagging.add(JM);
          publish(JM, 2)(w);
        },
      },
      quiet,
      { event: 'the mirror serves it', act: (w) => w.mirrorLagging.delete(JM) },
      {
        event: 'publish resource-monitor build 2; the mirror answers another digest for it',
        act: (w) => {
          w.mirrorCorrupt.add(RM);
          publish(RM, 2)(w);
        },
      },
      { event: 'the mirror is repaired', act: (w) => w.mirrorCorrupt.delete(RM) },
    ],
  },
  {
    name: 'night-window',
    summary:
      "MAINTENANCE_WINDOW=Mon-Sun 01:00-03:00 UTC (docs/behaviour.md §3.4d): this edge's jobs-manager rollouts took up to 40 minutes (a slow pull). Its build 2, published at night's end, is held outside the window, then inside it with 29 minutes left (needs ~41m); it starts when the next night opens and completes inside it. A resource-monitor build, a minute's rollout here, goes at once with under 10 minutes left.",
    env: { MAINTENANCE_WINDOW: 'Mon-Sun 01:00-03:00 UTC', ROLLOUT_TIMEOUT: '45m' },
    steps: [
      {
        event:
          "fresh install (Thu 00:00Z); this edge's last rollouts: jobs-manager 40m, requests-proxy 1m, resource-monitor 1m",
        act: (w) => {
          w.setAnnotation('tracebloc.io/rollout-seconds-jobs-manager', '1500 2400 1800');
          w.setAnnotation('tracebloc.io/rollout-seconds-requests-proxy', '60');
          w.setAnnotation('tracebloc.io/rollout-seconds-resource-monitor', '60');
        },
      },
      {
        event: `00:15: publish ${JM} build 2, a 40-minute pull`,
        act: later((w) => {
          w.slowLink(simDigest(`${JM}#2`), 40 * 60_000);
          publish(JM, 2)(w);
        }),
      },
      { event: '02:30: inside the window, 30 minutes left', act: (w) => at(w, 2.5) },
      { event: 'the next night, 01:00', act: (w) => at(w, 25) },
      {
        event: `02:50: publish ${RM} build 2`,
        act: (w) => {
          at(w, 26 + 50 / 60);
          publish(RM, 2)(w);
        },
      },
    ],
  },
];

/** The scenario called `name`, or undefined: `simulate --scenario` turns that into exit 2. */
export const scenarioNamed = (name: string): Scenario | undefined => SCENARIOS.find((s) => s.name === name);
