import { formatDuration } from '../../config/duration.js';
import type { TickConfig } from '../../config/tick-config.js';
import type { Hold, Holds } from '../../domain/admission.js';
import { shortDigest } from '../../domain/digest.js';
import type { AgeVerdict, DigestAgeDecision } from '../../domain/digest-age.js';
import type { HaltAdmission, HaltPin, HaltPins } from '../../domain/fleet-halt-admission.js';
import type { LiveFinding } from '../../domain/live-drift.js';
import { rfc3339 } from '../../domain/pending-digest.js';
import type { ImageVerdict, RefreshPlan } from '../../domain/plan.js';
import { type Platform, type PlatformReport, platformName } from '../../domain/platforms.js';
import { describePortError, type PortError, type RegistryError } from '../../domain/port-error.js';
import type { SignatureJudgement } from '../../domain/signature-admission.js';
import { describeWorkload, type ImageSpec, imageOf, workloadOf } from '../../domain/workloads.js';
import { event, gate } from '../operator-words.js';
import type { TickEvent } from '../tick-event.js';
import { heldBecause } from './held-because.js';

// The admit phase's operator lines (docs/behaviour.md §3.4a, §3.4): the quarantine, the soak
// (a waiting digest is said once per tick, its wait's start and end become Events), the
// signature check (`SIGNATURE NOT VERIFIED for <repo>@<digest>: <why>`, kept verbatim:
// operators grep for it) and each image's verdict in the plan.

/** Each tick the registry still answers a quarantined digest (exit 0). */
export const digestQuarantined = (c: TickConfig, image: string, digest: string): TickEvent =>
  event(
    'info',
    'DIGEST_QUARANTINED',
    `${imageOf(c.topology, image).repo}: latest=${digest} is quarantined (${imageOf(c.topology, image).quarantineKey}: its rollout failed here and was rolled back); not re-applying it -- waiting for another build under tag ${c.imageTag} (image-refresh rearm lifts it)`,
  );

// The fleet halt's admission lines (docs/behaviour.md §3.4b). With FLEET_HALT_EXIT=1 a
// halt that holds a change back is a finding: its hold line is an error.

/** The tag answers a digest the halt names: not re-imaged, not recorded. */
export const digestHalted = (c: TickConfig, image: string, digest: string, reason: string): TickEvent =>
  c.fleetHalt?.exitOnHold === true
    ? event(
        'error',
        'DIGEST_HALTED',
        `ERROR: FLEET HALT holds back ${imageOf(c.topology, image).repo}@${digest} (${reason}); not re-imaging it (FLEET_HALT_EXIT=1)`,
      )
    : event(
        'info',
        'DIGEST_HALTED',
        `${imageOf(c.topology, image).repo}: latest=${digest} is halted by the fleet halt (${reason}); not re-imaging it`,
      );

/** An image that runs a halted digest goes back to the halt's pin: a re-image like any other. */
export const haltPinned = (c: TickConfig, pin: HaltPin, reason: string): TickEvent =>
  event(
    'info',
    'HALT_PIN',
    `${imageOf(c.topology, pin.image).repo}: runs ${pin.from}, which the fleet halt names (${reason}); sending it back to the halt's pin ${pin.to}`,
  );

/** It runs a halted digest and the halt gives no pin for it: it stays as it runs. */
export const haltStranded = (c: TickConfig, image: string, digest: string): TickEvent =>
  event(
    'warn',
    'HALT_NO_PIN',
    `WARN: ${imageOf(c.topology, image).repo}: runs ${digest}, which the fleet halt names, and the halt gives no pin for ${imageOf(c.topology, image).repo}: left as it runs`,
  );

/** What the halt in force decided of each answer, worded. */
export const haltAdmissionLines = (c: TickConfig, decision: HaltAdmission): TickEvent[] => [
  ...decision.halted.map((a) => digestHalted(c, a.image, a.to, decision.reason)),
  ...Object.values(decision.pins).flatMap((pin) => (pin === undefined ? [] : [haltPinned(c, pin, decision.reason)])),
  ...decision.stranded.map((s) => haltStranded(c, s.image, s.digest)),
];

