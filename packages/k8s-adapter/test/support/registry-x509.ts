import { type KeyObject, sign } from 'node:crypto';

// A self-signed X.509 certificate from node:crypto alone, for the token-auth
// registry's `rootcertbundle`: distribution 2.8 verifies a token's `x5c`
// chain against that bundle, and Node can parse certificates but not make
// them. Minimal DER by hand (RFC 5280: version, serial, algorithm, names,
// validity, key) so CI needs no openssl.

const length = (n: number): Buffer => {
  if (n < 0x80) return Buffer.from([n]);
  const bytes: number[] = [];
  for (let rest = n; rest > 0; rest >>= 8) bytes.unshift(rest & 0xff);
  return Buffer.from([0x80 | bytes.length, ...bytes]);
};

const tlv = (tag: number, ...content: Buffer[]): Buffer => {
  const body = Buffer.concat(content);
  return Buffer.concat([Buffer.from([tag]), length(body.length), body]);
};

const sequence = (...content: Buffer[]): Buffer => tlv(0x30, ...content);

const integer = (value: number): Buffer => {
  const bytes: number[] = [];
  for (let rest = value; rest > 0; rest = Math.floor(rest / 256)) bytes.unshift(rest % 256);
  if (bytes.length === 0 || (bytes[0] ?? 0) >= 0x80) bytes.unshift(0);
  return tlv(0x02, Buffer.from(bytes));
};

const oid = (dotted: string): Buffer => {
  const [a = 0, b = 0, ...rest] = dotted.split('.').map(Number);
  const bytes = [40 * a + b];
  for (const arc of rest) {
    const groups: number[] = [];
    for (let v = arc; ; v = Math.floor(v / 128)) {
      groups.unshift((v % 128) | (groups.length > 0 ? 0x80 : 0));
      if (v < 128) break;
    }
    bytes.push(...groups);
  }
  return tlv(0x06, Buffer.from(bytes));
};

const SHA256_WITH_RSA = sequence(oid('1.2.840.113549.1.1.11'), tlv(0x05));

const name = (commonName: string): Buffer =>
  sequence(tlv(0x31, sequence(oid('2.5.4.3'), tlv(0x0c, Buffer.from(commonName, 'utf8')))));

/** UTCTime `YYMMDDHHMMSSZ` (valid for the years 1950–2049). */
const utcTime = (date: Date): Buffer =>
  tlv(0x17, Buffer.from(`${date.toISOString().slice(2, 19).replace(/[-T:]/g, '')}Z`, 'ascii'));

export const selfSignedCertificate = (
  commonName: string,
  publicKey: KeyObject,
  privateKey: KeyObject,
  now: Date = new Date(),
): Buffer => {
  const tbs = sequence(
    tlv(0xa0, integer(2)), // v3
    integer(Math.floor(now.getTime() / 1000)),
    SHA256_WITH_RSA,
    name(commonName),
    sequence(utcTime(new Date(now.getTime() - 3_600_000)), utcTime(new Date(now.getTime() + 86_400_000))),
    name(commonName),
    publicKey.export({ type: 'spki', format: 'der' }),
  );
  const signature = sign('sha256', tbs, privateKey);
  return sequence(tbs, SHA256_WITH_RSA, tlv(0x03, Buffer.from([0]), signature));
};

export const pem = (der: Buffer): string =>
  `-----BEGIN CERTIFICATE-----\n${der
    .toString('base64')
    .match(/.{1,64}/g)
    ?.join('\n')}\n-----END CERTIFICATE-----\n`;
