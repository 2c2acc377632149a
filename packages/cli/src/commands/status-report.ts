import {
  counterValue,
  describePortError,
  describeWorkload,
  type ImageSpec,
  isWellFormedDigest,
  type PortError,
  type RegistryError,
  type Resolution,
  type TickConfig,
} from '@image-refresh/core';
import * as E from 'fp-ts/lib/Either.js';
import * as O from 'fp-ts/lib/Option.js';
import type { Connection, WorkloadInspection } from '../connection.js';
import { type PendingFacts, pendingDigests } from '../render/pending-digests.js';
import { type WindowFacts, windowFacts } from '../render/window-status.js';
import type { SignatureTrust } from '../wiring/signature-trust.js';
import { readHaltForStatus, type StatusHalt } from './status-halt.js';
import { readPromotionForStatus, type StatusPromotion } from './status-promotion.js';
import { checkSignaturesForStatus, SIGNATURES_OFF, type StatusSignature } from './status-signatures.js';

// The one report `status` and `status --json` render (docs/metrics.md,
// "status --json"): every workload of the topology read once (the gate's
// read is the bookkeeping's), the registry asked once for the unpinned images
// unless --no-registry, and the facts each line and each field is made of.
// Reads only.

/** A workload as status reports it: readable or not, settled or not, and why. */
export interface WorkloadFacts {
  readonly workload: string;
  readonly readable: boolean;
  readonly settled: 'settled' | 'waiting' | 'failed' | null;
  readonly message: string | null;
  readonly error: { readonly tag: string; readonly message: string } | null;
}

/** A counter annotation as read: its value as the tick counts it, its ceiling, and what it holds. */
export interface CounterFacts {
  readonly value: number;
  readonly max: number;
  readonly annotation: string | null;
}

/** What the registry said of an image's tag. */
export interface RegistryFacts {
  readonly state: 'pinned' | 'notAsked' | 'unknown' | 'resolved' | 'malformed';
  readonly digest: string | null;
  readonly drift: boolean | null;
  readonly error: { readonly tag: string; readonly message: string } | null;
}

/** One followed image: its record, the registry's answer, what each container of it runs, its signature. */
export interface ImageFacts {
  readonly image: string;
  readonly repo: string;
  readonly recorded: string | null;
  readonly registry: RegistryFacts;
  /** container → the image reference it runs now (null: its workload could not be read). */
  readonly live: Readonly<Record<string, string | null>>;
  readonly signature: StatusSignature;
}

/** Everything `status` says; the bookkeeping parts are null when the gate could not be read. */
export interface StatusReport {
  readonly release: string | null;
  readonly namespace: string;
  readonly cluster: string;
  readonly workloads: Readonly<Record<string, WorkloadFacts>>;
  readonly skipStreak: CounterFacts | null;
  readonly refreshAttempt: CounterFacts | null;
  /** MAX_RESOLVE_FAILURE_TICKS: ticks in a row the registry left an image unanswered; undefined with `off` (I46). */
  readonly resolveFailureStreak?: CounterFacts | null;
  readonly flapDetected: string | null;
  readonly images: readonly ImageFacts[] | null;
  /** image → the digest quarantined after a rollback (ON_ROLLOUT_FAILURE=revert), or null. */
  readonly quarantined: Readonly<Record<string, string | null>> | null;
  /** The digests soaking on this edge and when each becomes due (MIN_DIGEST_AGE, ROLLOUT_RING). */
  readonly pending: readonly PendingFacts[] | null;
  /** The fleet halt as a tick would judge it now; undefined with FLEET_HALT_REF unset (docs/behaviour.md §3.4b). */
  readonly halt: StatusHalt | undefined;
  /** The fleet promotion as a tick of this ring would judge it now; undefined when none is read here (docs/fleet-promotion.md). */
  readonly promotion: StatusPromotion | undefined;
  /** VERIFY_SIGNATURES ≠ off: the signatures were checked (the text says them only then). */
  readonly signaturesChecked: boolean;
  /** MAINTENANCE_WINDOW: where the edge stands in its windows now (docs/behaviour.md §3.4d); absent when unset. */
  readonly window?: WindowFacts | null;
}

const errorOf = (e: PortError) => ({ tag: e._tag, message: describePortError(e) });

const workloadFacts = (name: string, inspection: E.Either<PortError, WorkloadInspection>): WorkloadFacts => {
  if (E.isLeft(inspection)) {
    return { workload: name, readable: false, settled: null, message: null, error: errorOf(inspection.left) };
  }
  const s = inspection.right.settledness;
  return {
    workload: name,
    readable: true,
    settled: s._tag === 'Settled' ? 'settled' : s._tag === 'Waiting' ? 'waiting' : 'failed',
    message: s._tag === 'Settled' ? s.message : s.reason,
    error: null,
  };
};

const counterFacts = (raw: string | undefined, max: number): CounterFacts => ({
  value: counterValue(O.fromNullable(raw)),
  max,
  annotation: raw ?? null,
});

/** An image the tick follows on this edge: not pinned, and run by a container that is not pinned either. */
const isFollowed = (config: TickConfig, image: ImageSpec): boolean =>
  !image.pinned && config.topology.managed.some((m) => m.image === image.name);

