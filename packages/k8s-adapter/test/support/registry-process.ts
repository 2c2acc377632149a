import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './registry-local-server.js';

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

export interface RegistryProcess {
  readonly url: string;
  stop(): Promise<void>;
}

const READY_WITHIN_MS = 10_000;

/** Storage switches some tests need; distribution's defaults otherwise. */
export interface RegistryOptions {
  /** `storage.delete.enabled`: lets a test DELETE a blob to model a signature whose payload is gone. */
  readonly deletable?: boolean;
}

const config = (
  root: string,
  port: number,
  certificateFile: string | undefined,
  auth: TokenAuth | undefined,
  options: RegistryOptions,
): string =>
  [
    'version: 0.1',
    'log:',
    '  level: error',
    '  accesslog:',
    '    disabled: true',
    'storage:',
    '  filesystem:',
    `    rootdirectory: ${JSON.stringify(root)}`,
    ...(options.deletable === true ? ['  delete:', '    enabled: true'] : []),
    'http:',
    `  addr: 127.0.0.1:${port}`,
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

const exited = (child: ChildProcess): Promise<void> =>
  new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once('exit', () => resolve());
  });

const waitUntilServing = async (url: string, child: ChildProcess, output: () => string): Promise<void> => {
  const deadline = Date.now() + READY_WITHIN_MS;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`docker-registry exited with ${child.exitCode}: ${output()}`);
    const answered = await fetch(`${url}/v2/`, { signal: AbortSignal.timeout(500) }).then(
      (response) => response.status === 200 || response.status === 401,
      // Not listening yet: poll again.
      () => false,
    );
    if (answered) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`docker-registry did not serve ${url}/v2/ within ${READY_WITHIN_MS} ms: ${output()}`);
};

export const startRegistry = async (auth?: TokenAuth, options: RegistryOptions = {}): Promise<RegistryProcess> => {
  if (!existsSync(REGISTRY_BINARY)) throw new Error(`IMAGE_REFRESH_CI=1 and the registry tests cannot run: ${MISSING}`);
  const dir = await mkdtemp(join(tmpdir(), 'image-refresh-registry-'));
  const port = await freePort();
  const certificateFile = auth === undefined ? undefined : join(dir, 'token-issuer.pem');
  if (auth !== undefined && certificateFile !== undefined) await writeFile(certificateFile, auth.certificatePem);
  const configFile = join(dir, 'config.yml');
  await writeFile(configFile, config(join(dir, 'storage'), port, certificateFile, auth, options));

  // A clean environment: REGISTRY_* variables would override the config file.
  const child = spawn(REGISTRY_BINARY, ['serve', configFile], {
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const keep = (chunk: Buffer): void => {
    output = (output + chunk.toString()).slice(-4_000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);

  const url = `http://127.0.0.1:${port}`;
  const stop = async (): Promise<void> => {
    child.kill('SIGTERM');
    await exited(child);
    await rm(dir, { recursive: true, force: true });
  };
  try {
    await waitUntilServing(url, child, () => output);
  } catch (error) {
    await stop();
    throw error;
  }
  return { url, stop };
};
