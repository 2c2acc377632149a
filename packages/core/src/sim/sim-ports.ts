import * as E from 'fp-ts/lib/Either.js';
import * as O from 'fp-ts/lib/Option.js';
import type { TaskEither } from 'fp-ts/lib/TaskEither.js';
import { type BookkeepingChanges, describeChanges } from '../domain/bookkeeping.js';
import { notFound, type PortError, type PortErrorTag, type RegistryError, timeout } from '../domain/port-error.js';
import type { LiveWorkload } from '../domain/workloads.js';
import type { ClockPort } from '../ports/clock-port.js';
import type { ClusterPort, GateSnapshot, RolloutError } from '../ports/cluster-port.js';
import type { EventsPort } from '../ports/events-port.js';
import type { FleetHaltDocument, FleetHaltPort } from '../ports/fleet-halt-port.js';
import type { FleetPromotionPort } from '../ports/fleet-promotion-port.js';
import type { Resolution } from '../ports/registry-port.js';
import type { SignaturePort, SignatureVerdict } from '../ports/signature-port.js';
import type { TickPorts } from '../run-tick.js';
import { simDigest } from './sim-digest.js';
import { simPlatformPort, simStagingPort, stillPulling } from './sim-stage-ports.js';
import { type ClusterOp, SIM_SIGNING_KEY, type SimWorld } from './sim-world.js';

// The ports on a SimWorld. Virtual time advances as a real adapter's would:
// a request takes a few ms, a hang lasts until the request bound turns it into
// a Timeout, an unsettled Deployment is watched for the whole settle window,
// a failing rollout is waited on for the whole ROLLOUT_TIMEOUT.

export const SIM_REQUEST_MS = 5;
export const SIM_ROLLOUT_MS = 30_000;
export const SIM_REGISTRY_MS = 20;
/** What the simulated wall clock reads at virtual time 0: 2026-01-01T00:00:00Z. */
export const SIM_EPOCH_MS = Date.UTC(2026, 0, 1);

const done =
  <E, A>(result: E.Either<E, A>): TaskEither<E, A> =>
  () =>
    Promise.resolve(result);

const errorOf = (tag: PortErrorTag, op: string): PortError => ({
  _tag: tag,
  message: `simulated ${tag} on ${op}`,
  ...(tag === 'NotFound'
    ? { status: 404 }
    : tag === 'Forbidden'
      ? { status: 403 }
      : tag === 'Unauthorized'
        ? { status: 401 }
        : {}),
});

/**
 * {@link TickPorts} on a {@link SimWorld}: cluster, registry and Events
 * ports that read and change the world, take its armed faults, log every
 * call and advance its virtual clock as real requests would (a hang lasts
 * until the request bound, an unsettled Deployment is watched for the whole
 * settle window). Never touches a real clock, network or file. With
 * `dryRun`, the cluster's writes are answered as an API server answers
 * dryRun=All (`tick --dry-run`): faults and a missing workload refuse them,
 * an accepted one is logged `dry run` and changes nothing.
 */
