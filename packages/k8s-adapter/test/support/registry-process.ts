import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type LocalDaemon, startLocalDaemon } from './local-daemon.js';

// A real registry (Debian's docker-registry: distribution 2.8.2) on
// 127.0.0.1, storage in a temp dir, no Docker needed. Ready in ≈ 40 ms
// (Debian's docker-registry, distribution 2.8). Tests that need it skip, naming the package, when the
// binary is missing.

export const REGISTRY_BINARY = '/usr/bin/docker-registry';

const MISSING = `needs ${REGISTRY_BINARY}: install the Debian package with "apt-get install -y docker-registry"`;

/**
 * The skip reason, or undefined when the tests must run: the binary is
 * installed, or this is CI (.ci/run sets IMAGE_REFRESH_CI=1), where a skip
 * would hide a broken adapter — there startRegistry fails instead.
 */
export const registryBinaryMissing: string | undefined =
  existsSync(REGISTRY_BINARY) || process.env.IMAGE_REFRESH_CI === '1' ? undefined : MISSING;

/** For a beforeAll that starts a registry: its own start polls for at most 10 s. */
export const REGISTRY_SETUP_TIMEOUT_MS = 30_000;

export interface TokenAuth {
  readonly realm: string;
  readonly service: string;
  readonly issuer: string;
  readonly certificatePem: string;
}

export type RegistryProcess = LocalDaemon;

const READY_WITHIN_MS = 10_000;

/** Storage switches some tests need; distribution's defaults otherwise. */
export interface RegistryOptions {
  /** `storage.delete.enabled`: lets a test DELETE a blob to model a signature whose payload is gone. */
  readonly deletable?: boolean;
  /** Serve this storage instead of one of its own: a second registry on the same blobs (a plain one to push through). */
  readonly storageRoot?: string;
  /** Serve https with this certificate and key (PEM files); the test makes its CA. */
  readonly tls?: { readonly certificateFile: string; readonly keyFile: string };
  /** distribution's htpasswd auth: HTTP Basic against this bcrypt file. */
  readonly htpasswdFile?: string;
}

/** The head of every test registry's config: quiet logs, blobs on the filesystem under `root`. */
export const quietFilesystemRegistry = (root: string): string[] => [
  'version: 0.1',
  'log:',
  '  level: error',
  '  accesslog:',
  '    disabled: true',
  'storage:',
  '  filesystem:',
  `    rootdirectory: ${JSON.stringify(root)}`,
];

const config = (
  root: string,
  port: number,
  certificateFile: string | undefined,
  auth: TokenAuth | undefined,
  options: RegistryOptions,
): string =>
  [
    ...quietFilesystemRegistry(options.storageRoot ?? root),
    ...(options.deletable === true ? ['  delete:', '    enabled: true'] : []),
    'http:',
    `  addr: 127.0.0.1:${port}`,
    ...(options.tls === undefined
      ? []
      : [
          '  tls:',
          `    certificate: ${JSON.stringify(options.tls.certificateFile)}`,
          `    key: ${JSON.stringify(options.tls.keyFile)}`,
        ]),
    ...(options.htpasswdFile === undefined
      ? []
      : ['auth:', '  htpasswd:', '    realm: image-refresh-test', `    path: ${JSON.stringify(options.htpasswdFile)}`]),
    ...(auth === undefined || certificateFile === undefined
      ? []
      : [
          'auth:',
          '  token:',
          `    realm: ${JSON.stringify(auth.realm)}`,
          `    service: ${JSON.stringify(auth.service)}`,
          `    issuer: ${JSON.stringify(auth.issuer)}`,
          `    rootcertbundle: ${JSON.stringify(certificateFile)}`,
        ]),
    '',
  ].join('\n');

export const startRegistry = async (auth?: TokenAuth, options: RegistryOptions = {}): Promise<RegistryProcess> => {
  if (!existsSync(REGISTRY_BINARY)) throw new Error(`IMAGE_REFRESH_CI=1 and the registry tests cannot run: ${MISSING}`);
  return startLocalDaemon({
    binary: REGISTRY_BINARY,
    name: 'docker-registry',
    dirPrefix: 'image-refresh-registry-',
    args: async (port, dir) => {
      const certificateFile = auth === undefined ? undefined : join(dir, 'token-issuer.pem');
      if (auth !== undefined && certificateFile !== undefined) await writeFile(certificateFile, auth.certificatePem);
      const configFile = join(dir, 'config.yml');
      await writeFile(configFile, config(join(dir, 'storage'), port, certificateFile, auth, options));
      return ['serve', configFile];
    },
    // 401: token auth is on, and the registry is serving. 400: a TLS registry
    // answering the poll's plain http ("an HTTP request to an HTTPS server").
    readyPath: '/v2/',
    readyStatuses: options.tls === undefined ? [200, 401] : [400],
    readyWithinMs: READY_WITHIN_MS,
    pollEveryMs: 20,
  });
};
