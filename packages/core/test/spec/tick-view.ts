import * as O from 'fp-ts/lib/Option.js';
import type { ManagedContainer, Topology } from '../../src/config/profile/topology.js';
import { counterValue } from '../../src/domain/counter.js';
import { runsFollowedImage } from '../../src/domain/ownership.js';
import { lackingPlatforms, type Platform, platformName } from '../../src/domain/platforms.js';
import { type ImageSpec, imageOf } from '../../src/domain/workloads.js';
import { portBounds } from '../../src/machine/port-bounds.js';
import type { SpecCall, SpecOp } from '../support/spec-calls.js';
import type { TickRecord } from './tick-record.js';

// Questions the invariants ask of one recorded tick, answered from the world
// and the call log — never from the machine's own account of itself, which is
// what is under test. Every image, workload, container, key and repository
// is the edge's own topology's (`config.topology`, docs/profiles.md): the
// chart's without a profile, any profile's with one.

/** A container of a workload, as a set image names it. */
export interface ContainerAt {
  readonly workload: string;
  readonly container: string;
}

/** One set image of a tick: the workload, container → reference, and how the call ended. */
export interface SetImageCall {
  readonly workload: string;
  readonly images: Record<string, string>;
  readonly outcome: string;
}

/** A call that succeeded: 'ok', or a set image that found its workload already on target and sent nothing. */
const answered = (c: SpecCall): boolean => c.outcome === 'ok' || c.outcome === 'unchanged' || c.outcome === 'Verified';

export const WRITE_OPS: readonly SpecOp[] = [
  'writeSkipStreak',
  'clearSkipStreak',
  'writeRefreshAttempt',
  'markFlapDetected',
  'clearFlapState',
  'recordDigests',
  'setImages',
  'quarantineDigests',
];

/** What the checker remembers across the ticks of one sequence. */
export interface History {
  readonly previous: TickRecord | undefined;
  /** Consecutive unsettled ticks with working streak reads and writes, counted from a streak of 0; undefined when unknown. */
  readonly unsettledRun: number | undefined;
  /** A tick of the current unsettled run already exited 1. */
  readonly frozenInRun: boolean;
  /** Failed re-image ticks since refresh-attempt was last cleared (by a success reset or a human). */
  readonly failedReimagesSinceClear: number;
  /** `workload/container` that image-refresh itself set to a digest, as far as this sequence shows (I23). */
  readonly pinnedContainers: ReadonlySet<string>;
}

export const NO_HISTORY: History = {
  previous: undefined,
  unsettledRun: 0,
  frozenInRun: false,
  failedReimagesSinceClear: 0,
  pinnedContainers: new Set(),
};

export class TickView {
  constructor(
    readonly record: TickRecord,
    readonly history: History,
  ) {}

  get config() {
    return this.record.config;
  }
  get topology(): Topology {
    return this.record.config.topology;
  }
  /** The tick-wide bookkeeping keys on the gate (`<prefix>/refresh-attempt`, …). */
  get keys() {
    return this.record.config.topology.keys;
  }
  get gateId(): string {
    return this.record.config.topology.gate.id;
  }
  get exitCode() {
    return this.record.outcome.exitCode;
  }
  /** Behind a mirror the tick does not follow upstream through (MIRROR_MODE unset): inert (I14). */
  get isMirror(): boolean {
    return this.config.mirror !== undefined && !this.config.mirror.followUpstream;
  }

