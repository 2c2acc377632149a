// I19: a digest that is not a well-formed OCI digest never reaches a pod spec
// or an annotation. The grammar is the OCI image-spec descriptor digest
// (`algorithm ":" encoded`); the registered algorithms are length-checked.

const GRAMMAR = /^[a-z0-9]+(?:[+._-][a-z0-9]+)*:[a-zA-Z0-9=_-]+$/;
const REGISTERED: Readonly<Record<string, RegExp>> = {
  sha256: /^[a-f0-9]{64}$/,
  sha512: /^[a-f0-9]{128}$/,
};

/** A string {@link isWellFormedDigest} accepted: only these reach a pod spec or an annotation (I19). */
export type Digest = string & { readonly __brand: 'Digest' };

/**
 * Is this a well-formed OCI digest (`algorithm:encoded`) of a registered
 * algorithm with the right length — sha256 with 64 lowercase hex, sha512
 * with 128? Anything else from a registry is a resolution failure (I19).
 */
export const isWellFormedDigest = (value: string): value is Digest => {
  if (!GRAMMAR.test(value)) return false;
  const colon = value.indexOf(':');
  const algorithm = value.slice(0, colon);
  const encoded = value.slice(colon + 1);
  const registered = REGISTERED[algorithm];
  return registered === undefined ? false : registered.test(encoded);
};

/** `sha256:0123456789ab…` — enough to tell digests apart in a log line. */
export const shortDigest = (digest: string): string => {
  const colon = digest.indexOf(':');
  return colon < 0 || digest.length <= colon + 13 ? digest : `${digest.slice(0, colon + 13)}…`;
};
