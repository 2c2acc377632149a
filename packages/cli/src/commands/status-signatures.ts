import {
  describePortError,
  type ImageSpec,
  isWellFormedDigest,
  type RegistryError,
  type Resolution,
  shortDigest,
  signatureModeOf,
  type TickConfig,
} from '@image-refresh/core';
import * as E from 'fp-ts/lib/Either.js';
import type { Connection } from '../connection.js';
import type { SignatureTrust } from '../wiring/signature-trust.js';

// `status` says per image whether the digest behind the tag is
// signed by a key (or identity) this edge trusts: verified (by which), not
// verified (why), or not checked (why not). Only with VERIFY_SIGNATURES ≠
// off, and only of the digest the registry pass already answered: one check
// per unpinned image, nothing when --no-registry.

export type StatusSignature =
  | { readonly state: 'off'; readonly digest: null; readonly by: null; readonly why: string }
  | { readonly state: 'verified'; readonly digest: string; readonly by: string; readonly why: null }
  | { readonly state: 'notVerified'; readonly digest: string; readonly by: null; readonly why: string }
  | { readonly state: 'notChecked'; readonly digest: string | null; readonly by: null; readonly why: string };

/** VERIFY_SIGNATURES=off: `status --json` still has the field (a field is never left out), saying so. */
export const SIGNATURES_OFF: StatusSignature = { state: 'off', digest: null, by: null, why: 'VERIFY_SIGNATURES=off' };

const notChecked = (why: string, digest: string | null = null): StatusSignature => ({
  state: 'notChecked',
  digest,
  by: null,
  why,
});

/** image → what its signature check says; undefined with VERIFY_SIGNATURES=off (status says nothing of signatures). */
export const checkSignaturesForStatus = async (
  connection: Connection,
  config: TickConfig,
  trust: SignatureTrust | undefined,
  images: readonly ImageSpec[],
  answerFor: (image: ImageSpec) => E.Either<RegistryError, Resolution> | undefined,
): Promise<((image: ImageSpec) => StatusSignature) | undefined> => {
  // The trust may be loaded for FLEET_HALT_REF alone: images' signatures are said only with VERIFY_SIGNATURES on.
  if (trust === undefined || signatureModeOf(config) === 'off') return undefined;
  const port = connection.ports({
    onProgress: () => undefined,
    onRateLimit: () => undefined,
    signatureTrust: trust,
  }).signatures;
  const checked = new Map<string, StatusSignature>();
  for (const image of images) {
    if (image.pinned || !config.topology.managed.some((m) => m.image === image.name)) {
      checked.set(image.name, notChecked('pinned'));
      continue;
    }
    const answer = answerFor(image);
    if (answer === undefined) checked.set(image.name, notChecked('the registry was not asked (--no-registry)'));
    else if (E.isLeft(answer)) checked.set(image.name, notChecked(`the tag did not resolve (${answer.left._tag})`));
    else if (!isWellFormedDigest(answer.right.digest)) checked.set(image.name, notChecked('malformed registry answer'));
    else if (port === undefined) checked.set(image.name, notChecked('no signature port', answer.right.digest));
    else {
      const { digest } = answer.right;
      const check = await port.verify({ host: image.host, repo: image.repo, digest })();
      checked.set(
        image.name,
        E.isLeft(check)
          ? notChecked(`the registry failed: ${describePortError(check.left)}`, digest)
          : check.right._tag === 'Verified'
            ? { state: 'verified', digest, by: check.right.by, why: null }
            : { state: 'notVerified', digest, by: null, why: check.right.why },
      );
    }
  }
  return (image) => checked.get(image.name) ?? notChecked('not asked');
};

/** One line of `status`'s signatures table. */
export const signatureText = (s: StatusSignature): string => {
  const at = s.digest === null ? '' : `${shortDigest(s.digest)} `;
  switch (s.state) {
    case 'verified':
      return `${at}verified by ${s.by}`;
    case 'notVerified':
      return `${at}NOT verified: ${s.why}`;
    case 'notChecked':
      return `${at}not checked: ${s.why}`;
    case 'off':
      return `not checked: ${s.why}`;
  }
};
