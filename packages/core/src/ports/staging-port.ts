import type { TaskEither } from 'fp-ts/lib/TaskEither.js';
import type { PortError } from '../domain/port-error.js';
import type { StagingRequest, StagingResult } from '../domain/staging.js';

export type { StagingFailure, StagingRequest, StagingResult, StagingTarget } from '../domain/staging.js';

// PREPULL=on (docs/behaviour.md §3.5a): pull a workload's new images onto the
// nodes that run it before it is switched. The adapter does it with
// short-lived pods, one per node (`nodeName`), and deletes them; the tick
// asks once, for every workload of its plan, and switches only those staged
// on every node (I40).

/**
 * Where a tick stages images. Build it with the k8s-adapter's
 * `createStagingPort`. The answer has one result per target, in order; a
 * `Left` is a failure of the call as a whole (every target is then not
 * staged: fail closed). The implementation must end within
 * `request.timeoutMs` plus its clean-up, end its wait when the tick is
 * interrupted, and leave no staging pod behind in either case.
 */
export interface StagingPort {
  readonly stage: (request: StagingRequest) => TaskEither<PortError, readonly StagingResult[]>;
}
