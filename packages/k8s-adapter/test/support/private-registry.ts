import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type RegistryProcess, registryBinaryMissing, startRegistry } from './registry-process.js';

// A private registry as a new user's Harbor-like one looks from an edge: real
// docker-registry behind TLS from a CA this test makes with openssl, HTTP
// Basic against an htpasswd file (bcrypt, as distribution requires). A second,
// plain and open registry serves the same storage on another port: the test
// pushes through it (Node's fetch cannot be told to trust the test CA), and
// the tick reads only the private one.

export const HTPASSWD_BINARY = '/usr/bin/htpasswd';

const onPath = (binary: string): boolean =>
  (process.env.PATH ?? '').split(':').some((dir) => dir !== '' && existsSync(`${dir}/${binary}`));

/**
 * Why the private-registry tests cannot run here, or undefined: besides
 * docker-registry they need openssl (the CA) and htpasswd (apache2-utils).
 * Under IMAGE_REFRESH_CI=1 nothing is missing: a start fails loudly instead.
 */
export const privateRegistryMissing: string | undefined =
  registryBinaryMissing ??
  (process.env.IMAGE_REFRESH_CI === '1' || (existsSync(HTPASSWD_BINARY) && onPath('openssl'))
    ? undefined
    : 'needs openssl and htpasswd: install the Debian packages with "apt-get install -y openssl apache2-utils"');

export interface PrivateRegistry {
  /** `https://127.0.0.1:<port>`: what a tick is pointed at. */
  readonly url: string;
  /** `127.0.0.1:<port>`: the key of its entry in a .dockerconfigjson. */
  readonly host: string;
  /** Plain http, no auth, same storage: for pushing only. */
  readonly pushUrl: string;
  readonly caPem: string;
  readonly caFile: string;
  readonly username: string;
  readonly password: string;
  /** A .dockerconfigjson holding this registry's credential. */
  readonly authFile: string;
  /** The directory of the CA, the keys and the auth file. */
  readonly dir: string;
  stop(): Promise<void>;
}

const openssl = (cwd: string, ...args: string[]): void => {
  execFileSync('openssl', args, { cwd, stdio: ['ignore', 'ignore', 'pipe'] });
};

/** A CA, and a server certificate it signed for 127.0.0.1 (an IP SAN: what a Go TLS client and Node check). */
const makeCertificates = async (dir: string): Promise<void> => {
  openssl(
    dir,
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-keyout',
    'ca.key',
    '-out',
    'ca.pem',
    '-days',
    '2',
    '-subj',
    '/CN=image-refresh test CA',
  );
  openssl(
    dir,
    'req',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-keyout',
    'server.key',
    '-out',
    'server.csr',
    '-subj',
    '/CN=127.0.0.1',
  );
  await writeFile(join(dir, 'san.ext'), 'subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth\n');
  openssl(
    dir,
    'x509',
    '-req',
    '-in',
    'server.csr',
    '-CA',
    'ca.pem',
    '-CAkey',
    'ca.key',
    '-CAcreateserial',
    '-out',
    'server.pem',
    '-days',
    '2',
    '-extfile',
    'san.ext',
  );
};

export const startPrivateRegistry = async (
  username = 'edge-puller',
  password = 'p4ss-W0rd-for-tests-only',
): Promise<PrivateRegistry> => {
  const dir = await mkdtemp(join(tmpdir(), 'image-refresh-private-registry-'));
  const storage = join(dir, 'storage');
  await makeCertificates(dir);
  // The password goes in on stdin (-i), never in argv.
  const htpasswd = execFileSync(HTPASSWD_BINARY, ['-niB', username], { input: password }).toString('utf8');
  const htpasswdFile = join(dir, 'htpasswd');
  await writeFile(htpasswdFile, htpasswd);
  let plain: RegistryProcess | undefined;
  let secured: RegistryProcess | undefined;
  try {
    plain = await startRegistry(undefined, { storageRoot: storage });
    secured = await startRegistry(undefined, {
      storageRoot: storage,
      tls: { certificateFile: join(dir, 'server.pem'), keyFile: join(dir, 'server.key') },
      htpasswdFile,
    });
  } catch (error) {
    await plain?.stop();
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
  const host = new URL(secured.url).host;
  const authFile = join(dir, 'config.json');
  await writeFile(
    authFile,
    JSON.stringify({ auths: { [host]: { auth: Buffer.from(`${username}:${password}`).toString('base64') } } }),
  );
  const started = { plain, secured };
  return {
    url: `https://${host}`,
    host,
    pushUrl: plain.url,
    caPem: await readFile(join(dir, 'ca.pem'), 'utf8'),
    caFile: join(dir, 'ca.pem'),
    username,
    password,
    authFile,
    dir,
    stop: async () => {
      await started.secured.stop();
      await started.plain.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
};