  calls(op: SpecOp): readonly SpecCall[] {
    return this.record.calls.filter((c) => c.op === op);
  }
  called(op: SpecOp): boolean {
    return this.calls(op).length > 0;
  }
  succeeded(op: SpecOp): boolean {
    return this.calls(op).some(answered);
  }
  failed(op: SpecOp): boolean {
    return this.calls(op).some((c) => !answered(c));
  }
  indexOf(op: SpecOp, outcome?: string): number {
    return this.record.calls.findIndex((c) => c.op === op && (outcome === undefined || c.outcome === outcome));
  }
  /** Index of the first set image that went to the cluster (not one already on target, which sends nothing); -1 if none. */
  firstSetImageSent(): number {
    return this.record.calls.findIndex((c) => c.op === 'setImages' && c.outcome !== 'unchanged');
  }
  get writes(): readonly SpecCall[] {
    return this.record.calls.filter((c) => (WRITE_OPS as readonly string[]).includes(c.op));
  }
  /** The tick asked to set images (I9 speaks only of those sent: one already on target sends nothing). */
  get reimaged(): boolean {
    return this.called('setImages');
  }

  /** The gate could be read at the top of the tick (world truth; its guard read is named `observeJobsManager`). */
  get gateReadable(): boolean {
    return (
      this.record.before.workloads[this.gateId]?.exists === true &&
      this.record.before.clusterFaults.observeJobsManager === undefined
    );
  }
  /** The settled guard had to pass: the gate readable and settled, by the world's own account. */
  get guardShouldPass(): boolean {
    return !this.isMirror && this.gateReadable && this.record.before.gateTopOfTick._tag === 'Settled';
  }
  get unsettledButReadable(): boolean {
    return !this.isMirror && this.gateReadable && this.record.before.gateTopOfTick._tag !== 'Settled';
  }

  annotationBefore(key: string): string | undefined {
    return this.record.before.annotations[key];
  }
  counterBefore(key: string): number {
    return counterValue(O.fromNullable(this.annotationBefore(key)));
  }
  /** A human (or a deletion) changed this annotation between the previous tick and this one. */
  editedSincePreviousTick(key: string): boolean {
    const previous = this.history.previous;
    return previous !== undefined && previous.after.annotations[key] !== this.record.before.annotations[key];
  }

  /** The topology's images, in the order a tick resolves them. */
  get images(): readonly ImageSpec[] {
    return this.topology.images;
  }
  /** Pinned on this edge by its own variable (I13). */
  pinned(image: ImageSpec): boolean {
    return image.pinned;
  }
  /** Followed on this edge: not pinned, and run by a container that no pin holds (the others are never resolved). */
  followed(image: ImageSpec): boolean {
    return !image.pinned && this.managedContainersOf(image.name).length > 0;
  }
  /** The containers image-refresh keeps on an image's digest: neither they nor their workload pinned. */
  managedContainersOf(image: string): readonly ManagedContainer[] {
    return this.topology.managed.filter((m) => m.image === image);
  }
  /** Every container that runs an image by the profile, pinned or not. */
  containersRunning(image: string): readonly ContainerAt[] {
    return this.topology.workloads.flatMap((w) =>
      w.containers.filter((c) => c.image === image).map((c) => ({ workload: w.id, container: c.container })),
    );
  }
  /** The image a workload's container runs by the profile; undefined for a container the profile does not map. */
  imageAt(workload: string, container: string): ImageSpec | undefined {
    const image = this.topology.workloads
      .find((w) => w.id === workload)
      ?.containers.find((c) => c.container === container)?.image;
    return image === undefined ? undefined : imageOf(this.topology, image);
  }
  /**
   * A workload a decoupled pass may move (DECOUPLED_REFRESH, I24): not the
   * gate, decoupled by the profile, and settled itself when the tick began,
   * by the world's account.
   */
  movableInDecoupledPass(workload: string): boolean {
    return (
      workload !== this.gateId &&
      this.topology.workloads.some((w) => w.id === workload && w.decoupled) &&
      this.record.before.settledAtTopOfTick[workload] === true
    );
  }
  /** A set image names one of these containers. */
  sets(call: SetImageCall, containers: readonly ContainerAt[]): boolean {
    return containers.some((c) => c.workload === call.workload && c.container in call.images);
  }
  /**
   * Where the pods pull an image from: the mirror when the tick follows the
   * upstream through it (MIRROR_MODE=follow-upstream), else the image's own
   * registry (`docker.io` for the chart's).
   */
  pullHostOf(image: ImageSpec): string {
    return this.config.mirror?.followUpstream === true ? this.config.mirror.host : image.host;
  }
  /** The reference a tick sets for an image at a digest: `docker.io/<repo>@<digest>` (its pull host's). */
  referenceOf(image: ImageSpec, digest: string | undefined): string {
    return `${this.pullHostOf(image)}/${image.repo}@${digest}`;
  }
  /** The image of the topology a `<registry>/<repo>@<digest>` reference names; undefined for any other. */
  imageOfReference(reference: string): ImageSpec | undefined {
    return this.images.find((i) => reference.startsWith(`${this.pullHostOf(i)}/${i.repo}@`));
  }
  /** What the registry answered for an image's tag when the tick began (world truth). */
  registryDigest(image: ImageSpec): string | undefined {
    return this.record.before.registry[image.repo];
  }
  /** Images whose registry answer this tick was a well-formed digest. */
  resolvedImages(): ImageSpec[] {
    return this.images.filter(
      (image) =>
        this.followed(image) &&
        this.calls('resolveDigest').some((c) => c.detail === image.repo && c.outcome === 'ok') &&
        this.record.before.registryFaults[image.repo] !== 'Garbage' &&
        this.servedByMirror(image),
    );
  }

