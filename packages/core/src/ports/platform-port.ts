import type { TaskEither } from 'fp-ts/lib/TaskEither.js';
import type { PlatformAnswer, PlatformTarget } from '../domain/platforms.js';
import type { RegistryError } from '../domain/port-error.js';

export type { Platform, PlatformAnswer, PlatformTarget } from '../domain/platforms.js';

// PLATFORM_CHECK=on (docs/behaviour.md §3.4a step 4): which platforms does a
// digest provide? The adapter reads the manifest (an OCI index or Docker
// list: its entries' platforms; a single image: its config blob's), each
// read size-capped; the tick only asks, for a changed digest and the recorded
// one, and decides what the answer means. Never asked on a steady tick.

/**
 * Where a tick reads the platforms of a digest. Build it with the
 * k8s-adapter's `createPlatformReader`. A `Left` is a registry failure (5xx,
 * timeout, 401/403, 429); `Unreadable` a manifest that holds no answer (an
 * unknown media type, too large, its config missing). Either way the digest
 * is not admitted this tick (fail closed). Every request is bounded by
 * REGISTRY_TIMEOUT; the tick bounds the whole call too (I17).
 */
export interface PlatformPort {
  readonly read: (target: PlatformTarget) => TaskEither<RegistryError, PlatformAnswer>;
}
