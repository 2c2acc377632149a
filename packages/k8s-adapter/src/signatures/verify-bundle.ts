import * as E from 'fp-ts/lib/Either.js';
import {
  IN_TOTO_PAYLOAD_TYPE,
  inTotoNames,
  SIMPLE_SIGNING_MEDIA_TYPE,
  simpleSigningNames,
} from './payload-names-digest.js';
import type { TrustedKey } from './public-keys.js';

// One sigstore bundle judged offline with @sigstore/verify 3.1 (the last line
// that runs on Node 20), loaded only here, when a bundle must be verified:
// with VERIFY_SIGNATURES=off, or on images signed the `.sig` way, the steady
// tick never loads it. Nothing here reaches the network: no
// Rekor, Fulcio or TUF — the trust material is the configured keys, or the
// mounted trusted root.
//
// What counts: a DSSE envelope whose payload names this digest (an in-toto
// statement's subject — cosign's new bundle format signs one — or a
// simple-signing payload). A message-signature bundle signs a blob's digest
// and names no image: it does not count.
//
// A key-based bundle is trusted on the key alone: its transparency-log
// entries and timestamps are set aside, as `cosign verify --key` does without
// a trusted root (they would need one).

/** Keyless trust: SIGSTORE_TRUSTED_ROOT (parsed), SIGNATURE_IDENTITY, SIGNATURE_ISSUER. */
export interface KeylessTrust {
  /** The parsed trusted_root.json (SIGSTORE_TRUSTED_ROOT). */
  readonly trustedRoot: unknown;
  /** SIGNATURE_IDENTITY: the certificate SAN, exactly or as a regular expression. */
  readonly identity: { readonly exact: string } | { readonly pattern: RegExp };
  /** SIGNATURE_ISSUER: the OIDC issuer in the certificate. */
  readonly issuer: string;
}

export interface BundleTrust {
  readonly keys: readonly TrustedKey[];
  readonly keyless: KeylessTrust | undefined;
}

/** Who verified it (a key id, or `identity` from `issuer`), or why it does not count. */
export type BundleJudgement = E.Either<string, string>;

const EMPTY_ROOT = { mediaType: '', tlogs: [], certificateAuthorities: [], ctlogs: [], timestampAuthorities: [] };
const KEY_ONLY = { tlogThreshold: 0, ctlogThreshold: 0, timestampThreshold: 0 };

const reason = (error: unknown): string => (error instanceof Error ? error.message : String(error));

const identityMatches = (identity: KeylessTrust['identity'], san: string | undefined): boolean =>
  san !== undefined && ('exact' in identity ? san === identity.exact : identity.pattern.test(san));

export const verifyBundle = async (json: string, digest: string, trust: BundleTrust): Promise<BundleJudgement> => {
  const [{ bundleFromJSON }, { TrustedRoot }, { Verifier, toSignedEntity, toTrustMaterial }] = await Promise.all([
    import('@sigstore/bundle'),
    import('@sigstore/protobuf-specs'),
    import('@sigstore/verify'),
  ]);
  let bundle: ReturnType<typeof bundleFromJSON>;
  try {
    bundle = bundleFromJSON(JSON.parse(json));
  } catch (error) {
    return E.left(`it is not a sigstore bundle (${reason(error)})`);
  }
  if (bundle.content.$case !== 'dsseEnvelope') {
    return E.left('it is a message-signature bundle, which signs a blob and names no image digest');
  }
  const envelope = bundle.content.dsseEnvelope;
  const payload = Buffer.from(envelope.payload).toString('utf8');
  const names =
    envelope.payloadType === IN_TOTO_PAYLOAD_TYPE
      ? inTotoNames(payload, digest)
      : envelope.payloadType === SIMPLE_SIGNING_MEDIA_TYPE
        ? simpleSigningNames(payload, digest)
        : E.left(`its payload type ${JSON.stringify(envelope.payloadType)} names no image digest`);

  const material = bundle.verificationMaterial.content;
  let judged: BundleJudgement;
  if (material.$case === 'publicKey') {
    if (trust.keys.length === 0) return E.left('it is signed with a key, and no public key is configured');
    const keyOnly = {
      ...bundle,
      verificationMaterial: { ...bundle.verificationMaterial, tlogEntries: [], timestampVerificationData: undefined },
    };
    const entity = toSignedEntity(keyOnly);
    const key = trust.keys.find((k) => {
      const material = toTrustMaterial(TrustedRoot.fromJSON(EMPTY_ROOT), () => ({
        publicKey: k.key,
        validFor: () => true,
      }));
      try {
        new Verifier(material, KEY_ONLY).verify(entity);
        return true;
      } catch (_doesNotVerify) {
        // This key is not the signer's: try the next (rotation).
        return false;
      }
    });
    judged =
      key === undefined
        ? E.left(`its signature verifies with none of the ${trust.keys.length} configured key(s)`)
        : E.right(key.id);
  } else {
    const keyless = trust.keyless;
    if (keyless === undefined)
      return E.left(
        'it is signed keyless (a certificate), and no SIGNATURE_IDENTITY with a trusted root is configured',
      );
    try {
      const material = toTrustMaterial(TrustedRoot.fromJSON(keyless.trustedRoot));
      const signer = new Verifier(material).verify(toSignedEntity(bundle), { extensions: { issuer: keyless.issuer } });
      const san = signer.identity?.subjectAlternativeName;
      judged = identityMatches(keyless.identity, san)
        ? E.right(`${san} (issuer ${keyless.issuer})`)
        : E.left(`it is signed by ${JSON.stringify(san)}, not the configured SIGNATURE_IDENTITY`);
    } catch (error) {
      judged = E.left(`it does not verify against the trusted root: ${reason(error)}`);
    }
  }
  if (E.isLeft(judged)) return judged;
  return E.isRight(names) ? judged : E.left(`signed by ${judged.right}, but ${names.left}`);
};