/** `1h`, `20m`, `0s`: whole seconds, as an operator reads an age. */
const words = (ms: number): string => {
  const whole = Math.max(0, Math.floor(ms / 1_000) * 1_000);
  return whole === 0 ? '0s' : formatDuration(whole);
};

/**
 * `13:05Z`: UTC, said with its zone (an operator's terminal is rarely on UTC);
 * seconds only when there are some, the date only when it is not today's.
 */
export const clockTime = (atMs: number, nowMs: number): string => {
  const [day = '', time = ''] = rfc3339(atMs).replace('Z', '').split('T');
  const hhmm = time.endsWith(':00') ? time.slice(0, 5) : time;
  return `${day === rfc3339(nowMs).split('T')[0] ? hhmm : `${day} ${hhmm}`}Z`;
};

/** `(MIN_DIGEST_AGE=1h, ring 1 × RING_DELAY=1h)`: where the required age comes from. */
const requiredWords = (c: TickConfig): string =>
  `(MIN_DIGEST_AGE=${words(c.minDigestAgeMs)}, ring ${c.rolloutRing} × RING_DELAY=${words(c.ringDelayMs)})`;

const named = (c: TickConfig, image: string, digest: string): string =>
  `${imageOf(c.topology, image).repo}@${shortDigest(digest)}`;

/**
 * `shop/web@sha256:… first seen 20m ago; acting after 13:05Z
 * (MIN_DIGEST_AGE=1h, ring 1 × RING_DELAY=1h)`: once per tick per waiting
 * digest; the first tick's line has its own code, which becomes an Event.
 */
export const digestSoaking = (
  c: TickConfig,
  v: Extract<AgeVerdict, { _tag: 'TooYoung' }>,
  nowMs: number,
): TickEvent => ({
  level: 'info',
  code: v.firstSighting ? 'DIGEST_SOAK_STARTED' : 'DIGEST_SOAKING',
  message: `${named(c, v.change.image, v.change.to)} first seen ${words(nowMs - v.pending.firstSeenMs)} ago; acting after ${clockTime(v.dueMs, nowMs)} ${requiredWords(c)}`,
});

/** The wait is over: the digest goes on to the next check (and, passing it, is rolled). */
export const digestSoaked = (
  c: TickConfig,
  v: Extract<AgeVerdict, { _tag: 'OldEnough' }>,
  nowMs: number,
): TickEvent => ({
  level: 'info',
  code: 'DIGEST_SOAKED',
  message: `${named(c, v.change.image, v.change.to)} first seen ${words(nowMs - v.pending.firstSeenMs)} ago: old enough on this edge ${requiredWords(c)}; acting now`,
});

export const pendingDigestUnparsable = (c: TickConfig, v: Extract<AgeVerdict, { _tag: 'TooYoung' }>): TickEvent => ({
  level: 'warn',
  code: 'PENDING_DIGEST_UNPARSABLE',
  message: `WARN: ${imageOf(c.topology, v.change.image).pendingKey} on ${gate(c)} holds ${JSON.stringify(v.unparsable)}, not "<digest> <RFC 3339 time>"; counting ${shortDigest(v.change.to)} as first seen now.`,
});

export const pendingDigestsUnreadable = (c: TickConfig, e: PortError): TickEvent => ({
  level: 'warn',
  code: 'PENDING_DIGEST_UNREADABLE',
  message: `WARN: could not read the pending digests on ${gate(c)} (${describePortError(e)}); a changed digest whose age is unknown is not acted on, so nothing is re-imaged this tick. Will retry next tick.`,
});

export const clockUnavailable = (e: PortError): TickEvent => ({
  level: 'warn',
  code: 'CLOCK_UNAVAILABLE',
  message: `WARN: could not read the clock (${describePortError(e)}); MIN_DIGEST_AGE / ROLLOUT_RING cannot judge a changed digest's age, so nothing is re-imaged this tick. Will retry next tick.`,
});

