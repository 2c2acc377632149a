import * as E from 'fp-ts/lib/Either.js';

// A signature counts only when what it signs names exactly the digest being
// verified: a valid signature of another digest is a replay, not a
// verification. Two payloads name a digest:
//   - cosign's simple-signing payload (sigstore/cosign specs/SIGNATURE_SPEC
//     "Simple Signing"): critical.image.docker-manifest-digest, its keys
//     matched case-insensitively as Go's encoding/json does (the spec's own
//     example writes `Docker-manifest-digest`), critical.type the cosign type;
//   - an in-toto statement (cosign's new bundle format signs one with
//     predicate https://sigstore.dev/cosign/sign/v1): a subject whose digest
//     map has this algorithm and hex.

export const SIMPLE_SIGNING_MEDIA_TYPE = 'application/vnd.dev.cosign.simplesigning.v1+json';
export const IN_TOTO_PAYLOAD_TYPE = 'application/vnd.in-toto+json';
const COSIGN_SIGNATURE_TYPE = 'cosign container image signature';
const SHOWN = 80;

type Judged = E.Either<string, void>;

const parse = (text: string): E.Either<string, unknown> => {
  try {
    return E.right(JSON.parse(text));
  } catch (_notJson) {
    return E.left('its payload is not JSON');
  }
};

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Go's encoding/json: a key matches a field case-insensitively; of several matches the last one wins. */
const goField = (value: unknown, name: string): unknown => {
  if (!isObject(value)) return undefined;
  let found: unknown;
  for (const [key, field] of Object.entries(value)) if (key.toLowerCase() === name) found = field;
  return found;
};

const shown = (value: unknown): string => JSON.stringify(value)?.slice(0, SHOWN) ?? String(value);

/** A cosign simple-signing payload naming exactly `digest`, or why not. */
export const simpleSigningNames = (payload: string, digest: string): Judged => {
  const json = parse(payload);
  if (E.isLeft(json)) return json;
  const critical = goField(json.right, 'critical');
  const type = goField(critical, 'type');
  if (type !== COSIGN_SIGNATURE_TYPE)
    return E.left(`its payload's critical.type is ${shown(type)}, not a cosign signature`);
  const named = goField(goField(critical, 'image'), 'docker-manifest-digest');
  if (named === digest) return E.right(undefined);
  return E.left(
    typeof named === 'string'
      ? `it signs another digest, ${shown(named)} (a replay of another image's signature)`
      : 'its payload names no docker-manifest-digest',
  );
};

/** An in-toto statement with a subject of exactly `digest`, or why not. */
export const inTotoNames = (payload: string, digest: string): Judged => {
  const json = parse(payload);
  if (E.isLeft(json)) return json;
  const subjects = isObject(json.right) ? json.right.subject : undefined;
  if (!Array.isArray(subjects) || subjects.length === 0) return E.left('its in-toto statement has no subject');
  const colon = digest.indexOf(':');
  const algorithm = digest.slice(0, colon);
  const hex = digest.slice(colon + 1);
  const digests = subjects.map((s: unknown) => (isObject(s) ? s.digest : undefined));
  if (digests.some((d) => isObject(d) && typeof d[algorithm] === 'string' && d[algorithm].toLowerCase() === hex)) {
    return E.right(undefined);
  }
  return E.left(`its in-toto subjects name other digests (${shown(digests)}), not ${digest}`);
};