  /**
   * MIRROR_MODE=follow-upstream (§3.3): the mirror served every digest of the
   * image it was asked for, as asked (a lagging mirror answers 404, a corrupt
   * one another digest); true when it was asked nothing.
   */
  servedByMirror(image: ImageSpec): boolean {
    return this.calls('askMirror').every(
      (c) =>
        !c.detail.startsWith(`${image.repo}@`) ||
        (c.outcome === 'ok' && !this.record.before.mirrorCorrupt.includes(image.repo)),
    );
  }

  /** A call failed that is a finding (I18's model), the skip streak aside. */
  failedFinding(): SpecCall | undefined {
    return this.record.calls.find(
      (c) =>
        !answered(c) &&
        !BENIGN_FAILURES.has(c.op) &&
        !(c.op === 'readSkipStreak' && this.guardShouldPass) &&
        (c.op !== 'verifySignature' || this.isSignatureRejection(c)),
    );
  }

  /**
   * The signature check (§3.4a step 3) of a digest that changed against the one
   * recorded (a first observation is checked report-only), in the tick's order.
   */
  signatureChecks(): readonly { readonly call: SpecCall; readonly index: number; readonly gated: boolean }[] {
    return this.record.calls.flatMap((call, index) => {
      if (call.op !== 'verifySignature') return [];
      const at = call.detail.indexOf('@');
      const spec = this.images.find((i) => i.repo === call.detail.slice(0, at));
      const recorded = spec === undefined ? undefined : this.annotationBefore(spec.recordKey);
      const gated = recorded !== undefined && recorded !== '' && recorded !== call.detail.slice(at + 1);
      return [{ call, index, gated }];
    });
  }

  /** Whether a gated check's answer lets its digest go on: Verified, or NotVerified under warn; never a failed check. */
  admitsBySignature(outcome: string): boolean {
    return outcome === 'Verified' || (outcome === 'NotVerified' && this.config.signatures?.mode === 'warn');
  }

  /** VERIFY_SIGNATURES=enforce and a changed digest's signature did not verify: a finding (I26). */
  isSignatureRejection(call: SpecCall): boolean {
    const check = this.signatureChecks().find((c) => c.call === call);
    return this.config.signatures?.mode === 'enforce' && call.outcome === 'NotVerified' && check?.gated === true;
  }

  /** A finding besides the skip streak: a failed call that is one, or a lockout made one by FLAP_LOCKOUT_EXIT=1. */
  otherFinding(): boolean {
    return (
      this.failedFinding() !== undefined ||
      this.foreignImageInWorld() ||
      this.registryUnreachable() ||
      this.mirrorMismatch() ||
      (this.config.flapLockoutIsFinding && this.succeeded('markFlapDetected')) ||
      this.platformMismatches().length > 0
    );
  }

