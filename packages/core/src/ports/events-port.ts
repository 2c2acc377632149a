import type { TaskEither } from 'fp-ts/lib/TaskEither.js';
import type { PortError } from '../domain/port-error.js';

// Kubernetes Events on the gate workload: where operators already
// look (`kubectl describe`, `kubectl get events`) — so "images did not update"
// is never visible only from the Job's colour (#1964, I18b).

/** A Kubernetes Event to record on the gate workload (`kubernetesEventsFor` makes them). */
export interface KubeEvent {
  /** `Warning` for findings and warnings, `Normal` for skips and successful re-images. */
  readonly type: 'Normal' | 'Warning';
  /** Stable, CamelCase: RefreshFrozen, RefreshFlapDetected, … */
  readonly reason: string;
  /** The tick's own words; several of one reason joined, at most 1024 UTF-8 bytes (the apiserver's limit). */
  readonly message: string;
}

/**
 * Where a tick records its findings as Kubernetes Events, after it has
 * decided: a `Left` is a WARN line and changes neither the exit code nor any
 * write (I18b).
 */
export interface EventsPort {
  /** Record (or, for a reason already recorded, update and count) one Event. */
  readonly record: (event: KubeEvent) => TaskEither<PortError, void>;
}
