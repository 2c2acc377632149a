import { describe, expect, it } from 'vitest';
import { parseSignatureConfig, verifiesNothing } from '../src/config/signature-config.js';

// VERIFY_SIGNATURES and its trust variables (docs/behaviour.md §3.4a
// step 3) as the config and the problems parseSignatureConfig returns: which
// variable each problem names, and that a config carries exactly the trust it
// was given (no keyless field it was not given).

const ROOT = '/etc/sigstore/trusted_root.json';
const ISSUER = 'https://token.actions.githubusercontent.com';

describe('parseSignatureConfig', () => {
  it('off (unset, empty or blank) is the script: nothing verified, no key, no problem', () => {
    for (const value of [undefined, '', '   ']) {
      expect(parseSignatureConfig({ VERIFY_SIGNATURES: value })).toStrictEqual({
        config: { mode: 'off', publicKeyFiles: [] },
        problems: [],
      });
    }
  });

  it('trims every value; keys alone give a config without a keyless field', () => {
    expect(
      parseSignatureConfig({ VERIFY_SIGNATURES: ' warn ', SIGNATURE_PUBLIC_KEYS: ' /k/a.pem , /k/b.pem ' }),
    ).toStrictEqual({
      config: { mode: 'warn', publicKeyFiles: ['/k/a.pem', '/k/b.pem'] },
      problems: [],
    });
  });

  it('a blank keyless variable counts as not given', () => {
    expect(
      parseSignatureConfig({ VERIFY_SIGNATURES: 'enforce', SIGNATURE_PUBLIC_KEYS: '/k/a.pem', SIGNATURE_ISSUER: '  ' }),
    ).toStrictEqual({ config: { mode: 'enforce', publicKeyFiles: ['/k/a.pem'] }, problems: [] });
  });

  it('a partial keyless setup names exactly the variables that are missing', () => {
    const missing = (env: Record<string, string>) =>
      parseSignatureConfig({ VERIFY_SIGNATURES: 'enforce', ...env }).problems.map((p) => p.variable);
    expect(missing({ SIGNATURE_IDENTITY: 'x' })).toEqual(['SIGNATURE_ISSUER', 'SIGSTORE_TRUSTED_ROOT']);
    expect(missing({ SIGNATURE_ISSUER: ISSUER })).toEqual(['SIGNATURE_IDENTITY', 'SIGSTORE_TRUSTED_ROOT']);
    expect(missing({ SIGSTORE_TRUSTED_ROOT: ROOT })).toEqual(['SIGNATURE_IDENTITY', 'SIGNATURE_ISSUER']);
    expect(missing({ SIGNATURE_IDENTITY: 'x', SIGNATURE_ISSUER: ISSUER })).toEqual(['SIGSTORE_TRUSTED_ROOT']);
    expect(missing({ SIGNATURE_IDENTITY: 'x', SIGSTORE_TRUSTED_ROOT: ROOT })).toEqual(['SIGNATURE_ISSUER']);
    expect(missing({ SIGNATURE_ISSUER: ISSUER, SIGSTORE_TRUSTED_ROOT: ROOT })).toEqual(['SIGNATURE_IDENTITY']);
    const partial = parseSignatureConfig({ VERIFY_SIGNATURES: 'enforce', SIGNATURE_IDENTITY: 'x' });
    expect(partial.config).toStrictEqual({ mode: 'enforce', publicKeyFiles: [] });
  });

  const keyless = (identity: string) =>
    parseSignatureConfig({
      VERIFY_SIGNATURES: 'enforce',
      SIGNATURE_IDENTITY: identity,
      SIGNATURE_ISSUER: ISSUER,
      SIGSTORE_TRUSTED_ROOT: ROOT,
    });

  it('an identity is a pattern only when it both starts and ends with /', () => {
    expect(keyless('/^https:\\/\\/github\\.com\\/tracebloc\\//').config.keyless?.identity).toStrictEqual({
      pattern: '^https:\\/\\/github\\.com\\/tracebloc\\/',
    });
    expect(keyless('https://github.com/tracebloc/').config.keyless?.identity).toStrictEqual({
      exact: 'https://github.com/tracebloc/',
    });
    expect(keyless('/ci/workflow').config.keyless?.identity).toStrictEqual({ exact: '/ci/workflow' });
    expect(keyless('ci@tracebloc.io').config).toStrictEqual({
      mode: 'enforce',
      publicKeyFiles: [],
      keyless: { identity: { exact: 'ci@tracebloc.io' }, issuer: ISSUER, trustedRootFile: ROOT },
    });
  });

  it('an identity regex that does not compile is a problem, and no keyless trust is configured', () => {
    const parsed = keyless('/[/');
    expect(parsed.config).toStrictEqual({ mode: 'enforce', publicKeyFiles: [] });
    expect(parsed.problems.map((p) => p.variable)).toEqual(['SIGNATURE_IDENTITY']);
  });
});

describe('verifiesNothing', () => {
  // The CLI loads no verifier and reads no key file exactly when this holds; any trust, or any mode
  // but off, needs the verifier (a fleet halt verifies with trust parsed under off, §3.4b).
  const keyless = { identity: { exact: 'ci@example.org' }, issuer: ISSUER, trustedRootFile: ROOT };

  it('holds only for off with neither keys nor keyless trust', () => {
    expect(verifiesNothing({ mode: 'off', publicKeyFiles: [] })).toBe(true);
    expect(verifiesNothing({ mode: 'warn', publicKeyFiles: [] })).toBe(false);
    expect(verifiesNothing({ mode: 'enforce', publicKeyFiles: [] })).toBe(false);
    expect(verifiesNothing({ mode: 'off', publicKeyFiles: ['/k/a.pem'] })).toBe(false);
    expect(verifiesNothing({ mode: 'off', publicKeyFiles: [], keyless })).toBe(false);
  });
});
