import * as E from 'fp-ts/lib/Either.js';
import { DOCKER_HUB, repositoryName } from '../config/profile/image-reference.js';
import { type Digest, isWellFormedDigest } from './digest.js';
import { CONTROL_CHARACTERS, isObject, parseVersionOne, RFC_3339, unknownFields } from './strict-document.js';

// The fleet halt (docs/behaviour.md §3.4b): one signed document, published to
// the registry under FLEET_HALT_REF, that every edge reads on every tick. It
// names, per repository, the digests no set image may move a container to
// (or `*`: no re-image of that repository at all), optionally the digest to
// send a halted container back to (`pin`), why, and until when. This module
// reads the document and answers the questions the tick asks of it; it does
// no I/O and reads no clock (I20): `now` is given.
//
// The document is strict. A field it does not know, a version it does not
// speak, a digest that is not well-formed (I19), a missing or far-off expiry:
// each is a document that does not parse, and a halt that does not parse
// fails closed — no re-image that tick (I37).

/** The document's media type: the layer an `oras push` of the file carries, and the artifact type. */
export const FLEET_HALT_MEDIA_TYPE = 'application/vnd.tracebloc.image-refresh.fleet-halt.v1+json';

/** The halt artifact: one repository and the manifest digest its tag answered. */
export interface FleetHaltTarget {
  /** The registry host the halt is published on (`docker.io` for Docker Hub). */
  readonly host: string;
  readonly repo: string;
  readonly digest: string;
}

/** The document's text, or why the artifact holds none this tick can read (fail closed: I37). */
export type FleetHaltDocument =
  | { readonly _tag: 'Document'; readonly text: string }
  | { readonly _tag: 'Unusable'; readonly why: string };

/** A halt may hold at most 30 days: an andon cord, not a freeze nobody remembers (docs/behaviour.md §3.4b). */
export const MAX_HALT_MS = 30 * 24 * 60 * 60 * 1_000;

/** At most this many bytes of document are read: the adapter stops reading past it. */
export const MAX_HALT_BYTES = 16 * 1_024;

const MAX_REASON = 256;

/** What the halt says of one repository. */
export interface RepositoryHalt {
  /** The halted digests, or every digest (`*`): no re-image of this repository but to its pin. */
  readonly digests: '*' | readonly Digest[];
  /** Where a container that runs a halted digest is sent back to, if anywhere. */
  readonly pin: Digest | undefined;
}

/** A halt document that parsed (parseFleetHalt): why, until when, and what it halts per repository. */
export interface FleetHalt {
  readonly reason: string;
  /** As the document wrote it (RFC 3339). */
  readonly expires: string;
  readonly expiresAtMs: number;
  /**
   * Repository → its halt: a Docker Hub repository by its short name
   * (`shop/web`; written `docker.io/shop/web` too), any other by its full name
   * (`ghcr.io/org/app`): see {@link haltKeyOf}.
   */
  readonly repositories: Readonly<Record<string, RepositoryHalt>>;
}

const TOP_LEVEL = new Set(['version', 'reason', 'expires', 'repositories']);
const PER_REPOSITORY = new Set(['digests', 'pin']);

/**
 * How a halt names an image's repository: Docker Hub's by the short name
 * today's halts use (`shop/web`), any other registry's by its full name
 * (`ghcr.io/org/app`), so a short name keeps meaning Docker Hub (docs/behaviour.md §3.4b).
 */
export const haltKeyOf = ({ host, repo }: { readonly host: string; readonly repo: string }): string =>
  host === DOCKER_HUB ? repo : `${host}/${repo}`;

/** A document's key, as {@link haltKeyOf} names it; undefined when it names no repository. */
const canonicalKey = (key: string): string | undefined => {
  // repositoryName holds each path part to the distribution grammar and gives
  // a Docker Hub name its namespace (`web` is `library/web`), as halts always had.
  const name = repositoryName(key);
  return name === undefined ? undefined : haltKeyOf({ host: name.host, repo: name.path });
};

