import fc from 'fast-check';
import { expect } from 'vitest';
import type { ImageSpec, Topology } from '../../src/config/profile/topology.js';
import type { TickConfig } from '../../src/config/tick-config.js';
import { shortDigest } from '../../src/domain/digest.js';
import type { TickPorts } from '../../src/run-tick.js';
import {
  type ClusterFault,
  type RegistryFault,
  type RolloutBehaviour,
  SIM_HALT_REPO,
  SIM_HALT_TAG,
  type SignatureFault,
  type SimWorld,
  simDigest,
  simHaltDocument,
  simPorts,
} from '../../src/sim/index.js';
import { SIM_EPOCH_MS } from '../../src/sim/sim-ports.js';
import type { SpecOp } from '../support/spec-calls.js';
import { describeViolations, type SpecChecker } from './spec-checker.js';
import { recordTick } from './tick-record.js';
import { injectFault } from './topology-calls.js';

// The vocabulary of the property suite: time passes (a tick) and the world
// moves between ticks — rollouts settle, stall, flap or never become Ready,
// builds are published, the registry and the API fail, humans edit the
// bookkeeping and set images by hand, Helm re-renders a workload, the gate is
// deleted and recreated. The commands are drawn from the edge's topology
// (`commandsFor`): its images' repositories and tags, its workloads and their
// containers, its gate and its keys — the chart's, or any profile's. Each
// command's toString is one clause of the story a shrunk counterexample tells.

export interface Edge {
  readonly config: TickConfig;
  readonly world: SimWorld;
  readonly ports: TickPorts;
  readonly checker: SpecChecker;
  /** Builds published so far, to make each digest new. */
  build: number;
  /** The gate flaps in and out: Ready at the top of one tick, crash-looping (unsettled) at the next. */
  gateCrashLoops: boolean;
}

type Command = fc.AsyncCommand<object, Edge>;

/** An image as a command names it: its name in the profile, and where its builds are published. */
interface FollowedImage {
  readonly name: string;
  readonly repo: string;
  readonly tag: string;
}

const followed = ({ name, repo, tag }: ImageSpec): FollowedImage => ({ name, repo, tag });

const HOUR_MS = 3_600_000;

class Tick implements Command {
  private said = 'tick';
  check = () => true;
  async run(_: object, edge: Edge): Promise<void> {
    const replayWorld = edge.world.clone();
    const record = await recordTick(edge.world, edge.ports, edge.config);
    const replay = await recordTick(replayWorld, simPorts(replayWorld), edge.config);
    this.said = `tick → exit ${record.outcome.exitCode} (${record.outcome.result})`;
    const violations = edge.checker.check(record, replay);
    if (edge.gateCrashLoops) {
      const gate = edge.world.gateId;
      edge.world.setBehaviour(gate, edge.world.workload(gate).behaviour === 'flaps' ? 'neverReady' : 'flaps');
    }
    if (violations.length > 0) {
      expect.fail(
        `${describeViolations(violations)}\n  tick events:\n${record.outcome.events.map((e) => `    ${e.level} ${e.message}`).join('\n')}\n  calls: ${record.calls.map((c) => `${c.op}${c.detail === '' ? '' : ` ${c.detail}`}=${c.outcome}`).join('; ')}`,
      );
    }
  }
  toString = () => this.said;
}

class Publish implements Command {
  private digest = '';
  constructor(
    readonly image: FollowedImage,
    /** CI signed the build with the trusted key before it was pushed (I26). */
    readonly signed = false,
  ) {}
  check = () => true;
  async run(_: object, edge: Edge): Promise<void> {
    edge.build += 1;
    this.digest = simDigest(`${this.image.repo}#${edge.build}`);
    if (this.signed) edge.world.sign(this.image.repo, this.digest);
    edge.world.publish(this.image.repo, this.digest, this.image.tag);
  }
  toString = () => `publish ${this.image.name} ${shortDigest(this.digest)}${this.signed ? ' (signed)' : ' (unsigned)'}`;
}

