import * as E from 'fp-ts/lib/Either.js';
import * as O from 'fp-ts/lib/Option.js';

// The registry credentials a node already pulls with: a `.dockerconfigjson`
// (the kubernetes.io/dockerconfigjson Secret the workloads' imagePullSecrets
// name), read as the kubelet reads it: `auths` keyed by `host[:port]`, with
// or without a scheme or a path, Docker Hub by any of its names; an entry's
// `auth` (base64 of `user:password`) or its `username` and `password`.
// Nothing here ever puts a username, password or `auth` into a message:
// problems name the file and the entry's key only (docs/configuration.md,
// "The registry").

/** A username and password for one registry host, sent as HTTP Basic. */
export interface BasicCredential {
  readonly username: string;
  readonly password: string;
}

/** The credentials of an auth file, looked up by registry host. */
export interface RegistryCredentials {
  /** Where they were read from (REGISTRY_AUTH_FILE's path): what messages name, never the content. */
  readonly source: string;
  /** The credential for `host` (`host[:port]` as in a URL), if the file has one. */
  readonly forHost: (host: string) => O.Option<BasicCredential>;
  /** Every secret the file holds, in each form it could be sent in: what a message must never contain. */
  readonly secrets: readonly string[];
}

const DOCKER_HUB_NAMES = new Set(['docker.io', 'index.docker.io', 'registry-1.docker.io', 'registry.hub.docker.com']);

/** `https://index.docker.io/v1/` → `docker.io`; `Harbor.example:8443/x` → `harbor.example:8443`. */
export const registryHostKey = (key: string): string => {
  const host = key
    .trim()
    .replace(/^[a-z][a-z0-9+.-]*:\/\//i, '')
    .split('/')[0]
    ?.toLowerCase();
  return host !== undefined && DOCKER_HUB_NAMES.has(host) ? 'docker.io' : (host ?? '');
};

/** The `Authorization` value for a credential. */
export const basicAuthorization = (credential: BasicCredential): string =>
  `Basic ${Buffer.from(`${credential.username}:${credential.password}`, 'utf8').toString('base64')}`;

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const nonEmptyString = (value: unknown): value is string => typeof value === 'string' && value !== '';

const credentialOf = (entry: unknown): E.Either<string, BasicCredential> => {
  if (!isRecord(entry)) return E.left('is not an object');
  if (nonEmptyString(entry.auth)) {
    const decoded = Buffer.from(entry.auth, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    return colon > 0
      ? E.right({ username: decoded.slice(0, colon), password: decoded.slice(colon + 1) })
      : E.left('has an "auth" that is not base64 of user:password');
  }
  if (nonEmptyString(entry.username) && typeof entry.password === 'string')
    return E.right({ username: entry.username, password: entry.password });
  return E.left('has neither "auth" nor "username" and "password"');
};

/** Every form a credential could take on the wire or in a file, so that none can be echoed. */
const secretsOf = (credential: BasicCredential): string[] => [
  credential.password,
  Buffer.from(`${credential.username}:${credential.password}`, 'utf8').toString('base64'),
];

/**
 * The credentials of a `.dockerconfigjson`, or why they cannot be used: not
 * JSON, no `auths` object, an entry without a usable credential. Each
 * problem names the entry's key, never its value.
 */
export const parseDockerConfig = (source: string, text: string): E.Either<string, RegistryCredentials> => {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    return E.left(
      `is not JSON (${(error as Error).name}); a .dockerconfigjson is {"auths": {"<host>": {"auth": "…"}}}`,
    );
  }
  if (!isRecord(json) || !isRecord(json.auths))
    return E.left('has no "auths" object; a .dockerconfigjson is {"auths": {"<host>": {"auth": "…"}}}');
  const byHost = new Map<string, BasicCredential>();
  const problems: string[] = [];
  for (const [key, entry] of Object.entries(json.auths)) {
    const credential = credentialOf(entry);
    if (E.isLeft(credential)) problems.push(`entry ${JSON.stringify(key)} ${credential.left}`);
    else if (!byHost.has(registryHostKey(key))) byHost.set(registryHostKey(key), credential.right);
  }
  if (problems.length > 0) return E.left(problems.join('; '));
  const secrets = [...byHost.values()].flatMap(secretsOf).filter((s) => s.length >= 4);
  return E.right({
    source,
    forHost: (host) => O.fromNullable(byHost.get(registryHostKey(host))),
    secrets,
  });
};