  /** MIRROR_MODE=follow-upstream (§3.3): the mirror was asked for a digest and answered another: a finding. */
  mirrorMismatch(): boolean {
    return this.calls('askMirror').some(
      (c) => c.outcome === 'ok' && this.record.before.mirrorCorrupt.some((repo) => c.detail.startsWith(`${repo}@`)),
    );
  }

  /** MAX_RESOLVE_FAILURE_TICKS (I46): the resolve-failure streak written this tick reached its ceiling. */
  registryUnreachable(): boolean {
    const max = this.config.maxResolveFailureTicks;
    const written = this.calls('writeResolveFailureStreak').find((c) => c.outcome === 'ok')?.detail;
    return max !== 'off' && written !== undefined && Number(written) >= max;
  }

  /**
   * OWNERSHIP_CHECK (docs/behaviour.md §3.4c): the tick refused a foreign
   * image, and the world agrees: when it began, a managed container of a
   * workload it read ran another repository, or its repository at another
   * tag, or was not there.
   */
  foreignImageInWorld(): boolean {
    if (!this.config.ownershipCheck || this.record.outcome.result !== 'foreignImage') return false;
    const read = new Set([
      this.gateId,
      ...this.record.calls
        .filter((c) => c.op === 'readOwnedWorkload' || c.op === 'observeWorkload')
        .map((c) => c.detail),
    ]);
    return this.config.topology.managed.some((m) => {
      const before = this.record.before.workloads[m.workload];
      if (before === undefined || !before.exists || !read.has(m.workload)) return false;
      const running = before.images[m.container];
      const image = imageOf(this.config.topology, m.image);
      return running === undefined || !runsFollowedImage(image, running, this.pullHostOf(image));
    });
  }

  /**
   * The registry's pull budget was low this tick: a 429 for some repo, or a
   * remaining budget under the floor. Never with REGISTRY_BUDGET_FLOOR=off:
   * no budget guard, as the script (docs/behaviour.md §5).
   */
  get registryBudgetLow(): boolean {
    if (!this.config.registryBudgetGuard) return false;
    const answered = this.resolvedImages().length > 0;
    const remaining = this.record.before.rateLimitRemaining;
    const rateLimited = this.calls('resolveDigest').some((c) => c.outcome === 'RateLimited');
    return rateLimited || (answered && remaining !== undefined && remaining < this.config.registryBudgetFloor);
  }

  /**
   * World truth, not the machine's account: on a settled tick whose
   * refresh-attempt can be read and is at or past MAX_REFRESH_ATTEMPTS, the
   * registry reports a digest other than a recorded one — the flap lockout
   * with drift pending, whatever else the tick sees (a low pull budget
   * included: the lockout is decided first, I10, I18).
   */
  get lockedOutWithDriftPending(): boolean {
    return (
      this.guardShouldPass &&
      this.record.before.clusterFaults.readRefreshAttempt === undefined &&
      this.succeeded('readRecordedDigests') &&
      this.counterBefore(this.keys.refreshAttempt) >= this.config.maxRefreshAttempts &&
      this.resolvedImages().some((image) => {
        const recorded = this.annotationBefore(image.recordKey) ?? '';
        return (
          recorded !== '' &&
          recorded !== this.registryDigest(image) &&
          !this.quarantined(image) &&
          !this.heldBySignature(image.repo) &&
          !this.heldByPlatform(image.repo)
        );
      })
    );
  }