/** The build now behind the tag is signed afterwards (cosign sign on a pushed digest). */
class SignCurrent implements Command {
  private digest = '';
  constructor(readonly image: FollowedImage) {}
  check = () => true;
  async run(_: object, edge: Edge): Promise<void> {
    this.digest = edge.world.registry.get(`${this.image.repo}:${this.image.tag}`) ?? '';
    edge.world.sign(this.image.repo, this.digest);
  }
  toString = () => `${this.image.name} ${shortDigest(this.digest)} is signed`;
}

/** The next signature fetch of a repo fails on the registry. */
class SignatureTrouble implements Command {
  constructor(
    readonly image: FollowedImage,
    readonly fault: SignatureFault,
  ) {}
  check = () => true;
  async run(_: object, edge: Edge): Promise<void> {
    edge.world.injectSignatureFault(this.image.repo, this.fault);
  }
  toString = () =>
    `registry ${this.fault === 'Hang' ? 'hangs' : `answers ${this.fault}`} on the signature of ${this.image.name}`;
}

/** A build is published that crash-loops wherever it runs (the `bad-build` story, docs/behaviour.md §3.6). */
class PublishBroken implements Command {
  private digest = '';
  constructor(readonly image: FollowedImage) {}
  check = () => true;
  async run(_: object, edge: Edge): Promise<void> {
    edge.build += 1;
    this.digest = simDigest(`${this.image.repo}#${edge.build}`);
    edge.world.breakBuild(this.digest);
    // A bad build is signed like any other: CI's key vouches for who built it, not for whether it runs (I26, I30).
    edge.world.sign(this.image.repo, this.digest);
    edge.world.publish(this.image.repo, this.digest, this.image.tag);
  }
  toString = () => `publish a crash-looping ${this.image.name} ${shortDigest(this.digest)} (signed)`;
}

const BEHAVIOUR_WORDS: Record<RolloutBehaviour, string> = {
  settles: 'settles',
  stalls: 'stalls',
  flaps: 'flaps',
  neverReady: 'never becomes Ready',
  fallsApart: 'completes, then falls apart',
};

class Behave implements Command {
  constructor(
    readonly workload: string,
    readonly behaviour: RolloutBehaviour,
  ) {}
  check = () => true;
  async run(_: object, edge: Edge): Promise<void> {
    if (this.workload === edge.world.gateId) edge.gateCrashLoops = false;
    edge.world.setBehaviour(this.workload, this.behaviour);
  }
  toString = () => `${this.workload} ${BEHAVIOUR_WORDS[this.behaviour]}`;
}

/**
 * A flapping rollout of the gate: Ready at the top of a tick, its rollout
 * wait failing after the re-image, crash-looping (unsettled) at the next
 * tick — over and over. With DECOUPLED_REFRESH=1 every other tick is a
 * decoupled pass, which must not wipe out the count the failures build (I10, I25).
 */
class GateCrashLoops implements Command {
  constructor(readonly gate: string) {}
  check = () => true;
  async run(_: object, edge: Edge): Promise<void> {
    edge.gateCrashLoops = true;
    edge.world.setBehaviour(edge.world.gateId, 'flaps');
  }
  toString = () => `${this.gate} flaps in and out (Ready at one tick, crash-looping at the next)`;
}

class ApiFault implements Command {
  constructor(
    readonly op: SpecOp,
    readonly fault: ClusterFault,
    readonly times: number,
  ) {}
  check = () => true;
  async run(_: object, edge: Edge): Promise<void> {
    injectFault(edge.world, this.op, this.fault, this.times);
  }
  toString = () =>
    `API ${this.fault === 'Hang' ? 'hangs' : `answers ${this.fault}`} on ${this.op}${this.times > 1 ? ` ×${this.times}` : ''}`;
}

class RegistryTrouble implements Command {
  constructor(
    readonly image: FollowedImage,
    readonly fault: RegistryFault,
  ) {}
  check = () => true;
  async run(_: object, edge: Edge): Promise<void> {
    edge.world.injectRegistryFault(this.image.repo, this.fault);
  }
  toString = () =>
    `registry ${this.fault === 'Garbage' ? 'answers garbage' : this.fault === 'Hang' ? 'hangs' : `answers ${this.fault}`} for ${this.image.name}`;
}

