import { generateKeyPairSync } from 'node:crypto';
import { createServer, request, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import * as E from 'fp-ts/lib/Either.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRegistryPort } from '../../src/registry/index.js';
import { localOnlyHttp } from '../support/registry-local-fetch.js';
import { pem, selfSignedCertificate } from '../support/registry-x509.js';

// TLS verification always on for https. A registry on 127.0.0.1
// with a self-signed certificate stands for a man in the middle: it answers
// every manifest HEAD with a well-formed digest, so a transport that skipped
// verification would hand the tick a Right. Mutation that reddens it:
// dropping `rejectUnauthorized: true` from http-transport.ts (the
// NODE_TLS_REJECT_UNAUTHORIZED=0 case).

const DIGEST = `sha256:${'cd'.repeat(32)}`;
const JM = { host: 'docker.io', repo: 'tracebloc/jobs-manager', tag: 'prod' };

let server: Server;
let baseUrl: string;
let certificate: string;

beforeAll(async () => {
  const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  certificate = pem(selfSignedCertificate('127.0.0.1', publicKey, privateKey));
  server = createServer({ key: privateKey.export({ type: 'pkcs8', format: 'pem' }), cert: certificate }, (_, res) => {
    res.writeHead(200, { 'docker-content-digest': DIGEST, 'content-type': 'application/vnd.oci.image.index.v1+json' });
    res.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const resolveOnce = async () => {
  const [answer] = await createRegistryPort({ baseUrl, timeoutMs: 2_000, fetch: localOnlyHttp }).resolveDigests([JM])();
  return answer;
};

describe('the registry transport verifies TLS', () => {
  it('the man-in-the-middle registry does answer a client that trusts its certificate (the control)', async () => {
    const status = await new Promise<number | undefined>((resolve, reject) => {
      const req = request(
        `${baseUrl}/v2/${JM.repo}/manifests/${JM.tag}`,
        { method: 'HEAD', ca: certificate, checkServerIdentity: () => undefined },
        (res) => {
          res.resume();
          resolve(res.statusCode);
        },
      );
      req.on('error', reject);
      req.end();
    });
    expect(status).toBe(200);
  });

  it('a self-signed certificate → Transport naming the certificate problem, no digest', async () => {
    const answer = await resolveOnce();
    if (answer === undefined || E.isRight(answer)) throw new Error(`expected a Left, got ${JSON.stringify(answer)}`);
    expect(answer.left).toMatchObject({
      _tag: 'Transport',
      message: expect.stringMatching(/self[- ]signed certificate/),
    });
  });

  it('NODE_TLS_REJECT_UNAUTHORIZED=0 in the environment does not turn verification off', async () => {
    const before = process.env.NODE_TLS_REJECT_UNAUTHORIZED;
    process.env.NODE_TLS_REJECT_UNAUTHORIZED = '0';
    try {
      expect(await resolveOnce()).toMatchObject(E.left({ _tag: 'Transport' }));
    } finally {
      if (before === undefined) delete process.env.NODE_TLS_REJECT_UNAUTHORIZED;
      else process.env.NODE_TLS_REJECT_UNAUTHORIZED = before;
    }
  });
});