  /**
   * Where the tick's re-image ended: the first set image, rollout wait or
   * stability watch that failed (§3.6). Under ON_ROLLOUT_FAILURE=revert what
   * follows is the rollback; -1 when none failed.
   */
  get firstFailedRollout(): number {
    return this.record.calls.findIndex(
      (c) => (c.op === 'waitForRollout' || c.op === 'watchStability' || c.op === 'setImages') && !answered(c),
    );
  }
  /** The calls of the re-image itself, the rollback after a failed rollout left out (I29). */
  get forwardCalls(): readonly SpecCall[] {
    const failed = this.firstFailedRollout;
    return failed < 0 ? this.record.calls : this.record.calls.slice(0, failed + 1);
  }
  /** The rollback's set images (ON_ROLLOUT_FAILURE=revert): those after the first failed rollout. */
  rollbackSetImageCalls(): SetImageCall[] {
    const failed = this.firstFailedRollout;
    return failed < 0 ? [] : parseSetImages(this.record.calls.slice(failed + 1));
  }

  /**
   * The changed digest of `repo` was held back by its signature
   * check this tick (docs/behaviour.md §3.4a): no drift is pending for the
   * steps after admission, as if the registry still answered the recorded digest.
   */
  heldBySignature(repo: string): boolean {
    return this.signatureChecks().some(
      (c) => c.gated && c.call.detail.startsWith(`${repo}@`) && !this.admitsBySignature(c.call.outcome),
    );
  }

  /**
   * PLATFORM_CHECK: the platforms a read of `repo@digest` answered this tick,
   * as the log carries them; undefined when it was not read or not answered.
   */
  platformsRead(repo: string, digest: string): readonly Platform[] | undefined {
    const call = this.calls('readPlatforms').find(
      (c) => c.outcome === 'Platforms' && c.detail.split(' ')[0] === `${repo}@${digest}`,
    );
    if (call === undefined) return undefined;
    return (call.detail.split(' ')[1] ?? '')
      .split(',')
      .filter((name) => name !== '')
      .map((name) => {
        const [os = '', architecture = '', variant] = name.split('/');
        return variant === undefined ? { os, architecture } : { os, architecture, variant };
      });
  }

  /** The platforms `repo`'s changed digest lacks against the recorded one, by both reads; undefined when either was not answered. */
  platformsLacking(repo: string): readonly Platform[] | undefined {
    const spec = this.images.find((i) => i.repo === repo);
    const recorded = spec === undefined ? undefined : this.annotationBefore(spec.recordKey);
    const digest = this.record.before.registry[repo];
    if (recorded === undefined || digest === undefined) return undefined;
    const before = this.platformsRead(repo, recorded);
    const after = this.platformsRead(repo, digest);
    return before === undefined || after === undefined ? undefined : lackingPlatforms(before, after);
  }

  /** PLATFORM_CHECK refused a changed digest this tick: it lacks a platform the recorded one provides (a finding). */
  platformMismatches(): readonly string[] {
    return this.images.flatMap((image) => {
      const lacking = this.platformsLacking(image.repo);
      return lacking === undefined || lacking.length === 0
        ? []
        : [`${image.repo} lacks ${lacking.map(platformName).join(', ')}`];
    });
  }

  /**
   * PLATFORM_CHECK held `repo`'s changed digest back this tick: its manifest
   * was read, and either lacks a platform or one of the two reads gave no
   * answer (fail closed) — drift held, not pending (docs/behaviour.md §3.4a step 4).
   */
  heldByPlatform(repo: string): boolean {
    const digest = this.record.before.registry[repo];
    if (!this.calls('readPlatforms').some((c) => c.detail.split(' ')[0] === `${repo}@${digest}`)) return false;
    const lacking = this.platformsLacking(repo);
    return lacking === undefined || lacking.length > 0;
  }

  /** PREPULL: a workload carrying `repo`'s new digest was not staged on every node this tick, so the digest is held. */
  heldByStaging(repo: string): boolean {
    const digest = this.record.before.registry[repo];
    return this.calls('stageImage').some(
      (c) =>
        c.outcome !== 'Staged' &&
        c.detail
          .split(' ')
          .slice(2)
          .some((image) => image.endsWith(`/${repo}@${digest}`)),
    );
  }

