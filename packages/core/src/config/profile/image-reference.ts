// Image references as a container runtime reads them (Docker's reference
// normalization): `shop/web`, `docker.io/shop/web` and
// `index.docker.io/shop/web` are one repository on Docker Hub, and a
// one-part name is an official image (`nginx` is `library/nginx`). The first
// part of a name is a registry host when it has a `.` or a `:`, or is
// `localhost`; otherwise the name is Docker Hub's.

/** Docker Hub's canonical host: what a short name means. */
export const DOCKER_HUB = 'docker.io';

/** A repository: the registry host and the path on it. */
export interface RepositoryName {
  /** `docker.io` for Docker Hub, else `host[:port]` as written. */
  readonly host: string;
  /** `shop/web`, `library/nginx`. */
  readonly path: string;
}

/** A container's image reference, parsed: its repository, and the tag and digest it names, if any. */
export interface ImageReference extends RepositoryName {
  readonly tag?: string;
  readonly digest?: string;
}

const PATH_COMPONENT = /^[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*$/;
// What a host may be written with; `isHost` already found its `.` or `:`
// (`registry:5000` included), or it is `localhost`.
const HOST = /^[A-Za-z0-9.:-]+$/;

const isHost = (part: string): boolean => part === 'localhost' || part.includes('.') || part.includes(':');

/** The repository a name means, or undefined when it is no valid repository name (a tag or digest in it included). */
export const repositoryName = (name: string): RepositoryName | undefined => {
  const parts = name.split('/');
  const [first = ''] = parts;
  const explicitHost = parts.length > 1 && isHost(first);
  if (explicitHost && !HOST.test(first)) return undefined;
  // Never empty: `split` gives at least one part, and a host is split off only when more follow.
  const pathParts = explicitHost ? parts.slice(1) : parts;
  if (!pathParts.every((p) => PATH_COMPONENT.test(p))) return undefined;
  const host = !explicitHost || first === 'index.docker.io' ? DOCKER_HUB : first;
  const path = pathParts.join('/');
  return { host, path: host === DOCKER_HUB && pathParts.length === 1 ? `library/${path}` : path };
};

/**
 * `docker.io/shop/web@sha256:…` → Docker Hub, `shop/web`, that digest;
 * `shop/web:stg` → Docker Hub, `shop/web`, tag `stg`. A reference that
 * is no valid repository keeps what it says as its path, so that it matches
 * no followed repository.
 */
export const parseImageReference = (reference: string): ImageReference => {
  const at = reference.indexOf('@');
  const named = at < 0 ? reference : reference.slice(0, at);
  const digest = at < 0 ? undefined : reference.slice(at + 1);
  const lastSlash = named.lastIndexOf('/');
  const colon = named.lastIndexOf(':');
  const name = colon > lastSlash ? named.slice(0, colon) : named;
  const tag = colon > lastSlash ? named.slice(colon + 1) : undefined;
  const repository = repositoryName(name) ?? { host: '', path: name };
  return { ...repository, ...(tag === undefined ? {} : { tag }), ...(digest === undefined ? {} : { digest }) };
};

/** Both name the same repository on the same registry. */
export const sameRepository = (a: RepositoryName, b: RepositoryName): boolean => a.host === b.host && a.path === b.path;
