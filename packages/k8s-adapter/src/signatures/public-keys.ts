import { createPublicKey, type KeyObject } from 'node:crypto';
import * as E from 'fp-ts/lib/Either.js';

// SIGNATURE_PUBLIC_KEYS, one file's text → the keys it holds. Pure:
// the CLI reads the files and exits 2 on a Left, naming the variable; this
// names the file and what is wrong, never the file's content (a private key
// pasted by mistake must not reach a log line).

/** The key types a `.sig` signature and a key-based bundle verify with (verify-with-key.ts). */
export type KeyKind = 'ecdsa-p256' | 'ecdsa-p384' | 'ecdsa-p521' | 'rsa' | 'ed25519';

/** One public key a signature may verify with; `id` is what `Verified.by` names. */
export interface TrustedKey {
  /** The file, with `#2`, `#3`… for the further keys of a file holding several: what `Verified.by` says. */
  readonly id: string;
  readonly kind: KeyKind;
  readonly key: KeyObject;
}

/** A SIGNATURE_PUBLIC_KEYS file that holds no usable public key; `message` names the file, never its content. */
export interface KeyFileError {
  readonly _tag: 'KeyFileError';
  /** The file the error is about, as given. */
  readonly file: string;
  readonly message: string;
}

const PEM_BLOCK = /-----BEGIN ([A-Z0-9 ]+)-----([\s\S]*?)-----END \1-----/g;
const PUBLIC_LABELS = new Set(['PUBLIC KEY', 'RSA PUBLIC KEY']);
const MIN_RSA_BITS = 2048;

const EC_CURVES: Readonly<Record<string, KeyKind>> = {
  prime256v1: 'ecdsa-p256',
  secp384r1: 'ecdsa-p384',
  secp521r1: 'ecdsa-p521',
};

const fail = (file: string, message: string): E.Either<KeyFileError, never> =>
  E.left({ _tag: 'KeyFileError', file, message: `${file}: ${message}` });

const kindOf = (key: KeyObject): E.Either<string, KeyKind> => {
  const type = key.asymmetricKeyType;
  const details = key.asymmetricKeyDetails ?? {};
  if (type === 'ec') {
    const kind = EC_CURVES[details.namedCurve ?? ''];
    return kind === undefined
      ? E.left(`an EC key on curve ${details.namedCurve ?? 'unknown'}; only P-256, P-384 and P-521 are supported`)
      : E.right(kind);
  }
  if (type === 'rsa') {
    const bits = details.modulusLength ?? 0;
    return bits < MIN_RSA_BITS
      ? E.left(`an RSA key of ${bits} bits; at least ${MIN_RSA_BITS} are required`)
      : E.right('rsa');
  }
  if (type === 'ed25519') return E.right('ed25519');
  return E.left(`a ${type ?? 'unknown'} key; supported: ECDSA P-256/P-384/P-521, RSA ≥ ${MIN_RSA_BITS} bits, Ed25519`);
};

const labelProblem = (label: string): string =>
  label.includes('PRIVATE KEY')
    ? `holds a private key (${label}), not a public key: mount only the public half (cosign.pub)`
    : label === 'CERTIFICATE'
      ? 'holds a certificate, not a public key: give its public key (openssl x509 -pubkey -noout)'
      : `holds a PEM block "${label}", not a public key`;

/**
 * The public keys of one PEM file (`cosign.pub`, or several keys in a row).
 * A Left names the file: not PEM, a private key, a certificate, a key type or
 * size that cannot verify a cosign signature.
 */
export const parsePublicKeys = (file: string, pem: string): E.Either<KeyFileError, readonly TrustedKey[]> => {
  const blocks = [...pem.matchAll(PEM_BLOCK)];
  if (blocks.length === 0) return fail(file, 'is not a PEM public key (no "-----BEGIN PUBLIC KEY-----" block)');
  const keys: TrustedKey[] = [];
  for (const [index, block] of blocks.entries()) {
    const label = block[1] ?? '';
    if (!PUBLIC_LABELS.has(label)) return fail(file, labelProblem(label));
    let key: KeyObject;
    try {
      key = createPublicKey(block[0]);
    } catch (error) {
      return fail(file, `block ${index + 1} is not a readable public key (${(error as Error).message})`);
    }
    const kind = kindOf(key);
    if (E.isLeft(kind)) return fail(file, `block ${index + 1} is ${kind.left}`);
    keys.push({ id: index === 0 ? file : `${file}#${index + 1}`, kind: kind.right, key });
  }
  return E.right(keys);
};
