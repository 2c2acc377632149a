import * as E from 'fp-ts/lib/Either.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseDockerConfig, type RegistryCredentials } from '../../src/registry/credentials.js';
import { createRegistryPort } from '../../src/registry/index.js';
import { type PrivateRegistry, privateRegistryMissing, startPrivateRegistry } from '../support/private-registry.js';
import { REGISTRY_SETUP_TIMEOUT_MS } from '../support/registry-process.js';
import { type Pushed, pushImage } from '../support/registry-push.js';

// A private registry as a new user's looks (docs/configuration.md, "The
// registry"): Debian's docker-registry behind TLS from a test CA, HTTP Basic
// from htpasswd. The port authenticates with REGISTRY_AUTH_FILE's entry for
// its host and trusts REGISTRY_CA_FILE; without either it refuses, in words
// that say which, and no message ever carries the password.

if (privateRegistryMissing !== undefined) console.warn(`SKIPPED ${import.meta.url}: ${privateRegistryMissing}`);

const REPOS = ['shop/web', 'shop/log'];

describe.skipIf(privateRegistryMissing !== undefined)('resolveDigests on a private registry (TLS, Basic)', () => {
  let registry: PrivateRegistry;
  let pushed: Pushed[];

  beforeAll(async () => {
    registry = await startPrivateRegistry();
    pushed = [];
    for (const repo of REPOS) pushed.push(await pushImage(registry.pushUrl, repo, 'stable'));
  }, REGISTRY_SETUP_TIMEOUT_MS);
  afterAll(async () => {
    await registry?.stop();
  });

  const credentialsFor = (auths: Record<string, unknown>): RegistryCredentials => {
    const parsed = parseDockerConfig('/etc/registry/config.json', JSON.stringify({ auths }));
    if (E.isLeft(parsed)) throw new Error(parsed.left);
    return parsed.right;
  };
  const own = (): RegistryCredentials => {
    const basic = Buffer.from(`${registry.username}:${registry.password}`).toString('base64');
    return credentialsFor({ [`https://${registry.host}`]: { auth: basic } });
  };
  const secrets = () => [
    registry.password,
    Buffer.from(`${registry.username}:${registry.password}`).toString('base64'),
  ];
  const requests = REPOS.map((repo) => ({ host: 'docker.io', repo, tag: 'stable' }));
  const messagesOf = (answers: readonly E.Either<{ message: string }, unknown>[]) =>
    answers.flatMap((a) => (E.isLeft(a) ? [a.left.message] : []));

  it('resolves every image with the auth file entry of its host and the test CA', async () => {
    const port = createRegistryPort({
      baseUrl: registry.url,
      credentials: own(),
      ca: registry.caPem,
      timeoutMs: 5_000,
    });
    const answers = await port.resolveDigests(requests)();
    expect(answers.map((a) => (E.isRight(a) ? a.right.digest : a.left))).toEqual(pushed.map((p) => p.digest));
    // A tick later the port asks with Basic at once: still every digest.
    const again = await port.resolveDigests(requests)();
    expect(again.map((a) => (E.isRight(a) ? a.right.digest : a.left))).toEqual(pushed.map((p) => p.digest));
  });

  it('without credentials: Unauthorized, saying no REGISTRY_AUTH_FILE was given', async () => {
    const answers = await createRegistryPort({
      baseUrl: registry.url,
      ca: registry.caPem,
      timeoutMs: 5_000,
    }).resolveDigests(requests)();
    for (const answer of answers) expect(answer).toMatchObject(E.left({ _tag: 'Unauthorized', status: 401 }));
    expect(messagesOf(answers)[0]).toContain(
      `a Basic challenge; no credentials were sent for ${registry.host} (REGISTRY_AUTH_FILE is not set)`,
    );
  });

  it('an auth file without an entry for this host: Unauthorized naming the file and the host', async () => {
    const other = credentialsFor({ 'harbor.example:8443': { username: 'someone', password: registry.password } });
    const answers = await createRegistryPort({
      baseUrl: registry.url,
      credentials: other,
      ca: registry.caPem,
    }).resolveDigests(requests)();
    expect(answers[0]).toMatchObject(E.left({ _tag: 'Unauthorized' }));
    expect(messagesOf(answers)[0]).toContain(
      `no credentials were sent for ${registry.host}: REGISTRY_AUTH_FILE /etc/registry/config.json has no entry for it`,
    );
    for (const message of messagesOf(answers)) for (const secret of secrets()) expect(message).not.toContain(secret);
  });

  it('a wrong password: Unauthorized "even with credentials", the password in no message', async () => {
    const wrong = credentialsFor({
      [registry.host]: { username: registry.username, password: `${registry.password}-old` },
    });
    const answers = await createRegistryPort({
      baseUrl: registry.url,
      credentials: wrong,
      ca: registry.caPem,
    }).resolveDigests(requests)();
    for (const answer of answers) expect(answer).toMatchObject(E.left({ _tag: 'Unauthorized', status: 401 }));
    expect(messagesOf(answers)[0]).toContain('answered HTTP 401 with a Basic challenge even with credentials');
    const leaked = [
      `${registry.password}-old`,
      Buffer.from(`${registry.username}:${registry.password}-old`).toString('base64'),
    ];
    for (const message of messagesOf(answers)) for (const secret of leaked) expect(message).not.toContain(secret);
  });

  it('without the test CA: Transport naming the certificate, and the credential never left (TLS failed first)', async () => {
    const answers = await createRegistryPort({
      baseUrl: registry.url,
      credentials: own(),
      timeoutMs: 5_000,
    }).resolveDigests(requests)();
    for (const answer of answers) expect(answer).toMatchObject(E.left({ _tag: 'Transport' }));
    expect(messagesOf(answers)[0]).toMatch(/certificate/i);
  });
});