export const simPorts = (world: SimWorld, options: { readonly dryRun?: boolean } = {}): TickPorts => {
  const { config } = world;
  const dryRun = options.dryRun === true;

  const gate = config.topology.gate;

  /** One API request against the gate (or another workload). */
  const request = <A>(
    op: ClusterOp,
    detail: string,
    target: string,
    act: () => E.Either<PortError, A>,
    changes?: BookkeepingChanges,
    readIndex?: number,
    okOutcome: (a: A) => string = () => 'ok',
  ): TaskEither<PortError, A> => {
    const fault = world.takeClusterFault(op, changes, readIndex);
    let result: E.Either<PortError, A>;
    if (fault === 'Hang') {
      world.clockMs += config.apiTimeoutMs;
      result = E.left(timeout(`simulated ${op} hung; the ${config.apiTimeoutMs} ms request bound ended it`));
    } else if (fault !== undefined) {
      world.clockMs += SIM_REQUEST_MS;
      result = E.left(errorOf(fault, op));
    } else if (!world.workload(target).exists) {
      world.clockMs += SIM_REQUEST_MS;
      result = E.left(notFound(`${world.kindOf(target)}s.apps "${world.nameOf(target)}" not found`, 404));
    } else {
      world.clockMs += SIM_REQUEST_MS;
      result = act();
    }
    world.log({ op, detail, outcome: E.isRight(result) ? okOutcome(result.right) : result.left._tag });
    return done(result);
  };

  const _annotation = (key: string) => (): E.Either<PortError, O.Option<string>> =>
    E.right(O.fromNullable(world.annotations[key]));

  const annotate = (changes: BookkeepingChanges) => (): E.Either<PortError, void> => {
    if (dryRun) return E.right(undefined);
    for (const [key, value] of Object.entries(changes)) world.setAnnotation(key, value ?? undefined);
    return E.right(undefined);
  };

  const cluster: ClusterPort = {
    readGate: (settleWithinMs) =>
      request(
        'readGate',
        settleWithinMs > 0 ? `settle ${settleWithinMs}` : '',
        gate.id,
        (): E.Either<PortError, GateSnapshot> => {
          const settledness = world.settlednessOf(gate.id, 'top-of-tick');
          // The adapter watches an unsettled gate for the whole window it was given.
          if (settledness._tag !== 'Settled') world.clockMs += settleWithinMs;
          const w = world.workload(gate.id);
          return E.right({
            settledness,
            annotations: { ...world.annotations },
            uid: world.uid,
            images: { ...w.images },
            imageOwners: { ...w.imageOwners },
          });
        },
        undefined,
        world.nextReadIndex(settleWithinMs),
      ),
    patchBookkeeping: (changes) =>
      request('patchBookkeeping', describeChanges(changes), gate.id, annotate(changes), changes, undefined, () =>
        dryRun ? 'dry run' : 'ok',
      ),
    // A read with no settle window (the ownership check's) is logged as `<id> once`.
    observeWorkload: (workload, settleWithinMs = config.settleTimeoutMs) =>
      request(
        'observeWorkload',
        `${workload.id}${settleWithinMs === 0 ? ' once' : ''}`,
        workload.id,
        (): E.Either<PortError, LiveWorkload> => {
          const settledness = world.settlednessOf(workload.id, 'top-of-tick');
          // The gate comes from the tick's one read; the others are watched for the window they were given.
          if (settledness._tag !== 'Settled' && workload.id !== gate.id) world.clockMs += settleWithinMs;
          const w = world.workload(workload.id);
          return E.right({ settledness, images: { ...w.images }, imageOwners: { ...w.imageOwners } });
        },
      ),
    setImages: (workload, images) =>
      request(
        'setImages',
        `${workload.id} ${images.map((i) => `${i.container}=${i.image}`).join(' ')}`,
        workload.id,
        (): E.Either<PortError, { readonly changed: boolean }> => {
          const w = world.workload(workload.id);
          const changed = images.some(({ container, image }) => w.images[container] !== image);
          // Already on target, the adapter sends no patch (docs/behaviour.md §3.6): no write, no new
          // generation, no rollout, the field manager untouched.
          if (!changed || dryRun) return E.right({ changed });
          for (const { container, image } of images) {
            w.images[container] = image;
            w.imageOwners[container] = 'image-refresh';
          }
          w.generation += 1;
          w.rolloutPending = true;
          // The new pods' nodes start pulling what they do not hold (docs/behaviour.md §3.5a).
          world.nodes.readyEverywhere(world.nodes.nodesOf(workload.id), Object.values(w.images), world.clockMs);
          return E.right({ changed });
        },
        undefined,
        undefined,
        // A set image that sent nothing is logged apart from one that did (I9 speaks of those sent).
        ({ changed }) => (!changed ? 'unchanged' : dryRun ? 'dry run' : 'ok'),
      ),
    waitForRollout: (workload, timeoutMs) => {
      const fault = world.takeClusterFault('waitForRollout');
      const w = world.workload(workload.id);
      let result: E.Either<RolloutError, void>;
      if (fault === 'Hang') {
        world.clockMs += config.apiTimeoutMs;
        result = E.left(timeout(`simulated waitForRollout hung; the ${config.apiTimeoutMs} ms request bound ended it`));
      } else if (fault !== undefined) {
        world.clockMs += SIM_REQUEST_MS;
        result = E.left(errorOf(fault, 'waitForRollout'));
      } else if (!w.exists) {
        result = E.left(notFound(`${workload.kind.toLowerCase()}s.apps "${workload.name}" not found`, 404));
      } else {
        const startedAt = world.clockMs;
        const pending = w.rolloutPending;
        // New pods first wait for their images on every node (a slow link: `slow-link`, docs/behaviour.md §3.5a).
        const pulled = pending
          ? world.nodes.readyEverywhere(world.nodes.nodesOf(workload.id), Object.values(w.images), world.clockMs)
          : world.clockMs;
        // Only a pull makes the wait run out: a rollout with its images in place takes SIM_ROLLOUT_MS whatever the bound (as before staging).
        if (pulled > startedAt && pulled - startedAt + SIM_ROLLOUT_MS > timeoutMs) {
          world.clockMs += timeoutMs;
          result = E.left({ _tag: 'RolloutTimedOut', message: stillPulling(world, workload, timeoutMs) });
        } else {
          world.clockMs = pulled;
          const settledness = world.settlednessOf(workload.id, 'rollout-wait');
          if (settledness._tag === 'Settled') {
            world.clockMs += pending ? SIM_ROLLOUT_MS : SIM_REQUEST_MS;
            w.rolloutPending = false;
            result = E.right(undefined);
          } else {
            world.clockMs = startedAt + timeoutMs;
            // A flapping workload is Ready again after the failed wait.
            if (w.behaviour === 'flaps') w.rolloutPending = false;
            result = E.left(
              settledness._tag === 'Failed'
                ? { _tag: 'RolloutFailed', message: settledness.reason }
                : { _tag: 'RolloutTimedOut', message: settledness.reason },
            );
          }
        }
        // Its pods were unavailable while the wait lasted: the old ones replaced, the new ones not Ready (`slow-link`'s measure).
        if (pending) world.nodes.addUnavailable(workload.id, world.clockMs - startedAt);
      }
      world.log({ op: 'waitForRollout', detail: workload.id, outcome: E.isRight(result) ? 'ok' : result.left._tag });
      return done(result);
    },
    // ROLLOUT_STABLE_FOR (§3.6): a workload that stays complete is watched
    // for the whole window; one that falls apart is caught halfway through it.
    watchStability: (workload, stableForMs) => {
      const fault = world.takeClusterFault('watchStability');
      const w = world.workload(workload.id);
      let result: E.Either<RolloutError, void>;
      if (fault === 'Hang') {
        world.clockMs += config.apiTimeoutMs;
        result = E.left(timeout(`simulated watchStability hung; the ${config.apiTimeoutMs} ms request bound ended it`));
      } else if (fault !== undefined) {
        world.clockMs += SIM_REQUEST_MS;
        result = E.left(errorOf(fault, 'watchStability'));
      } else if (!w.exists) {
        result = E.left(notFound(`${workload.kind.toLowerCase()}s.apps "${workload.name}" not found`, 404));
      } else {
        const settledness = world.settlednessOf(workload.id, 'stability-watch');
        if (settledness._tag === 'Settled') {
          world.clockMs += stableForMs;
          result = E.right(undefined);
        } else {
          world.clockMs += Math.floor(stableForMs / 2);
          result = E.left({ _tag: 'RolloutFailed', message: `fell apart: ${settledness.reason}` });
        }
      }
      world.log({ op: 'watchStability', detail: workload.id, outcome: E.isRight(result) ? 'ok' : result.left._tag });
      return done(result);
    },
  };

  const resolveOne = (repo: string, tag: string): E.Either<RegistryError, Resolution> => {
    const fault = world.takeRegistryFault(repo);
    world.clockMs += fault === 'Hang' ? config.registryTimeoutMs : SIM_REGISTRY_MS;
    const digest = world.registry.get(`${repo}:${tag}`);
    const rateLimitRemaining = O.fromNullable(world.rateLimitRemaining);
    switch (fault) {
      case undefined:
        return digest === undefined
          ? E.left({ _tag: 'NotFound', message: `manifest unknown: ${repo}:${tag}`, status: 404 })
          : E.right({ digest, rateLimitRemaining });
      case 'Hang':
        return E.left(
          timeout(`simulated registry hang for ${repo}; the ${config.registryTimeoutMs} ms bound ended it`),
        );
      case 'Garbage':
        return E.right({ digest: 'sha256:not-a-digest', rateLimitRemaining });
      case 'RateLimited':
        return E.left({ _tag: 'RateLimited', message: 'toomanyrequests: You have reached your pull rate limit' });
      default:
        return E.left(errorOf(fault, `registry ${repo}`));
    }
  };

  /** The mirror asked for `repo@digest` (MIRROR_MODE=follow-upstream, §3.3): a pull-through cache of what was published. */
  const askMirror = (repo: string, digest: string): E.Either<RegistryError, Resolution> => {
    world.clockMs += SIM_REGISTRY_MS;
    if (world.mirrorCorrupt.has(repo))
      return E.right({ digest: simDigest(`${repo} as the mirror has it`), rateLimitRemaining: O.none });
    return world.publishedDigests.has(`${repo}@${digest}`) && !world.mirrorLagging.has(repo)
      ? E.right({ digest, rateLimitRemaining: O.none })
      : E.left({ _tag: 'NotFound', message: `manifest unknown: ${repo}@${digest} on the mirror`, status: 404 });
  };

  /** A trusted key's signature, none, or a registry failure that leaves no verdict (§3.4a step 3). */
  const verifyOne = (repo: string, digest: string): E.Either<RegistryError, SignatureVerdict> => {
    const fault = world.takeSignatureFault(repo);
    world.clockMs += fault === 'Hang' ? config.registryTimeoutMs : SIM_REGISTRY_MS;
    switch (fault) {
      case undefined:
        return E.right(
          world.signedDigests.has(`${repo}@${digest}`)
            ? { _tag: 'Verified', by: SIM_SIGNING_KEY, format: 'cosign-sig-tag' }
            : { _tag: 'NotVerified', why: `no signature of ${digest} in either format (.sig tag, sigstore bundle)` },
        );
      case 'Hang':
        return E.left(
          timeout(`simulated signature fetch hang for ${repo}; the ${config.registryTimeoutMs} ms bound ended it`),
        );
      case 'RateLimited':
        return E.left({ _tag: 'RateLimited', message: 'toomanyrequests: You have reached your pull rate limit' });
      default:
        return E.left(errorOf(fault, `signature of ${repo}`));
    }
  };

  /** docs/behaviour.md §3.4b: the document a halt digest names, an artifact without one, or a registry failure. */
  const readHaltDocument = (digest: string): E.Either<RegistryError, FleetHaltDocument> => {
    const fault = world.takeHaltDocumentFault();
    world.clockMs += fault === 'Hang' ? config.registryTimeoutMs : SIM_REGISTRY_MS;
    const document = world.haltDocuments.get(digest);
    switch (fault) {
      case undefined:
        return E.right(
          document === undefined
            ? { _tag: 'Unusable', why: `the halt manifest ${digest} is missing from the registry` }
            : { _tag: 'Document', text: document },
        );
      case 'Unusable':
        return E.right({ _tag: 'Unusable', why: 'the halt manifest holds 0 layers of the halt media type, not one' });
      case 'Hang':
        return E.left(timeout(`simulated halt document hang; the ${config.registryTimeoutMs} ms bound ended it`));
      case 'RateLimited':
        return E.left({ _tag: 'RateLimited', message: 'toomanyrequests: You have reached your pull rate limit' });
      default:
        return E.left(errorOf(fault, 'the halt document'));
    }
  };

  const fleetHalt: FleetHaltPort = {
    readDocument: ({ repo, digest }) => {
      const answer = readHaltDocument(digest);
      world.log({
        op: 'readFleetHalt',
        detail: `${repo}@${digest}`,
        outcome: E.isRight(answer) ? answer.right._tag : answer.left._tag,
      });
      return done(answer);
    },
  };

  // The promotion is published as the halt is (one signed document under a tag): the same store, its own op.
  const fleetPromotion: FleetPromotionPort = {
    readDocument: ({ repo, digest }) => {
      const answer = readHaltDocument(digest);
      world.log({
        op: 'readFleetPromotion',
        detail: `${repo}@${digest}`,
        outcome: E.isRight(answer) ? answer.right._tag : answer.left._tag,
      });
      return done(answer);
    },
  };

  const signatures: SignaturePort = {
    verify: ({ repo, digest }) => {
      const answer = verifyOne(repo, digest);
      world.log({
        op: 'verifySignature',
        detail: `${repo}@${digest}`,
        outcome: E.isRight(answer) ? answer.right._tag : answer.left._tag,
      });
      return done(answer);
    },
  };

  const events: EventsPort = {
    record: (event) => {
      const fault = world.takeClusterFault('recordEvent');
      let result: E.Either<PortError, void>;
      if (fault === 'Hang') {
        world.clockMs += config.apiTimeoutMs;
        result = E.left(timeout(`simulated recordEvent hung; the ${config.apiTimeoutMs} ms request bound ended it`));
      } else if (fault !== undefined) {
        world.clockMs += SIM_REQUEST_MS;
        result = E.left(errorOf(fault, 'recordEvent'));
      } else {
        world.clockMs += SIM_REQUEST_MS;
        const existing = world.kubeEvents.find((e) => e.reason === event.reason);
        if (existing === undefined) world.kubeEvents.push({ ...event, count: 1 });
        else {
          existing.count += 1;
          existing.message = event.message;
        }
        result = E.right(undefined);
      }
      world.log({
        op: 'recordEvent',
        detail: `${event.type} ${event.reason}`,
        outcome: E.isRight(result) ? 'ok' : result.left._tag,
      });
      return done(result);
    },
  };

  // The wall clock is the world's virtual time, which the property
  // suite and the scenarios drive (time passes between ticks); a wait advances it.
  const clock: ClockPort = {
    now: () => () => {
      world.log({ op: 'readClock', detail: '', outcome: 'ok' });
      return Promise.resolve(E.right(SIM_EPOCH_MS + world.clockMs));
    },
    sleep: (ms) => () => {
      world.clockMs += ms;
      world.log({ op: 'sleep', detail: String(ms), outcome: 'ok' });
      return Promise.resolve(E.right(undefined));
    },
  };

  return {
    cluster,
    events,
    signatures,
    clock,
    fleetHalt,
    fleetPromotion,
    platforms: simPlatformPort(world),
    staging: simStagingPort(world),
    registry: {
      resolveDigests: (requests) => () =>
        Promise.resolve(
          requests.map(({ host, repo, tag }) => {
            if (host === config.mirror?.host && config.mirror.followUpstream) {
              const served = askMirror(repo, tag);
              world.log({
                op: 'askMirror',
                detail: `${repo}@${tag}`,
                outcome: E.isRight(served) ? 'ok' : served.left._tag,
              });
              return served;
            }
            const answer = resolveOne(repo, tag);
            world.log({ op: 'resolveDigest', detail: repo, outcome: E.isRight(answer) ? 'ok' : answer.left._tag });
            return answer;
          }),
        ),
    },
  };
};
