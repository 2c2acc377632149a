import { platformTargetsOf } from '../../domain/platforms.js';
import { write } from '../step-params.js';
import type { InputArgs } from '../tick-context.js';

// What the admit phase's steps hand their actors: the candidates each check found as it started.

/** One write on the tick a digest is first seen, none while it waits (§3.4a step 2). */
export const pendingDigestsWrite = ({ context }: InputArgs) => write('writePendingDigests', context.admit.pendingWrite);

/** The digests the signature check asks about this tick (docs/behaviour.md §3.4a step 3), the halt's pins among them. */
export const signatureTargets = ({ context }: InputArgs) => ({
  targets: context.admit.signatureSubjects.map(({ host, repo, digest }) => ({ host, repo, digest })),
});

/** The manifests the platform check reads this tick: each changed digest, then its recorded one (§3.4a step 4). */
export const platformTargets = ({ context }: InputArgs) => ({
  targets: platformTargetsOf(context.admit.platformSubjects),
});
