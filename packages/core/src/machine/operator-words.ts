import type { TickConfig } from '../config/tick-config.js';
import type { WorkloadChange } from '../domain/plan.js';
import { ANNOTATION, describeWorkload, type WorkloadRef, workloadRef } from '../domain/workloads.js';
import { tickEvent } from './tick-event.js';

// Words every phase's operator lines share, spelled once: the workloads as
// kubectl names them, and a patch as `container=image …`.

export const event = tickEvent;

export const jobsManager = (c: TickConfig): string => describeWorkload(workloadRef(c, 'jobs-manager'));
export const requestsProxy = (c: TickConfig): string => describeWorkload(workloadRef(c, 'requests-proxy'));
export const resourceMonitor = (c: TickConfig): string => describeWorkload(workloadRef(c, 'resource-monitor'));

/**
 * The script's own form of a patched workload: a DaemonSet says its
 * namespace (the node agents'), a Deployment lives in the release namespace
 * and does not.
 */
export const where = (workload: WorkloadRef): string =>
  `${describeWorkload(workload)}${workload.kind === 'DaemonSet' ? ` in ${workload.namespace}` : ''}`;

/** `container=image …`, as `kubectl set image` is given it. */
export const patchText = (change: WorkloadChange): string =>
  change.images.map((i) => `${i.container}=${i.image}`).join(' ');

/** How a human re-arms refresh after the flap lockout or a failed success reset (#563). */
export const rearmCommand = (c: TickConfig): string =>
  `kubectl annotate deployment -n ${c.releaseNamespace} ${c.deploymentName} ${ANNOTATION.refreshAttempt}- ${ANNOTATION.flapDetected}-   (or: image-refresh rearm)`;

/** What a failed re-image tick leaves (I7, I9): said by every line that ends one. */
export const NOTHING_RECORDED = 'the attempt counter stays incremented and the new digests are not recorded';