export const pendingDigestsWriteFailed = (c: TickConfig, e: PortError): TickEvent => ({
  level: 'warn',
  code: 'PENDING_DIGEST_WRITE_FAILED',
  message: `WARN: could not write the pending digests on ${gate(c)} (${describePortError(e)}); a new digest stays held and counts as first seen on the next tick that records it.`,
});

// The operator's lines of the signature check (docs/behaviour.md §3.4a
// step 3). `SIGNATURE NOT VERIFIED for <repo>@<digest>: <why>` is the
// document's phrase, kept verbatim: operators grep for it.
const at = (repo: string, digest: string): string => `${repo}@${digest}`;

export const signatureVerified = (repo: string, digest: string, by: string): TickEvent => ({
  level: 'info',
  code: 'SIGNATURE_VERIFIED',
  message: `signature of ${at(repo, digest)} verified by ${by}`,
});

/** VERIFY_SIGNATURES=enforce (or the fleet halt's pin, always): a finding, and the image is not re-imaged. */
export const signatureRejected = (repo: string, digest: string, why: string, pin: boolean): TickEvent => ({
  level: 'error',
  code: 'SIGNATURE_REJECTED',
  message: `ERROR: SIGNATURE NOT VERIFIED for ${at(repo, digest)}: ${why}`,
  hints: pin
    ? [
        "this digest is the fleet halt's pin: it is not re-imaged unless its signature verifies, whatever VERIFY_SIGNATURES says; the other images go on.",
        'sign it with a key in SIGNATURE_PUBLIC_KEYS (or the keyless identity), or publish a halt whose pin is signed.',
      ]
    : [
        'this digest is not re-imaged (VERIFY_SIGNATURES=enforce); the other images go on.',
        'sign it with a key in SIGNATURE_PUBLIC_KEYS (or the keyless identity), or set VERIFY_SIGNATURES=warn to re-image unverified digests.',
      ],
});

/** VERIFY_SIGNATURES=warn: said loudly, re-imaged anyway. */
export const signatureNotVerifiedWarn = (repo: string, digest: string, why: string): TickEvent => ({
  level: 'warn',
  code: 'SIGNATURE_NOT_VERIFIED',
  message: `WARN: SIGNATURE NOT VERIFIED for ${at(repo, digest)}: ${why} -- re-imaging anyway (VERIFY_SIGNATURES=warn)`,
});

/** A registry failure left no verdict: a resolution failure of that image, retried next tick. */
export const signatureCheckFailed = (repo: string, digest: string, e: RegistryError): TickEvent => ({
  level: 'warn',
  code: 'SIGNATURE_CHECK_FAILED',
  message: `WARN: could not check the signature of ${at(repo, digest)} (${describePortError(e)}); not re-imaging this image this tick, the others go on. Will retry next tick.`,
  cause: e._tag,
});

/** First observation: the baseline is recorded as with `off`; the check only reports (I8). */
export const baselineSignature = (
  repo: string,
  digest: string,
  result: { readonly by: string } | { readonly why: string } | { readonly error: RegistryError },
): TickEvent =>
  'by' in result
    ? {
        level: 'info',
        code: 'SIGNATURE_BASELINE',
        message: `signature of ${at(repo, digest)}: verified by ${result.by} (first observation)`,
      }
    : {
        level: 'warn',
        code: 'SIGNATURE_BASELINE',
        message:
          'why' in result
            ? `WARN: signature of ${at(repo, digest)} not verified (first observation, nothing rolled): ${result.why}`
            : `WARN: could not check the signature of ${at(repo, digest)} (first observation, nothing rolled): ${describePortError(result.error)}`,
      };

/** The line one digest's check ends in: its judgement (judgeSignature), worded. */
export const announceSignatureCheck = (
  judgement: SignatureJudgement,
  subject: { readonly repo: string; readonly digest: string; readonly pin?: true },
): TickEvent => {
  const { repo, digest } = subject;
  switch (judgement._tag) {
    case 'Baseline': {
      const { result } = judgement;
      return baselineSignature(
        repo,
        digest,
        result._tag === 'Verified'
          ? { by: result.by }
          : result._tag === 'NotVerified'
            ? { why: result.why }
            : { error: result.error },
      );
    }
    case 'Verified':
      return signatureVerified(repo, digest, judgement.by);
    case 'Rejected':
      return signatureRejected(repo, digest, judgement.why, subject.pin === true);
    case 'Unverified':
      return signatureNotVerifiedWarn(repo, digest, judgement.why);
    case 'CheckFailed':
      return signatureCheckFailed(repo, digest, judgement.error);
  }
};

