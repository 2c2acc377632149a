// I19: a digest that is not a well-formed OCI digest never reaches a pod spec
// or an annotation. Of the OCI image-spec descriptor grammar (`algorithm ":"
// encoded`) only the registered algorithms are accepted, each with its exact
// length, so one anchored pattern per algorithm is the whole check: a general
// grammar test in front of them rejected nothing they accept. (A lookup of the
// algorithm in a plain object also found `constructor` and threw.)
const REGISTERED: readonly RegExp[] = [/^sha256:[a-f0-9]{64}$/, /^sha512:[a-f0-9]{128}$/];

/** A string {@link isWellFormedDigest} accepted: only these reach a pod spec or an annotation (I19). */
export type Digest = string & { readonly __brand: 'Digest' };

/**
 * Is this a well-formed OCI digest (`algorithm:encoded`) of a registered
 * algorithm with the right length — sha256 with 64 lowercase hex, sha512
 * with 128? Anything else from a registry is a resolution failure (I19).
 */
export const isWellFormedDigest = (value: string): value is Digest => REGISTERED.some((pattern) => pattern.test(value));

/** `sha256:0123456789ab…` — enough to tell digests apart in a log line. */
export const shortDigest = (digest: string): string => {
  const colon = digest.indexOf(':');
  return colon < 0 || digest.length <= colon + 13 ? digest : `${digest.slice(0, colon + 13)}…`;
};