/** MIRROR_MODE=follow-upstream (docs/behaviour.md §3.3): the mirror lags behind an image's builds, catches up, or serves another digest. */
class MirrorTrouble implements Command {
  constructor(
    readonly image: FollowedImage,
    readonly state: 'lags' | 'catches up' | 'is corrupt',
  ) {}
  check = () => true;
  async run(_: object, edge: Edge): Promise<void> {
    const { repo } = this.image;
    edge.world.mirrorLagging.delete(repo);
    edge.world.mirrorCorrupt.delete(repo);
    if (this.state === 'lags') edge.world.mirrorLagging.add(repo);
    if (this.state === 'is corrupt') edge.world.mirrorCorrupt.add(repo);
  }
  toString = () => `the mirror ${this.state} for ${this.image.name}`;
}

class RegistryBudget implements Command {
  constructor(readonly remaining: number | undefined) {}
  check = () => true;
  async run(_: object, edge: Edge): Promise<void> {
    edge.world.rateLimitRemaining = this.remaining;
  }
  toString = () =>
    this.remaining === undefined
      ? 'registry stops sending ratelimit-remaining'
      : `registry budget is ${this.remaining} pulls`;
}

class Annotate implements Command {
  constructor(
    readonly key: string,
    readonly value: string | undefined,
    /** The key as the story says it: without the annotation prefix. */
    readonly said: string,
  ) {}
  check = () => true;
  async run(_: object, edge: Edge): Promise<void> {
    edge.world.setAnnotation(this.key, this.value);
  }
  toString = () =>
    this.value === undefined ? `a human clears ${this.said}` : `${this.said} holds ${JSON.stringify(this.value)}`;
}

/**
 * A human edits an image's record to the digest quarantined for it (a
 * restore from an old backup, say): the record a live re-pin and a rollback
 * go back to now names a build that failed here (I30).
 */
class RecordQuarantined implements Command {
  constructor(readonly image: ImageSpec) {}
  check = () => true;
  async run(_: object, edge: Edge): Promise<void> {
    const quarantined = edge.world.annotations[this.image.quarantineKey];
    if (quarantined !== undefined) edge.world.setAnnotation(this.image.recordKey, quarantined);
  }
  toString = () => `a human records ${this.image.name}'s quarantined digest as last refreshed`;
}

/**
 * A signed fleet halt of the build now behind a tag is published under the
 * halt tag (docs/behaviour.md §3.4b). These sequences run without
 * FLEET_HALT_REF: the tick must not see it (I35).
 */
class PublishHalt implements Command {
  constructor(readonly image: FollowedImage) {}
  check = () => true;
  async run(_: object, edge: Edge): Promise<void> {
    const digest = edge.world.registry.get(`${this.image.repo}:${this.image.tag}`) ?? '';
    const document = simHaltDocument('a halt this edge does not watch', SIM_EPOCH_MS + edge.world.clockMs + HOUR_MS, {
      [this.image.repo]: { digests: [digest] },
    });
    edge.world.publishHalt(document, { signed: true, repo: SIM_HALT_REPO, tag: SIM_HALT_TAG });
  }
  toString = () => `a fleet halt of ${this.image.name}'s current build is published (FLEET_HALT_REF unset)`;
}

class HelmRerender implements Command {
  constructor(readonly workload: string) {}
  check = () => true;
  async run(_: object, edge: Edge): Promise<void> {
    edge.world.helmRerender(this.workload);
  }
  toString = () => `helm upgrade re-renders ${this.workload} on repo:tag`;
}

class HandSetImage implements Command {
  constructor(
    readonly workload: string,
    readonly container: string,
    readonly image: string,
  ) {}
  check = () => true;
  async run(_: object, edge: Edge): Promise<void> {
    edge.world.setLiveImage(this.workload, this.container, this.image);
  }
  toString = () =>
    `someone sets ${this.workload} ${this.container}=${this.image.replace(/@sha256:(.{12}).*/, '@sha256:$1…')}`;
}

class DeleteGate implements Command {
  constructor(readonly gate: string) {}
  check = () => true;
  async run(_: object, edge: Edge): Promise<void> {
    edge.world.deleteGate();
  }
  toString = () => `the gate ${this.gate} is deleted`;
}

