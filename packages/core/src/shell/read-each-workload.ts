import * as E from 'fp-ts/lib/Either.js';
import type { TaskEither } from 'fp-ts/lib/TaskEither.js';
import type { PortError } from '../domain/port-error.js';
import type { LiveWorkload, WorkloadRef } from '../domain/workloads.js';
import { type OwnedWorkloadAnswers, portErrorOf } from '../machine/tick-actors.js';
import type { ClusterPort } from '../ports/cluster-port.js';

// The machine's one `observeOwnedWorkloads` call as the cluster port's reads
// of each workload the ownership check needs (docs/behaviour.md §3.4c): one
// request each, all at once, so the check costs a tick one request's time,
// not one per workload. Each answer stands alone: a workload that cannot be
// read is named in its own line — a read that throws or rejects (a defect of
// the port) too, as a failed read of that workload only.

const readOne = async (cluster: ClusterPort, workload: WorkloadRef): Promise<E.Either<PortError, LiveWorkload>> => {
  try {
    return await cluster.observeWorkload(workload, 0)();
  } catch (defect) {
    return E.left(portErrorOf({ error: defect }));
  }
};

export const readEachWorkload =
  (cluster: ClusterPort, workloads: readonly WorkloadRef[]): TaskEither<never, OwnedWorkloadAnswers> =>
  async () =>
    E.right(await Promise.all(workloads.map((workload) => readOne(cluster, workload))));