const repositoryHalt = (repo: string, value: unknown): E.Either<string, RepositoryHalt> => {
  if (canonicalKey(repo) === undefined)
    return E.left(`"${repo}" is not a repository path (namespace/name on Docker Hub, or host[:port]/path)`);
  if (!isObject(value)) return E.left(`repositories["${repo}"] is not an object`);
  const unknown = unknownFields(value, PER_REPOSITORY);
  if (unknown.length > 0) return E.left(`repositories["${repo}"] has unknown field(s) ${unknown.join(', ')}`);
  const { digests, pin } = value;
  if (pin !== undefined && (typeof pin !== 'string' || !isWellFormedDigest(pin))) {
    return E.left(`repositories["${repo}"].pin is not a well-formed digest`);
  }
  if (digests === '*') return E.right({ digests: '*', pin });
  if (!Array.isArray(digests) || digests.length === 0) {
    return E.left(`repositories["${repo}"].digests must be "*" or a non-empty list of digests`);
  }
  const malformed = digests.filter((d) => typeof d !== 'string' || !isWellFormedDigest(d));
  if (malformed.length > 0)
    return E.left(`repositories["${repo}"].digests holds ${malformed.length} malformed digest(s)`);
  const halted = digests as Digest[];
  if (pin !== undefined && halted.includes(pin)) {
    return E.left(`repositories["${repo}"].pin is one of its own halted digests`);
  }
  return E.right({ digests: halted, pin });
};

/**
 * The halt document read and checked, or why it is not one. `nowMs` is the
 * tick's clock: an expiry more than 30 days after it is refused, so a stale
 * or hand-made far-off halt cannot freeze the fleet. An expiry already past
 * parses: an expired halt is ignored, and said so (haltIsInForce).
 */
export const parseFleetHalt = (text: string, nowMs: number): E.Either<string, FleetHalt> => {
  const parsed = parseVersionOne(text, TOP_LEVEL);
  if (E.isLeft(parsed)) return parsed;
  const { reason, expires, repositories } = parsed.right;
  if (typeof reason !== 'string' || reason.trim() === '') return E.left('no reason');
  if (reason.length > MAX_REASON) return E.left(`reason longer than ${MAX_REASON} characters`);
  if (CONTROL_CHARACTERS.test(reason)) return E.left('reason holds control characters');
  if (typeof expires !== 'string' || !RFC_3339.test(expires)) return E.left('expires is not an RFC 3339 time');
  const expiresAtMs = Date.parse(expires);
  if (!Number.isFinite(expiresAtMs)) return E.left('expires is not an RFC 3339 time');
  if (expiresAtMs - nowMs > MAX_HALT_MS) return E.left(`expires ${expires} is more than 30 days ahead`);
  // An empty object is a halt that names nothing: published under the tag, it lifts a halt.
  if (!isObject(repositories)) return E.left('repositories is not an object');
  const halts: Record<string, RepositoryHalt> = {};
  for (const [repo, value] of Object.entries(repositories)) {
    const halt = repositoryHalt(repo, value);
    if (E.isLeft(halt)) return halt;
    halts[canonicalKey(repo) ?? repo] = halt.right;
  }
  return E.right({ reason, expires, expiresAtMs, repositories: halts });
};

/** A halt holds until its expiry; one past it is ignored (and the tick says so once). */
export const haltIsInForce = (halt: FleetHalt, nowMs: number): boolean => nowMs < halt.expiresAtMs;

/** May no set image move a container of `repo` to `digest`? The pin itself is never halted. */
export const isHaltedDigest = (halt: FleetHalt, repo: string, digest: string): boolean => {
  const repository = halt.repositories[repo];
  if (repository === undefined || digest === repository.pin) return false;
  return repository.digests === '*' || repository.digests.includes(digest as Digest);
};

/** The digest a container of `repo` that runs a halted digest is sent back to, if the halt names one. */
export const pinOf = (halt: FleetHalt, repo: string): Digest | undefined => halt.repositories[repo]?.pin;

/** What `image-refresh halt render` is given, before it is checked: parse the rendered text to check it. */
export interface FleetHaltDraft {
  readonly reason: string;
  readonly expires: string;
  readonly repositories: Readonly<
    Record<string, { readonly digests: '*' | readonly string[]; readonly pin?: string | undefined }>
  >;
}

/** The document, as `image-refresh halt render` writes it: stable key order, one trailing newline. */
export const renderFleetHalt = (halt: FleetHaltDraft): string =>
  `${JSON.stringify(
    {
      version: 1,
      reason: halt.reason,
      expires: halt.expires,
      repositories: Object.fromEntries(
        Object.entries(halt.repositories).map(([repo, r]) => [
          repo,
          // JSON.stringify leaves an undefined pin out.
          { digests: r.digests, pin: r.pin },
        ]),
      ),
    },
    null,
    2,
  )}\n`;