// The platform check's lines (PLATFORM_CHECK, docs/behaviour.md §3.4a step 4).
// `PLATFORM MISMATCH <repo>@<digest>: lacks linux/arm64` is the document's
// phrase, kept verbatim: operators grep for it.

/** Every platform of the recorded digest is there: the digest goes on. */
export const platformsProvided = (r: PlatformReport, platforms: readonly Platform[]): TickEvent => ({
  level: 'info',
  code: 'PLATFORMS_CHECKED',
  message: `platforms of ${at(r.repo, r.to)}: ${platforms.map(platformName).join(', ')} (every platform of the recorded ${shortDigest(r.from)} is there)`,
});

/** A platform the recorded digest provides is missing: a finding, and the image is not re-imaged. */
export const platformMismatch = (
  r: PlatformReport,
  lacking: readonly Platform[],
  provides: readonly Platform[],
): TickEvent => ({
  level: 'error',
  code: 'PLATFORM_MISMATCH',
  message: `ERROR: PLATFORM MISMATCH ${at(r.repo, r.to)}: lacks ${lacking.map(platformName).join(', ')}`,
  hints: [
    `it provides ${provides.map(platformName).join(', ')}; the recorded ${shortDigest(r.from)} ran on this edge with ${lacking.map(platformName).join(', ')} too. Not re-imaged (PLATFORM_CHECK=on), no attempt spent; the other images go on.`,
    'push the tag again for every platform (docker buildx build --platform …), or set PLATFORM_CHECK=off to take it as it is.',
  ],
});

/** A manifest could not be read: not admitted this tick (fail closed), retried next tick. */
export const platformCheckFailed = (r: PlatformReport, why: string, cause: string | undefined): TickEvent => ({
  level: 'warn',
  code: 'PLATFORM_CHECK_FAILED',
  message: `WARN: could not check the platforms of ${at(r.repo, r.to)} (${why}); not re-imaging this image this tick, the others go on. Will retry next tick.`,
  ...(cause === undefined ? {} : { cause }),
});

/** The line one digest's platform check ends in: its judgement, worded. */
export const announcePlatformCheck = (r: PlatformReport): TickEvent => {
  const { judgement } = r;
  switch (judgement._tag) {
    case 'Provides':
      return platformsProvided(r, judgement.platforms);
    case 'Lacks':
      return platformMismatch(r, judgement.lacking, judgement.provides);
    case 'Unchecked':
      return platformCheckFailed(r, judgement.why, judgement.cause);
  }
};

export const verdict = (image: ImageSpec, v: ImageVerdict, hold?: Hold, pin?: HaltPin): TickEvent => {
  switch (v._tag) {
    case 'FirstObservation':
      // Only the quarantine and the fleet halt hold a first observation (I30, I36): their own lines say why.
      return event(
        'info',
        'FIRST_OBSERVATION',
        `${image.repo}: latest=${v.digest} recorded=<unset> -- first observation; ${hold === undefined ? 'recording without re-imaging' : `held back ${heldBecause(hold)}, not recorded`}`,
      );
    case 'Unchanged':
      return event(
        'info',
        'DIGEST_UNCHANGED',
        `${image.repo}: latest=${v.digest} -- digest unchanged since last refresh; no-op`,
      );
    case 'Drift':
      // A held drift is not "needed" this tick: the line says which check held it (the check's own line says more).
      if (pin !== undefined) {
        return event(
          'info',
          'DIGEST_CHANGED',
          `${image.repo}: sending it back to the fleet halt's pin (${v.from} -> ${v.to}); ${hold === undefined ? 're-image needed' : `held back ${heldBecause(hold)}`}`,
        );
      }
      return event(
        'info',
        'DIGEST_CHANGED',
        `${image.repo}: digest changed (${v.from} -> ${v.to}); ${hold === undefined ? 're-image needed' : `held back ${heldBecause(hold)}`}`,
      );
  }
};

