import { readFile } from 'node:fs/promises';
import {
  type ConfigError,
  SIGNATURE_ENV,
  type SignatureConfig,
  type SignaturePort,
  type TickConfig,
  verifiesNothing,
} from '@image-refresh/core';
import { type KeylessTrust, parsePublicKeys, type TrustedKey } from '@image-refresh/k8s-adapter';
import * as E from 'fp-ts/lib/Either.js';
import { signaturePort, type TickSignals } from './signature-port.js';

// Core does no I/O, so the CLI reads what VERIFY_SIGNATURES
// verifies with — each SIGNATURE_PUBLIC_KEYS file, the SIGSTORE_TRUSTED_ROOT
// file — before any API or registry call. A file that is missing, unreadable
// or not a public key is a configuration error (exit 2) naming the variable
// and the file, never its content (a private key mounted by mistake must
// not reach a log line).

/** What the signature port verifies with, read and parsed, and how to build the port on it. */
export interface SignatureTrust {
  readonly keys: readonly TrustedKey[];
  readonly keyless?: KeylessTrust;
  /**
   * The port on this trust; here, so that wiring/connect.ts never imports the
   * verifier: with VERIFY_SIGNATURES=off this module is never evaluated.
   */
  readonly port: (config: TickConfig, signals?: TickSignals) => SignaturePort;
}

const unreadable = (variable: string, file: string, error: unknown): ConfigError => ({
  variable,
  value: file,
  problem: `cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`,
});

const readKeys = async (file: string): Promise<E.Either<ConfigError, readonly TrustedKey[]>> => {
  let pem: string;
  try {
    pem = await readFile(file, 'utf8');
  } catch (error) {
    return E.left(unreadable(SIGNATURE_ENV.signaturePublicKeys, file, error));
  }
  const parsed = parsePublicKeys(file, pem);
  // The adapter's message starts with the file; describeConfigError names it already.
  return E.mapLeft((e: { message: string }) => ({
    variable: SIGNATURE_ENV.signaturePublicKeys,
    value: file,
    problem: e.message.startsWith(`${file}: `) ? e.message.slice(file.length + 2) : e.message,
  }))(parsed);
};

const readTrustedRoot = async (file: string): Promise<E.Either<ConfigError, unknown>> => {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    return E.left(unreadable(SIGNATURE_ENV.sigstoreTrustedRoot, file, error));
  }
  let root: unknown;
  try {
    root = JSON.parse(text);
  } catch (error) {
    return E.left(notATrustedRoot(file, `not JSON: ${(error as Error).message}`));
  }
  return typeof root === 'object' && root !== null && !Array.isArray(root)
    ? E.right(root)
    : E.left(notATrustedRoot(file, 'JSON, but not an object'));
};

const notATrustedRoot = (file: string, what: string): ConfigError => ({
  variable: SIGNATURE_ENV.sigstoreTrustedRoot,
  value: file,
  problem: `is not a trusted_root.json (${what}; \`cosign trusted-root create\` or the sigstore TUF root gives one)`,
});

/**
 * The trust VERIFY_SIGNATURES (and FLEET_HALT_REF) verifies with, read from
 * the files its variables name; `undefined` when nothing verifies (nothing
 * read, nothing loaded). Every problem at once, as the config parser reports them;
 * read from the signature variables alone, so a file's problem is reported
 * with the rest of the environment's, not on the run after they are fixed.
 */
export const readSignatureTrust = async (
  signatures: SignatureConfig,
): Promise<E.Either<readonly ConfigError[], SignatureTrust | undefined>> => {
  if (verifiesNothing(signatures)) return E.right(undefined);
  const problems: ConfigError[] = [];
  const keys: TrustedKey[] = [];
  // An empty entry is the parser's problem, named already: there is no file to read.
  for (const file of signatures.publicKeyFiles.filter((path) => path !== '')) {
    const read = await readKeys(file);
    if (E.isLeft(read)) problems.push(read.left);
    else keys.push(...read.right);
  }
  let keyless: KeylessTrust | undefined;
  if (signatures.keyless !== undefined) {
    const { identity, issuer, trustedRootFile } = signatures.keyless;
    const root = await readTrustedRoot(trustedRootFile);
    if (E.isLeft(root)) problems.push(root.left);
    else {
      keyless = {
        trustedRoot: root.right,
        // `/…/` in SIGNATURE_IDENTITY: applied unanchored, as cosign's --certificate-identity-regexp.
        identity: 'exact' in identity ? { exact: identity.exact } : { pattern: new RegExp(identity.pattern) },
        issuer,
      };
    }
  }
  if (problems.length > 0) return E.left(problems);
  const trust = keyless === undefined ? { keys } : { keys, keyless };
  return E.right({ ...trust, port: (tickConfig, signals) => signaturePort(tickConfig, trust, signals) });
};
