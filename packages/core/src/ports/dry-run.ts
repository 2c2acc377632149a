import * as TE from 'fp-ts/lib/TaskEither.js';
import { formatDuration } from '../config/duration.js';
import type { TickConfig } from '../config/tick-config.js';
import { ANNOTATION, describeWorkload, IMAGES } from '../domain/workloads.js';
import type { TickPorts } from '../run-tick.js';
import type { ClusterPort } from './cluster-port.js';

// `--dry-run`: the real reads, the real decisions, and every write replaced by
// a sentence saying what it would have been. Each pretend write succeeds, so
// the machine walks the path the real tick would take when nothing fails —
// the plan an operator wants to see before letting it loose.

const annotate = (config: TickConfig, changes: Readonly<Record<string, string | null>>): string =>
  `annotate deployment/${config.deploymentName} -n ${config.releaseNamespace} ${Object.entries(changes)
    .map(([key, value]) => (value === null ? `${key}-` : `${key}=${value}`))
    .join(' ')}`;

/**
 * The same ports with every write replaced by a sentence, for `--dry-run`:
 * reads still go to `ports` (so the tick decides on the real world), each
 * write, set-image, rollout wait and Event is handed to `wouldDo` as a
 * kubectl-like line (`annotate deployment/x -n ns key=value`) and succeeds.
 * The tick then walks the path it would take if nothing failed. Nothing is
 * written through `ports`.
 */
export const dryRunPorts = (ports: TickPorts, config: TickConfig, wouldDo: (action: string) => void): TickPorts => {
  const pretend = (action: string) => {
    wouldDo(action);
    return TE.right<never, void>(undefined);
  };
  const cluster: ClusterPort = {
    ...ports.cluster,
    writeSkipStreak: (streak) => pretend(annotate(config, { [ANNOTATION.skipStreak]: String(streak) })),
    clearSkipStreak: () => pretend(annotate(config, { [ANNOTATION.skipStreak]: null })),
    writeRefreshAttempt: (attempt) => pretend(annotate(config, { [ANNOTATION.refreshAttempt]: String(attempt) })),
    markFlapDetected: (attempt) => pretend(annotate(config, { [ANNOTATION.flapDetected]: String(attempt) })),
    clearFlapState: () =>
      pretend(annotate(config, { [ANNOTATION.refreshAttempt]: null, [ANNOTATION.flapDetected]: null })),
    recordDigests: (digests) =>
      pretend(
        annotate(
          config,
          Object.fromEntries(
            IMAGES.flatMap(({ name, recordKey }) => (digests[name] === undefined ? [] : [[recordKey, digests[name]]])),
          ),
        ),
      ),
    setImages: (workload, images) =>
      pretend(
        `set image ${describeWorkload(workload)} -n ${workload.namespace} ${images.map((i) => `${i.container}=${i.image}`).join(' ')}`,
      ),
    waitForRollout: (workload, timeoutMs) =>
      pretend(`wait for the rollout of ${describeWorkload(workload)} (up to ${formatDuration(timeoutMs)})`),
  };
  return ports.events === undefined
    ? { cluster, registry: ports.registry }
    : {
        cluster,
        registry: ports.registry,
        events: { record: (e) => pretend(`record the ${e.type} Event ${e.reason}: ${e.message.slice(0, 120)}`) },
      };
};