/** A workload pinned on its own keeps its containers of a drifted image where they are (I13). */
export const workloadPinned = (workload: { readonly id: string; readonly pinnedBy: string | undefined }): TickEvent =>
  event('info', 'WORKLOAD_PINNED', `${workload.id} is pinned by ${workload.pinnedBy}=1; not following this digest`);

/** The workloads pinned on their own that run `image`: they stay on what they run while the rest follow it. */
const pinnedFollowersOf = (c: TickConfig, image: string) =>
  imageOf(c.topology, image).pinned
    ? []
    : c.topology.workloads.filter((w) => w.pinned && w.containers.some((m) => m.image === image));

const ownerText = (owner: string | undefined): string => (owner === undefined ? '' : ` (set by ${owner})`);

export const liveDrift = (c: TickConfig, f: LiveFinding): TickEvent => {
  const where = `${describeWorkload(workloadOf(c.topology, f.workload))} container ${f.container}`;
  const followed = imageOf(c.topology, f.image);
  const pinned = `${followed.repo}@${f.recorded}`;
  const gateId = c.topology.gate.id;
  const skewedFromGate = f.workload !== gateId && c.topology.gate.containers.some((m) => m.image === f.image);
  const repair =
    f.recordedQuarantined === true
      ? `not re-pinning it: the recorded digest is the one quarantined (${followed.quarantineKey}), a build whose rollout failed here`
      : f.recordedHalted === true
        ? 'not re-pinning it: the recorded digest is one the fleet halt in force names'
        : c.reconcileLive === 'repair'
          ? 're-pinning it through the guarded re-image path (attempt counter, flap ceiling)'
          : 'RECONCILE_LIVE=1 would re-pin it';
  switch (f.kind) {
    case 'reverted':
      return event(
        'warn',
        'LIVE_DRIFT',
        `WARN: ${where} runs ${f.live}${ownerText(f.owner)}, not ${pinned} that image-refresh pinned: a Helm re-render (or a hand edit) undid the pin; ${repair}`,
      );
    case 'otherDigest':
      return event(
        'warn',
        'LIVE_DRIFT',
        skewedFromGate
          ? `WARN: ${where} runs ${f.live}${ownerText(f.owner)}, another build than ${gateId}'s recorded ${pinned} (${f.workload} / ${gateId} skew); ${repair}`
          : `WARN: ${where} runs ${f.live}${ownerText(f.owner)}, not the recorded ${pinned}; ${repair}`,
      );
    case 'foreign':
      return event(
        'warn',
        'LIVE_DRIFT',
        `WARN: ${where} runs ${f.live}${ownerText(f.owner)}, not an image of ${followed.repo}: changed on purpose, so image-refresh leaves it alone`,
      );
  }
};

/** What the soak says of each changed digest it judged: soaked, or still soaking (and a pending record it could not read). */
export const digestAgeLines = (c: TickConfig, decision: DigestAgeDecision, nowMs: number): TickEvent[] =>
  decision.verdicts.flatMap((v) =>
    v._tag === 'OldEnough'
      ? [digestSoaked(c, v, nowMs)]
      : [...(v.unparsable === undefined ? [] : [pendingDigestUnparsable(c, v)]), digestSoaking(c, v, nowMs)],
  );

/** Each image's verdict in the plan (with the check that held it, if one did), then what runs live. */
export const planLines = (c: TickConfig, plan: RefreshPlan, holds: Holds, pins: HaltPins = {}): TickEvent[] => [
  ...plan.verdicts.flatMap((v) => [
    verdict(imageOf(c.topology, v.image), v, holds[v.image], pins[v.image]),
    ...(v._tag === 'Drift' ? pinnedFollowersOf(c, v.image).map(workloadPinned) : []),
  ]),
  ...plan.live.map((finding) => liveDrift(c, finding)),
];
