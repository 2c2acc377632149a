import type { TaskEither } from 'fp-ts/lib/TaskEither.js';
import type { PortError } from './port-error.js';

// Kubernetes Events on the jobs-manager Deployment: where operators already
// look (`kubectl describe`, `kubectl get events`) — so "images did not update"
// is never visible only from the Job's colour (#1964, issue 6).

export interface KubeEvent {
  readonly type: 'Normal' | 'Warning';
  /** Stable, CamelCase: RefreshFrozen, RefreshFlapDetected, … */
  readonly reason: string;
  readonly message: string;
}

export interface EventsPort {
  /** Record (or, for a reason already recorded, update and count) one Event. */
  readonly record: (event: KubeEvent) => TaskEither<PortError, void>;
}
