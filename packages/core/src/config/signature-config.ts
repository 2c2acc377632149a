import type { ConfigError } from './tick-config.js';

// VERIFY_SIGNATURES and its trust (docs/behaviour.md §3.4a step 3).
// Core does no I/O: it parses the variables and checks that a mode that
// verifies has something to verify with; the CLI reads the key files and the
// trusted root and hands the adapter their contents. Fail closed: `warn` or
// `enforce` without keys or a complete keyless setup is a configuration
// error (exit 2), never "verify nothing".

/** `off` (the script's behaviour: no check, no request), `warn` (verify, report, re-image anyway), `enforce`. */
export type SignatureMode = 'off' | 'warn' | 'enforce';

/** SIGNATURE_IDENTITY: the certificate SAN exactly, or (written `/…/`) a regular expression's source. */
export type SignatureIdentity = { readonly exact: string } | { readonly pattern: string };

/** Keyless trust, all three or none: SIGNATURE_IDENTITY, SIGNATURE_ISSUER, SIGSTORE_TRUSTED_ROOT. */
export interface KeylessConfig {
  readonly identity: SignatureIdentity;
  readonly issuer: string;
  /** The mounted trusted_root.json, as a path: the CLI reads it. */
  readonly trustedRootFile: string;
}

/** What VERIFY_SIGNATURES and its trust variables say, parsed. */
export interface SignatureConfig {
  readonly mode: SignatureMode;
  /** SIGNATURE_PUBLIC_KEYS: PEM public-key files; any one verifying is enough (rotation). */
  readonly publicKeyFiles: readonly string[];
  readonly keyless?: KeylessConfig;
}

/** The environment variables of the signature check, by meaning: a contract, as ENV's names are. */
export const SIGNATURE_ENV = {
  verifySignatures: 'VERIFY_SIGNATURES',
  signaturePublicKeys: 'SIGNATURE_PUBLIC_KEYS',
  signatureIdentity: 'SIGNATURE_IDENTITY',
  signatureIssuer: 'SIGNATURE_ISSUER',
  sigstoreTrustedRoot: 'SIGSTORE_TRUSTED_ROOT',
} as const;

export const SIGNATURES_OFF: SignatureConfig = { mode: 'off', publicKeyFiles: [] };

/** The mode a config verifies in; a config without the field is the default, `off` (the script's behaviour). */
export const signatureModeOf = (config: { readonly signatures?: SignatureConfig }): SignatureMode =>
  config.signatures?.mode ?? 'off';

/**
 * Nothing to verify with: VERIFY_SIGNATURES=off and no trust parsed (trust is
 * parsed with `off` only for FLEET_HALT_REF, §3.4b). The CLI then reads no
 * key file and loads no verifier.
 */
export const verifiesNothing = (signatures: SignatureConfig): boolean =>
  signatures.mode === 'off' && signatures.publicKeyFiles.length === 0 && signatures.keyless === undefined;

const MODES: readonly SignatureMode[] = ['off', 'warn', 'enforce'];

/** `/…/` is a regular expression (cosign's --certificate-identity-regexp, unanchored); anything else is exact. */
const REGEX_DELIMITED = /^\/.+\/$/s;

const identityOf = (value: string, problems: ConfigError[]): SignatureIdentity | undefined => {
  if (!REGEX_DELIMITED.test(value)) return { exact: value };
  const source = value.slice(1, -1);
  try {
    new RegExp(source);
  } catch (error) {
    problems.push({
      variable: SIGNATURE_ENV.signatureIdentity,
      value,
      problem: `is written /…/ (a regular expression) but does not compile: ${(error as Error).message}`,
    });
    return undefined;
  }
  return { pattern: source };
};

const readVar = (env: Readonly<Record<string, string | undefined>>, name: string): string | undefined => {
  const value = env[name];
  return value === undefined || value.trim() === '' ? undefined : value.trim();
};

/**
 * Who else needs the trust with VERIFY_SIGNATURES=off: FLEET_HALT_REF
 * (docs/behaviour.md §3.4b) verifies the halt and its pins with the same
 * keys or identity, so its name and value are what a missing trust is
 * blamed on.
 */