class RecreateGate implements Command {
  constructor(readonly gate: string) {}
  check = () => true;
  async run(_: object, edge: Edge): Promise<void> {
    edge.gateCrashLoops = false;
    edge.world.recreateGate();
  }
  toString = () => `the gate ${this.gate} is recreated (helm)`;
}

/** Ops weighted toward the guards' own reads and writes, where faults matter most. */
const faultedOps = fc.oneof(
  // The best-effort writes whose failure must stay a WARN (#2007, #626). The
  // success reset gets more: its fault waits for a successful re-image, which
  // lockouts and low budgets make rarer.
  { arbitrary: fc.constantFrom<SpecOp>('clearSkipStreak'), weight: 2 },
  // With unsigned builds under enforce, quarantines and rollbacks, successful
  // re-images are rarer still: at weight 3 a CI seed met the failed success
  // reset 47 times, under the floor of 50.
  { arbitrary: fc.constantFrom<SpecOp>('clearFlapState'), weight: 6 },
  { arbitrary: fc.constantFrom<SpecOp>('readSkipStreak', 'readRecordedDigests'), weight: 3 },
  {
    arbitrary: fc.constantFrom<SpecOp>('writeSkipStreak', 'readRefreshAttempt', 'writeRefreshAttempt', 'recordEvent'),
    weight: 3,
  },
  // The gate's guard read (docs/behaviour.md §3.2), named as support/spec-calls.ts names it.
  { arbitrary: fc.constantFrom<SpecOp>('observeJobsManager'), weight: 2 },
  {
    arbitrary: fc.constantFrom<SpecOp>(
      'markFlapDetected',
      'recordDigests',
      'setImages',
      'waitForRollout',
      'readPinMarkers',
      'observeWorkload',
    ),
    weight: 1,
  },
);

const clusterFaults = fc.constantFrom<ClusterFault>(
  'NotFound',
  'Unauthorized',
  'Forbidden',
  'Timeout',
  'Transport',
  'Malformed',
  'Hang',
);
const registryFaults = fc.constantFrom<RegistryFault>(
  'Transport',
  'Timeout',
  'RateLimited',
  'NotFound',
  'Unauthorized',
  'Garbage',
  'Hang',
);
const garbage = fc.constantFrom('', 'x7', '-3', '1e3', '99999999999999999999', '007', ' 2');
const behaviours = fc.constantFrom<RolloutBehaviour>('settles', 'stalls', 'flaps', 'neverReady', 'fallsApart');

/**
 * What someone sets a container to by hand: a digest of its own repository
 * (a `kubectl set image` to an older build, which RECONCILE_LIVE sees as
 * live drift, I23), an image of another registry, or its own repository at
 * another tag — both of which the ownership check must refuse to overwrite (I45).
 */
