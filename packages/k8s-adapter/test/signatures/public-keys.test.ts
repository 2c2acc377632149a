import { generateKeyPairSync } from 'node:crypto';
import * as E from 'fp-ts/lib/Either.js';
import { describe, expect, it } from 'vitest';
import { parsePublicKeys } from '../../src/signatures/public-keys.js';
import { pem, selfSignedCertificate } from '../support/registry-x509.js';

// SIGNATURE_PUBLIC_KEYS, one file's text: the keys it holds, or an error that
// names the file and what is wrong with it — and never its content.

const spki = (pair: { publicKey: { export(o: { type: 'spki'; format: 'pem' }): string | Buffer } }) =>
  pair.publicKey.export({ type: 'spki', format: 'pem' }).toString();

const message = (file: string, text: string): string => {
  const parsed = parsePublicKeys(file, text);
  if (E.isRight(parsed)) throw new Error(`expected a Left for ${file}`);
  expect(parsed.left.file).toBe(file);
  return parsed.left.message;
};

describe('parsePublicKeys', () => {
  it.each([
    ['ecdsa-p256', () => generateKeyPairSync('ec', { namedCurve: 'prime256v1' })],
    ['ecdsa-p384', () => generateKeyPairSync('ec', { namedCurve: 'secp384r1' })],
    ['ecdsa-p521', () => generateKeyPairSync('ec', { namedCurve: 'secp521r1' })],
    ['rsa', () => generateKeyPairSync('rsa', { modulusLength: 2048 })],
    ['ed25519', () => generateKeyPairSync('ed25519')],
  ] as const)('reads a %s public key, named by its file', (kind, make) => {
    const parsed = parsePublicKeys('/keys/a.pub', spki(make()));
    expect(E.isRight(parsed) && parsed.right.map((k) => [k.id, k.kind])).toEqual([['/keys/a.pub', kind]]);
  });

  it('reads an RSA PUBLIC KEY (PKCS#1) block too', () => {
    const { publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const parsed = parsePublicKeys('/keys/rsa.pub', publicKey.export({ type: 'pkcs1', format: 'pem' }).toString());
    expect(E.isRight(parsed) && parsed.right.map((k) => k.kind)).toEqual(['rsa']);
  });

  it('reads several keys of one file (rotation), numbering the further ones', () => {
    const text = [1, 2, 3].map(() => spki(generateKeyPairSync('ec', { namedCurve: 'prime256v1' }))).join('\n');
    const parsed = parsePublicKeys('/keys/all.pub', text);
    expect(E.isRight(parsed) && parsed.right.map((k) => k.id)).toEqual([
      '/keys/all.pub',
      '/keys/all.pub#2',
      '/keys/all.pub#3',
    ]);
  });

  it('refuses a private key without echoing it', () => {
    const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
    const text = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    const said = message('/keys/cosign.key', text);
    expect(said).toBe(
      '/keys/cosign.key: holds a private key (PRIVATE KEY), not a public key: mount only the public half (cosign.pub)',
    );
    const body = text.split('\n')[1] ?? '';
    expect(body.length).toBeGreaterThan(20);
    expect(said).not.toContain(body.slice(0, 20));
  });

  it('refuses a private key that follows a public key in the same file', () => {
    const good = spki(generateKeyPairSync('ed25519'));
    const { privateKey } = generateKeyPairSync('ed25519');
    const said = message('/keys/mixed.pem', `${good}${privateKey.export({ type: 'pkcs8', format: 'pem' })}`);
    expect(said).toContain('/keys/mixed.pem: holds a private key');
  });

  it('refuses a certificate, saying how to get its public key', () => {
    const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const said = message('/keys/cert.pem', pem(selfSignedCertificate('test', publicKey, privateKey)));
    expect(said).toBe(
      '/keys/cert.pem: holds a certificate, not a public key: give its public key (openssl x509 -pubkey -noout)',
    );
  });

  it('refuses text that is not PEM', () => {
    expect(message('/keys/empty.pub', '')).toBe(
      '/keys/empty.pub: is not a PEM public key (no "-----BEGIN PUBLIC KEY-----" block)',
    );
    expect(message('/keys/junk.pub', 'ssh-ed25519 AAAA… user@host')).toContain(
      '/keys/junk.pub: is not a PEM public key',
    );
  });

  it('refuses a PUBLIC KEY block whose content is not a key', () => {
    expect(message('/keys/broken.pub', '-----BEGIN PUBLIC KEY-----\nbm90IGEga2V5\n-----END PUBLIC KEY-----\n')).toMatch(
      /^\/keys\/broken\.pub: block 1 is not a readable public key \(/,
    );
  });

  it('refuses key types and sizes a cosign signature cannot be checked with', () => {
    const secp256k1 = spki(generateKeyPairSync('ec', { namedCurve: 'secp256k1' }));
    expect(message('/keys/k1.pub', secp256k1)).toBe(
      '/keys/k1.pub: block 1 is an EC key on curve secp256k1; only P-256, P-384 and P-521 are supported',
    );
    const small = spki(generateKeyPairSync('rsa', { modulusLength: 1024 }));
    expect(message('/keys/small.pub', small)).toBe(
      '/keys/small.pub: block 1 is an RSA key of 1024 bits; at least 2048 are required',
    );
    const x25519 = spki(generateKeyPairSync('x25519'));
    expect(message('/keys/x.pub', x25519)).toMatch(/^\/keys\/x\.pub: block 1 is a x25519 key; supported: /);
  });
});