export interface TrustNeededBy {
  readonly variable: string;
  readonly value: string;
  /** Why it needs the trust, worded to follow the variable. */
  readonly why: string;
}

/**
 * Parse VERIFY_SIGNATURES and its trust variables. With `off` (or unset) the
 * trust variables are not looked at: nothing is verified — unless `neededBy`
 * (FLEET_HALT_REF) verifies with them, which parses them as `warn` and
 * `enforce` do. With `warn` or `enforce`: SIGNATURE_PUBLIC_KEYS
 * (comma-separated paths, no empty entry), and/or all three keyless
 * variables; a partial keyless setup, or neither, is an error naming what is
 * missing.
 */
export const parseSignatureConfig = (
  env: Readonly<Record<string, string | undefined>>,
  neededBy?: TrustNeededBy,
): { readonly config: SignatureConfig; readonly problems: readonly ConfigError[] } => {
  const problems: ConfigError[] = [];
  const raw = readVar(env, SIGNATURE_ENV.verifySignatures);
  const mode = (raw ?? 'off') as SignatureMode;
  if (!MODES.includes(mode)) {
    problems.push({
      variable: SIGNATURE_ENV.verifySignatures,
      value: raw,
      problem:
        'must be "off" (no check, the default), "warn" (verify, report, re-image anyway) or "enforce" (an unverified new digest is not re-imaged)',
    });
    return { config: SIGNATURES_OFF, problems };
  }
  if (mode === 'off' && neededBy === undefined) return { config: SIGNATURES_OFF, problems };

  const keysRaw = readVar(env, SIGNATURE_ENV.signaturePublicKeys);
  const publicKeyFiles = keysRaw === undefined ? [] : keysRaw.split(',').map((path) => path.trim());
  if (publicKeyFiles.some((path) => path === '')) {
    problems.push({
      variable: SIGNATURE_ENV.signaturePublicKeys,
      value: keysRaw,
      problem: 'has an empty entry: give comma-separated paths of PEM public-key files',
    });
  }

  const identityRaw = readVar(env, SIGNATURE_ENV.signatureIdentity);
  const issuer = readVar(env, SIGNATURE_ENV.signatureIssuer);
  const trustedRootFile = readVar(env, SIGNATURE_ENV.sigstoreTrustedRoot);
  const keylessGiven = [identityRaw, issuer, trustedRootFile].filter((v) => v !== undefined).length;
  let keyless: KeylessConfig | undefined;
  if (identityRaw !== undefined && issuer !== undefined && trustedRootFile !== undefined) {
    const identity = identityOf(identityRaw, problems);
    if (identity !== undefined) keyless = { identity, issuer, trustedRootFile };
  } else if (keylessGiven > 0) {
    const missing = [
      identityRaw === undefined ? SIGNATURE_ENV.signatureIdentity : undefined,
      issuer === undefined ? SIGNATURE_ENV.signatureIssuer : undefined,
      trustedRootFile === undefined ? SIGNATURE_ENV.sigstoreTrustedRoot : undefined,
    ].filter((name) => name !== undefined);
    for (const variable of missing) {
      problems.push({
        variable,
        value: undefined,
        problem: `is required with the other keyless variables (${SIGNATURE_ENV.signatureIdentity}, ${SIGNATURE_ENV.signatureIssuer} and ${SIGNATURE_ENV.sigstoreTrustedRoot} go together)`,
      });
    }
  }

  if (publicKeyFiles.length === 0 && keylessGiven === 0) {
    const trust = `set ${SIGNATURE_ENV.signaturePublicKeys} (PEM public-key files) and/or ${SIGNATURE_ENV.signatureIdentity}, ${SIGNATURE_ENV.signatureIssuer} and ${SIGNATURE_ENV.sigstoreTrustedRoot} (keyless)`;
    if (mode !== 'off') {
      problems.push({
        variable: SIGNATURE_ENV.verifySignatures,
        value: mode,
        problem: `verifies with nothing: ${trust}`,
      });
    }
    if (neededBy !== undefined) {
      problems.push({ variable: neededBy.variable, value: neededBy.value, problem: `${neededBy.why}: ${trust}` });
    }
  }
  return { config: { mode, publicKeyFiles, ...(keyless === undefined ? {} : { keyless }) }, problems };
};
