// What a signature check is asked and answers (docs/behaviour.md §3.4a step 3),
// as values: the port (ports/signature-port.ts) carries them, the admission
// step (signature-admission.ts) judges them.

/** Where the verifying signature was found: cosign's `.sig` tag, or a sigstore bundle. */
export type SignatureFormat = 'cosign-sig-tag' | 'sigstore-bundle';

/** One image's resolved digest to check, e.g. `shop/web` and `sha256:…`. */
export interface SignatureTarget {
  /** The registry host (`docker.io` for Docker Hub): signatures are read where the image lives. */
  readonly host: string;
  /** The repository on the registry, without the registry host. */
  readonly repo: string;
  /** The manifest digest the tag resolved to: a signature counts only when its payload names exactly this. */
  readonly digest: string;
}

/** The registry's final word on one digest's signatures, judged. */
export type SignatureVerdict =
  /** A signature over a payload naming exactly this digest verified with `by` (a key file, or an identity and issuer). */
  | { readonly _tag: 'Verified'; readonly by: string; readonly format: SignatureFormat }
  /** No signature verified; `why` says what was found and why each failed. */
  | { readonly _tag: 'NotVerified'; readonly why: string };
