import {
  ANNOTATION,
  counterValue,
  describePortError,
  describeWorkload,
  IMAGES,
  isWellFormedDigest,
  type PortError,
  type TickConfig,
  type WorkloadId,
  workloadRef,
} from '@image-refresh/core';
import * as E from 'fp-ts/lib/Either.js';
import * as O from 'fp-ts/lib/Option.js';
import type { Connect, WorkloadInspection } from '../connection.js';
import { pendingDigests } from '../render/pending-digests.js';
import type { SignatureTrust } from '../wiring/signature-trust.js';
import type { CommandResult, Output } from './command.js';
import { haltJson, readHaltForStatus } from './status-halt.js';
import { inspectRelease, LIVE, resolveForStatus } from './status-reads.js';
import { checkSignaturesForStatus, SIGNATURES_OFF } from './status-signatures.js';

// `status --json`: the facts `status` prints, as one JSON object on stdout for
// fleet tooling. The field names are a contract, documented in
// docs/metrics.md; a field is null where status says "cannot read it"
// or "not asked", never left out.

type Either<A> = E.Either<PortError, A>;

const errorOf = (e: PortError) => ({ tag: e._tag, message: describePortError(e) });

const workloadFacts = (config: TickConfig, id: WorkloadId, inspection: Either<WorkloadInspection>) => {
  const ref = workloadRef(config, id);
  if (E.isLeft(inspection))
    return {
      workload: describeWorkload(ref),
      readable: false,
      settled: null,
      message: null,
      error: errorOf(inspection.left),
    };
  const s = inspection.right.settledness;
  return {
    workload: describeWorkload(ref),
    readable: true,
    settled: s._tag === 'Settled' ? 'settled' : s._tag === 'Waiting' ? 'waiting' : 'failed',
    message: s._tag === 'Settled' ? s.message : s.reason,
    error: null,
  };
};

const counterFacts = (raw: string | undefined, max: number) => ({
  value: counterValue(O.fromNullable(raw)),
  max,
  annotation: raw ?? null,
});

export const statusJson = async (
  options: {
    noRegistry?: boolean | undefined;
    signatureTrust?: SignatureTrust | undefined;
    /** The wall clock the halt's expiry is judged at; now by default. */
    nowMs?: number | undefined;
  },
  config: TickConfig,
  connect: Connect,
  out: Output,
): Promise<CommandResult> => {
  const connection = connect(config);
  const inspected = await inspectRelease(connection, config);
  const head = {
    release: config.releaseName,
    namespace: config.releaseNamespace,
    cluster: connection.source,
    workloads: Object.fromEntries(
      (Object.keys(inspected) as (keyof typeof inspected)[]).map((id) => [
        id,
        workloadFacts(config, id, inspected[id]),
      ]),
    ),
  };
  const jm = inspected['jobs-manager'];
  if (E.isLeft(jm)) {
    // As `status`: said, and exit 0 (issue 5); nothing below can be known.
    out.stdout(
      JSON.stringify({
        ...head,
        skipStreak: null,
        refreshAttempt: null,
        flapDetected: null,
        images: null,
        quarantined: null,
        pending: null,
        halt: null,
      }),
    );
    return { exitCode: 0 };
  }
  const a = jm.right.annotations;
  const answerFor = await resolveForStatus(connection, config, options.noRegistry === true);
  const signatureOf = await checkSignaturesForStatus(connection, config, options.signatureTrust, IMAGES, answerFor);
  const images = IMAGES.map((image) => {
    const recorded = a[image.recordKey] ?? null;
    const answer = answerFor(image);
    const registry = config.pins[image.pin]
      ? { state: 'pinned', digest: null, drift: null, error: null }
      : answer === undefined
        ? { state: 'notAsked', digest: null, drift: null, error: null }
        : E.isLeft(answer)
          ? {
              state: 'unknown',
              digest: null,
              drift: null,
              error: { tag: answer.left._tag, message: answer.left.message },
            }
          : isWellFormedDigest(answer.right.digest)
            ? {
                state: 'resolved',
                digest: answer.right.digest,
                drift: recorded !== null && recorded !== answer.right.digest,
                error: null,
              }
            : { state: 'malformed', digest: null, drift: null, error: null };
    const live = Object.fromEntries(
      LIVE[image.name].map(({ workload, container }) => {
        const inspection = inspected[workload];
        return [container, E.isRight(inspection) ? (inspection.right.images[container] ?? null) : null];
      }),
    );
    return {
      image: image.name,
      repo: image.repo,
      recorded,
      registry,
      live,
      // Never left out: with VERIFY_SIGNATURES=off it says so (state "off").
      signature: signatureOf === undefined ? SIGNATURES_OFF : signatureOf(image),
    };
  });
  out.stdout(
    JSON.stringify({
      ...head,
      skipStreak: counterFacts(a[ANNOTATION.skipStreak], config.maxSkipTicks),
      refreshAttempt: counterFacts(a[ANNOTATION.refreshAttempt], config.maxRefreshAttempts),
      flapDetected: a[ANNOTATION.flapDetected] ?? null,
      images,
      // Issue 16: image → the digest quarantined after a rollback (ON_ROLLOUT_FAILURE=revert), or null.
      quarantined: Object.fromEntries(IMAGES.map((image) => [image.name, a[image.quarantineKey] ?? null])),
      // Issue 17: the digests soaking on this edge and when each becomes due.
      pending: pendingDigests(config, a),
      // docs/behaviour.md §3.4b: the fleet halt as a tick would judge it now; null with FLEET_HALT_REF unset.
      halt: haltJson(
        await readHaltForStatus(
          connection,
          config,
          options.signatureTrust,
          a,
          options.noRegistry === true,
          options.nowMs ?? Date.now(),
        ),
      ),
    }),
  );
  return { exitCode: 0 };
};