const handSetImages = (topology: Topology): fc.Arbitrary<Command> =>
  fc
    .constantFrom(...topology.workloads.flatMap((w) => w.containers.map((c) => ({ workload: w.id, ...c }))))
    .chain(({ workload, container, image }) => {
      const { repo } = topology.images.find((i) => i.name === image) ?? { repo: image };
      return fc.oneof(
        {
          arbitrary: fc
            .integer({ min: 1, max: 9 })
            .map((n) => new HandSetImage(workload, container, `docker.io/${repo}@${simDigest(`${repo}#${n}`)}`)),
          weight: 2,
        },
        { arbitrary: fc.constant(new HandSetImage(workload, container, 'quay.io/acme/monitor:debug')), weight: 1 },
        { arbitrary: fc.constant(new HandSetImage(workload, container, `docker.io/${repo}:debug`)), weight: 1 },
      );
    });

/**
 * The world commands of an edge of this topology: builds of its images'
 * repositories (under the tag each follows), behaviours of any of its
 * workloads (the crash-loop and flap stories on its gate), faults on the
 * ports, humans editing its keys and setting any mapped container by hand,
 * Helm re-rendering any workload, its gate deleted and recreated. Pins do
 * not change what can happen to an edge, so any config of one profile
 * shares its commands.
 */
export const commandsFor = (topology: Topology): fc.Arbitrary<Command> => {
  const gate = topology.gate.id;
  const prefix = `${topology.profile.annotationPrefix}/`;
  const annotate = (key: string, value: string | undefined) => new Annotate(key, value, key.replace(prefix, ''));
  const images = fc.constantFrom(...topology.images.map(followed));
  const workloads = fc.constantFrom(...topology.workloads.map((w) => w.id));
  const { skipStreak, refreshAttempt, flapDetected } = topology.keys;
  const bookkeepingKeys = fc.constantFrom(skipStreak, refreshAttempt, flapDetected);
  return fc.oneof(
    // A fresh Tick per step: each remembers its own result for the story.
    { arbitrary: fc.constant(null).map(() => new Tick()), weight: 40 },
    {
      arbitrary: fc
        .tuple(images, fc.constantFrom(true, true, true, false))
        .map(([i, signed]) => new Publish(i, signed)),
      weight: 7,
    },
    { arbitrary: images.map((i) => new SignCurrent(i)), weight: 2 },
    {
      arbitrary: fc
        .tuple(images, fc.constantFrom<SignatureFault>('Transport', 'Timeout', 'RateLimited', 'Forbidden', 'Hang'))
        .map(([i, f]) => new SignatureTrouble(i, f)),
      weight: 1,
    },
    { arbitrary: images.map((i) => new PublishBroken(i)), weight: 3 },
    {
      arbitrary: fc.constantFrom(...topology.images.map((i) => i.quarantineKey)).map((k) => annotate(k, undefined)),
      weight: 1,
    },
    { arbitrary: fc.constantFrom(...topology.images).map((i) => new RecordQuarantined(i)), weight: 1 },
    { arbitrary: fc.tuple(workloads, behaviours).map(([w, b]) => new Behave(w, b)), weight: 6 },
    // The gate's own behaviour drives both the streak and the flap guard:
    // streaks need it unsettled, and clearing them needs it to recover.
    {
      arbitrary: fc
        .constantFrom<RolloutBehaviour>('flaps', 'flaps', 'neverReady', 'neverReady', 'settles', 'settles', 'settles')
        .map((b) => new Behave(gate, b)),
      weight: 7,
    },
    { arbitrary: fc.constant(null).map(() => new GateCrashLoops(gate)), weight: 5 },
    {
      arbitrary: fc
        .tuple(faultedOps, clusterFaults, fc.constantFrom(1, 1, 1, 2, 3))
        .map(([op, f, n]) => new ApiFault(op, f, n)),
      weight: 10,
    },
    { arbitrary: fc.tuple(images, registryFaults).map(([i, f]) => new RegistryTrouble(i, f)), weight: 9 },
    {
      arbitrary: fc
        .tuple(images, fc.constantFrom<MirrorTrouble['state']>('lags', 'catches up', 'catches up', 'is corrupt'))
        .map(([i, state]) => new MirrorTrouble(i, state)),
      weight: 2,
    },
    {
      arbitrary: fc.constantFrom(undefined, 0, 5, 5, 9, 10, 60, 100).map((n) => new RegistryBudget(n)),
      // Enough low-budget stretches to meet a flap lockout in them (I10, I18).
      weight: 4,
    },
    { arbitrary: bookkeepingKeys.map((k) => annotate(k, undefined)), weight: 3 },
    { arbitrary: fc.tuple(bookkeepingKeys, garbage).map(([k, v]) => annotate(k, v)), weight: 1 },
    // A count left standing (an earlier version's, or a human's half re-arm):
    // lockouts and decoupled passes over a count without a long run of failures first (I10, I25).
    { arbitrary: fc.constantFrom('1', '2', '5').map((n) => annotate(refreshAttempt, n)), weight: 3 },
    {
      arbitrary: fc.constantFrom(...topology.images.map((i) => i.recordKey)).map((k) => annotate(k, undefined)),
      weight: 1,
    },
    { arbitrary: workloads.map((w) => new HelmRerender(w)), weight: 3 },
    { arbitrary: images.map((i) => new PublishHalt(i)), weight: 1 },
    { arbitrary: handSetImages(topology), weight: 2 },
    { arbitrary: fc.constant(new DeleteGate(gate)), weight: 1 },
    // Recreation outweighs deletion: a deleted gate is a short outage in the
    // story, not half of it.
    { arbitrary: fc.constant(new RecreateGate(gate)), weight: 6 },
  );
};
