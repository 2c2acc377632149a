import type { Option } from 'fp-ts/lib/Option.js';

// What the registry is asked and answers, as values: the resolve step decides with them (docs/behaviour.md §3.3),
// and the registry port (ports/registry-port.ts) carries them.

/** A tag's current manifest digest, as the registry answered it. */
export interface Resolution {
  /** The registry's `Docker-Content-Digest`, unvalidated: the tick checks it (I19). */
  readonly digest: string;
  /** `ratelimit-remaining` when the registry sent it. */
  readonly rateLimitRemaining: Option<number>;
}

/** One `repo:tag` to resolve on its registry, e.g. `docker.io`, `shop/web` and `stg`. */
export interface DigestRequest {
  /** The registry host (`docker.io` for Docker Hub, else `host[:port]`): the port asks that registry. */
  readonly host: string;
  /** The repository on the registry, without the registry host. */
  readonly repo: string;
  /** The floating tag (the config's imageTag). */
  readonly tag: string;
}
