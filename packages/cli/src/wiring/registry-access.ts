import { X509Certificate } from 'node:crypto';
import { type ConfigError, REGISTRY_ACCESS_ENV } from '@image-refresh/core';
import { parseDockerConfig, type RegistryCredentials } from '@image-refresh/k8s-adapter';
import * as E from 'fp-ts/lib/Either.js';

// Core does no I/O, so the CLI reads what a private registry is reached with
// — REGISTRY_AUTH_FILE (a .dockerconfigjson) and REGISTRY_CA_FILE (PEM) —
// before any call. A file that is missing, unreadable or not what it should
// be is a configuration error (exit 2) naming the variable and the file, and
// never anything the file holds (docs/configuration.md, "The registry").

/** How every registry request of a tick is made beyond the anonymous default. */
export interface RegistryAccess {
  readonly credentials?: RegistryCredentials;
  /** PEM certificates trusted beside the system's. */
  readonly ca?: string;
  /** REGISTRY_PLAIN_HTTP: the `host[:port]`s reached over http://. */
  readonly plainHttp?: readonly string[];
}

type Env = Readonly<Record<string, string | undefined>>;

const fileOf = (env: Env, variable: string): string | undefined => {
  const value = env[variable]?.trim();
  return value === undefined || value === '' ? undefined : value;
};

const readText = async (variable: string, file: string): Promise<E.Either<ConfigError, string>> => {
  // Loaded only when a file is named: loaded at start, it cost every steady tick (README.md, Benchmarks).
  const { readFile } = await import('node:fs/promises');
  try {
    return E.right(await readFile(file, 'utf8'));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    return E.left({ variable, value: file, problem: `cannot be read (${code})` });
  }
};

const readCredentials = async (file: string): Promise<E.Either<ConfigError, RegistryCredentials>> => {
  const variable = REGISTRY_ACCESS_ENV.registryAuthFile;
  const text = await readText(variable, file);
  if (E.isLeft(text)) return text;
  return E.mapLeft((problem: string) => ({ variable, value: file, problem }))(parseDockerConfig(file, text.right));
};

const PEM_CERTIFICATE = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;

const readCa = async (file: string): Promise<E.Either<ConfigError, string>> => {
  const variable = REGISTRY_ACCESS_ENV.registryCaFile;
  const text = await readText(variable, file);
  if (E.isLeft(text)) return text;
  const certificates = text.right.match(PEM_CERTIFICATE) ?? [];
  if (certificates.length === 0)
    return E.left({ variable, value: file, problem: 'holds no PEM certificate (-----BEGIN CERTIFICATE-----)' });
  for (const [index, pem] of certificates.entries()) {
    try {
      new X509Certificate(pem);
    } catch (error) {
      return E.left({
        variable,
        value: file,
        problem: `certificate ${index + 1} of ${certificates.length} does not parse (${(error as Error).message})`,
      });
    }
  }
  return E.right(certificates.join('\n'));
};

/** `host`, `host:port`, `[v6]:port`: what containerd's insecure registries list. */
const HOST_PORT =
  /^(?:[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/;
/** Docker Hub's names: its URL is IMAGE_REFRESH_REGISTRY_URL's, whose scheme is explicit. */
const DOCKER_HUB_NAMES = new Set(['docker.io', 'index.docker.io', 'registry-1.docker.io']);

const readPlainHttp = (env: Env): E.Either<ConfigError, readonly string[] | undefined> => {
  const variable = REGISTRY_ACCESS_ENV.registryPlainHttp;
  const value = fileOf(env, variable);
  if (value === undefined) return E.right(undefined);
  const hosts = value.split(',').map((h) => h.trim());
  const wrong = hosts.filter((h) => !HOST_PORT.test(h));
  if (wrong.length > 0) {
    return E.left({
      variable,
      value,
      problem: `${wrong.map((h) => JSON.stringify(h)).join(', ')} is no host[:port] (comma-separated, no scheme or path, e.g. registry.local:5000)`,
    });
  }
  const hub = hosts.filter((h) => DOCKER_HUB_NAMES.has(h));
  if (hub.length > 0) {
    return E.left({
      variable,
      value,
      problem: `${hub.join(', ')} is Docker Hub, reached as IMAGE_REFRESH_REGISTRY_URL says (its scheme is explicit)`,
    });
  }
  return E.right([...new Set(hosts)]);
};

/** The registry access the environment names, read and checked; every problem at once. */
export const loadRegistryAccess = async (env: Env): Promise<E.Either<readonly ConfigError[], RegistryAccess>> => {
  const authFile = fileOf(env, REGISTRY_ACCESS_ENV.registryAuthFile);
  const caFile = fileOf(env, REGISTRY_ACCESS_ENV.registryCaFile);
  const credentials = authFile === undefined ? E.right(undefined) : await readCredentials(authFile);
  const ca = caFile === undefined ? E.right(undefined) : await readCa(caFile);
  const plainHttp = readPlainHttp(env);
  const problems = [credentials, ca, plainHttp].flatMap((part) => (E.isLeft(part) ? [part.left] : []));
  if (E.isLeft(credentials) || E.isLeft(ca) || E.isLeft(plainHttp)) return E.left(problems);
  return E.right({
    ...(credentials.right === undefined ? {} : { credentials: credentials.right }),
    ...(ca.right === undefined ? {} : { ca: ca.right }),
    ...(plainHttp.right === undefined ? {} : { plainHttp: plainHttp.right }),
  });
};