/** image → the registry's answer; undefined for a pinned image or one not asked. */
const resolveForStatus = async (
  connection: Connection,
  config: TickConfig,
  noRegistry: boolean,
): Promise<(image: ImageSpec) => E.Either<RegistryError, Resolution> | undefined> => {
  const unpinned = config.topology.images.filter((i) => isFollowed(config, i));
  const answers =
    noRegistry || unpinned.length === 0
      ? []
      : await connection
          .ports({ onProgress: () => undefined, onRateLimit: () => undefined })
          .registry.resolveDigests(unpinned.map(({ host, repo, tag }) => ({ host, repo, tag })))();
  return (image) => (isFollowed(config, image) ? answers[unpinned.indexOf(image)] : undefined);
};

const registryFacts = (
  config: TickConfig,
  image: ImageSpec,
  recorded: string | null,
  answer: E.Either<RegistryError, Resolution> | undefined,
): RegistryFacts => {
  if (!isFollowed(config, image)) return { state: 'pinned', digest: null, drift: null, error: null };
  if (answer === undefined) return { state: 'notAsked', digest: null, drift: null, error: null };
  if (E.isLeft(answer)) {
    return {
      state: 'unknown',
      digest: null,
      drift: null,
      error: { tag: answer.left._tag, message: answer.left.message },
    };
  }
  return isWellFormedDigest(answer.right.digest)
    ? {
        state: 'resolved',
        digest: answer.right.digest,
        drift: recorded !== null && recorded !== answer.right.digest,
        error: null,
      }
    : { state: 'malformed', digest: null, drift: null, error: null };
};

/** What status asks of the world: read-only, with the clock the halt's expiry is judged at. */
export interface StatusOptions {
  readonly noRegistry?: boolean | undefined;
  readonly signatureTrust?: SignatureTrust | undefined;
  /** The wall clock the halt's expiry is judged at; now by default. */
  readonly nowMs?: number | undefined;
}

/** Read the edge once and make the report both renderings print. */
export const statusReport = async (
  options: StatusOptions,
  config: TickConfig,
  connection: Connection,
): Promise<StatusReport> => {
  const { topology } = config;
  const inspected = new Map<string, E.Either<PortError, WorkloadInspection>>();
  for (const w of topology.workloads) inspected.set(w.id, await connection.inspect(w));
  const inspectionOf = (id: string): E.Either<PortError, WorkloadInspection> =>
    inspected.get(id) ?? E.left({ _tag: 'NotFound', message: `${id} was not read` });
  const head = {
    release: topology.profile.release ?? null,
    namespace: topology.gate.namespace,
    cluster: connection.source,
    workloads: Object.fromEntries(
      topology.workloads.map((w) => [w.id, workloadFacts(describeWorkload(w), inspectionOf(w.id))]),
    ),
  };
  const gate = inspectionOf(topology.gate.id);
  if (E.isLeft(gate)) {
    // Status is a report for a human and exits 0 once it has said
    // what it sees, an unreadable gate included; nothing below can be known.
    return {
      ...head,
      skipStreak: null,
      refreshAttempt: null,
      ...(config.maxResolveFailureTicks === 'off' ? {} : { resolveFailureStreak: null }),
      flapDetected: null,
      images: null,
      quarantined: null,
      pending: null,
      halt: undefined,
      promotion: undefined,
      signaturesChecked: false,
      ...(config.maintenanceWindow === undefined ? {} : { window: null }),
    };
  }
  const a = gate.right.annotations;
  const answerFor = await resolveForStatus(connection, config, options.noRegistry === true);
  const signatureOf = await checkSignaturesForStatus(
    connection,
    config,
    options.signatureTrust,
    topology.images,
    answerFor,
  );
  const images = topology.images.map((image): ImageFacts => {
    const recorded = a[image.recordKey] ?? null;
    const live = Object.fromEntries(
      topology.workloads.flatMap((w) =>
        w.containers
          .filter((m) => m.image === image.name)
          .map(({ container }) => {
            const inspection = inspectionOf(w.id);
            return [container, E.isRight(inspection) ? (inspection.right.images[container] ?? null) : null] as const;
          }),
      ),
    );
    return {
      image: image.name,
      repo: image.repo,
      recorded,
      registry: registryFacts(config, image, recorded, answerFor(image)),
      live,
      // Never left out: with VERIFY_SIGNATURES=off it says so (state "off").
      signature: signatureOf === undefined ? SIGNATURES_OFF : signatureOf(image),
    };
  });
  return {
    ...head,
    skipStreak: counterFacts(a[topology.keys.skipStreak], config.maxSkipTicks),
    refreshAttempt: counterFacts(a[topology.keys.refreshAttempt], config.maxRefreshAttempts),
    ...(config.maxResolveFailureTicks === 'off'
      ? {}
      : { resolveFailureStreak: counterFacts(a[topology.keys.resolveFailureStreak], config.maxResolveFailureTicks) }),
    flapDetected: a[topology.keys.flapDetected] ?? null,
    images,
    quarantined: Object.fromEntries(topology.images.map((image) => [image.name, a[image.quarantineKey] ?? null])),
    pending: pendingDigests(config, a),
    ...(config.maintenanceWindow === undefined
      ? {}
      : { window: windowFacts(config, a, options.nowMs ?? Date.now()) ?? null }),
    halt: await readHaltForStatus(
      connection,
      config,
      options.signatureTrust,
      a,
      options.noRegistry === true,
      options.nowMs ?? Date.now(),
    ),
    promotion: await readPromotionForStatus(
      connection,
      config,
      options.signatureTrust,
      a,
      images.flatMap((i) =>
        i.registry.drift === true && i.registry.digest !== null ? [{ image: i.image, digest: i.registry.digest }] : [],
      ),
      options.noRegistry === true,
      options.nowMs ?? Date.now(),
    ),
    signaturesChecked: signatureOf !== undefined,
  };
};
