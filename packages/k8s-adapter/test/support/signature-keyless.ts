import { createHash, generateKeyPairSync } from 'node:crypto';
import { fulcioHandler, initializeCA, initializeCTLog, initializeTLog, rekorHandler } from '@sigstore/mock';
import { DSSEBundleBuilder, FulcioSigner, RekorWitness } from '@sigstore/sign';
import { type LocalServer, listenLocal } from './registry-local-server.js';

// Keyless signing for the signature tests, by sigstore's own libraries on
// 127.0.0.1: @sigstore/mock's Fulcio (an ephemeral CA and CT log) and Rekor
// (an ephemeral transparency log) handlers served by a local node:http server
// — not nock, not the public instances — and @sigstore/sign's FulcioSigner
// with RekorWitness building the bundle. trustedRoot() is the
// trusted_root.json an operator would mount as SIGSTORE_TRUSTED_ROOT.

export interface KeylessSigstore {
  readonly server: LocalServer;
  /** A DSSE bundle over `statement`, signed for the OIDC identity `subject` of `issuer`. */
  sign(statement: Buffer, subject: string, issuer: string): Promise<string>;
  trustedRoot(): unknown;
  close(): Promise<void>;
}

const b64 = (bytes: ArrayBufferView | Buffer): string =>
  Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');

/** header.claims. with an empty signature: the mock Fulcio reads the claims, it checks no signature. */
const unsignedJwt = (claims: Record<string, string>): string => {
  const [header, body] = [{ alg: 'none', typ: 'JWT' }, claims].map((part) =>
    Buffer.from(JSON.stringify(part)).toString('base64url'),
  );
  return `${header}.${body}.`;
};

export const startKeylessSigstore = async (): Promise<KeylessSigstore> => {
  const keyPair = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  const ctlog = await initializeCTLog(keyPair);
  const ca = await initializeCA(keyPair, ctlog);
  const handlers = new Map<
    string,
    (body: string) => Promise<{ statusCode: number; response: string | ArrayBufferView; contentType?: string }>
  >();
  let rekorUrl = '';
  const server = await listenLocal((request, response) => {
    const handler = handlers.get(new URL(request.url ?? '/', 'http://127.0.0.1').pathname);
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      if (handler === undefined || request.method !== 'POST') {
        response.writeHead(404);
        response.end();
        return;
      }
      handler(Buffer.concat(chunks).toString('utf8')).then((answer) => {
        response.writeHead(answer.statusCode, { 'content-type': answer.contentType ?? 'application/json' });
        response.end(typeof answer.response === 'string' ? answer.response : Buffer.from(answer.response.buffer));
      });
    });
  });
  rekorUrl = server.url;
  const tlog = await initializeTLog(rekorUrl, keyPair);
  const fulcio = fulcioHandler(ca, { strict: true });
  const rekor = rekorHandler(tlog, { strict: true });
  handlers.set(fulcio.path, fulcio.fn);
  handlers.set(rekor.path, rekor.fn);

  const since = { start: new Date(Date.now() - 3_600_000).toISOString() };
  return {
    server,
    sign: async (statement, subject, issuer) => {
      const signer = new FulcioSigner({
        fulcioBaseURL: server.url,
        identityProvider: { getToken: async () => unsignedJwt({ iss: issuer, sub: subject, aud: 'sigstore' }) },
        retry: 0,
        timeout: 5_000,
      });
      const builder = new DSSEBundleBuilder({
        signer,
        witnesses: [new RekorWitness({ rekorBaseURL: server.url, entryType: 'intoto', retry: 0, timeout: 5_000 })],
      });
      const { bundleToJSON } = await import('@sigstore/bundle');
      return JSON.stringify(
        bundleToJSON(await builder.create({ data: statement, type: 'application/vnd.in-toto+json' })),
      );
    },
    trustedRoot: () => ({
      mediaType: 'application/vnd.dev.sigstore.trustedroot+json;version=0.1',
      tlogs: [
        {
          baseUrl: server.url,
          hashAlgorithm: 'SHA2_256',
          publicKey: { rawBytes: b64(tlog.publicKey), keyDetails: 'PKIX_ECDSA_P256_SHA_256', validFor: since },
          logId: { keyId: createHash('sha256').update(tlog.publicKey).digest('base64') },
        },
      ],
      certificateAuthorities: [
        {
          subject: { organization: 'sigstore.mock', commonName: 'sigstore' },
          uri: server.url,
          certChain: { certificates: [{ rawBytes: b64(ca.rootCertificate) }] },
          validFor: since,
        },
      ],
      ctlogs: [
        {
          baseUrl: server.url,
          hashAlgorithm: 'SHA2_256',
          publicKey: { rawBytes: b64(ctlog.publicKey), keyDetails: 'PKIX_ECDSA_P256_SHA_256', validFor: since },
          logId: { keyId: b64(ctlog.logID) },
        },
      ],
      timestampAuthorities: [],
    }),
    close: () => server.close(),
  };
};