  /** The registry answers the very digest quarantined for this image: its drift is held, not pending (I30). */
  quarantined(image: ImageSpec): boolean {
    const digest = this.annotationBefore(image.quarantineKey);
    return digest !== undefined && digest === this.registryDigest(image);
  }

  /** `setImages` details as [workload, container=image …], of the re-image (not the rollback after it). */
  setImageCalls(): SetImageCall[] {
    return parseSetImages(this.forwardCalls);
  }

  /** Every set image of this tick was followed by a completed rollout of the same workload, and none fell apart. */
  everyRolloutCompleted(): boolean {
    if (this.firstFailedRollout >= 0) return false;
    const calls = this.record.calls;
    return calls.every((c, i) => {
      if (c.op !== 'setImages') return true;
      if (!answered(c)) return false;
      const workload = c.detail.split(' ')[0];
      return calls.slice(i + 1).some((w) => w.op === 'waitForRollout' && w.detail === workload && w.outcome === 'ok');
    });
  }

  /** I17: what the tick may spend at most, summed over the calls it made. */
  sumOfBounds(): number {
    const bounds = portBounds(this.config);
    const repos = this.calls('resolveDigest').length;
    return this.record.calls.reduce(
      (sum, c) => {
        switch (c.op) {
          case 'resolveDigest':
            return sum;
          case 'observeJobsManager':
            return sum + bounds.observeMs;
          case 'waitForRollout':
            return sum + bounds.rolloutMs;
          case 'watchStability':
            return sum + bounds.stabilityMs;

          case 'verifySignature':
            return sum + bounds.verifyMs(1);
          case 'readPlatforms':
            return sum + bounds.platformMs(1);
          // One staging call, bounded as a whole, however many nodes and pods it logs.
          case 'stageImages':
            return sum + bounds.stagingMs;
          case 'stageImage':
          case 'deleteStagingPod':
            return sum;
          default:
            return sum + bounds.apiMs;
        }
      },
      repos > 0 ? bounds.resolveMs(repos) : 0,
    );
  }

  get elapsedMs(): number {
    return this.record.after.clockMs - this.record.before.clockMs;
  }
}

const parseSetImages = (calls: readonly SpecCall[]): SetImageCall[] =>
  calls
    .filter((c) => c.op === 'setImages')
    .map((c) => {
      const [workload = '', ...pairs] = c.detail.split(' ');
      return {
        workload,
        images: Object.fromEntries(pairs.map((p) => p.split('=') as [string, string])),
        outcome: c.outcome,
      };
    });

/**
 * Calls whose failure is a WARN and exit 0 by design: the best-effort streak
 * clear (#2007), the fail-closed reads whose safe branch is "do nothing this
 * tick" (#626, docs/behaviour.md §5), one image's resolution (I15), the live and decoupled
 * reads (RECONCILE_LIVE, DECOUPLED_REFRESH) and Kubernetes Events (I18b).
 */
export const BENIGN_FAILURES: ReadonlySet<string> = new Set([
  'clearSkipStreak',
  // Best effort, as the skip streak's removal (I6): a stale streak only trips sooner (I46).
  'clearResolveFailureStreak',
  'readRefreshAttempt',
  'readRecordedDigests',
  'resolveDigest',
  // MIRROR_MODE=follow-upstream: a digest the mirror has not served waits, counted as silence (§3.3, I46).
  'askMirror',
  'recordEvent',
  'readPinMarkers',
  'observeWorkload',
  // Stage, then switch: a manifest that could not be read holds its digest back (WARN, docs/behaviour.md §3.4a
  // step 4; a refusal is a finding, platformMismatches), a node not staged holds its workload back (WARN, §3.5a).
  'readPlatforms',
  'stageImage',
  'stageImages',
  // The ownership check's record (§3.4c): a fingerprint the gate refuses is a WARN, and the next tick checks again.
  'recordTopologyFingerprint',
]);
