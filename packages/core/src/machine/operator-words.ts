import type { TickConfig } from '../config/tick-config.js';
import type { WorkloadChange } from '../domain/plan.js';
import { describeWorkload, type WorkloadRef } from '../domain/workloads.js';
import { tickEvent } from './tick-event.js';

// Words every phase's operator lines share, spelled once: the workloads as
// kubectl names them, and a patch as `container=image …`.

export const event = tickEvent;

/** The gate, as kubectl names it: `deployment/web`. */
export const gate = (c: TickConfig): string => describeWorkload(c.topology.gate);

/** `a`, `a and b`, `a, b and c`: a list in an operator's sentence. */
/** How lines name the followed images as a group: the profile's noun (the chart's `client images`), or `images`. */
export const imagesNoun = (c: TickConfig): string => c.topology.profile.nouns?.images ?? 'images';

/** How lines name the workloads as a group: the profile's noun (the chart's `control-plane workloads`), or `workloads`. */
export const workloadsNoun = (c: TickConfig): string => c.topology.profile.nouns?.workloads ?? 'workloads';

export const listed = (items: readonly string[]): string =>
  items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`;

/**
 * The script's own form of a patched workload: a DaemonSet says its
 * namespace (the node agents'), a Deployment lives in the release namespace
 * and does not.
 */
export const where = (workload: WorkloadRef): string =>
  `${describeWorkload(workload)}${workload.kind === 'DaemonSet' ? ` in ${workload.namespace}` : ''}`;

/** `kubectl annotate deployment -n <ns> <name>`: the command that edits the gate's bookkeeping by hand. */
export const annotateGate = (c: TickConfig): string =>
  `kubectl annotate ${c.topology.gate.kind === 'Deployment' ? 'deployment' : 'daemonset'} -n ${c.topology.gate.namespace} ${c.topology.gate.name}`;

/** `container=image …`, as `kubectl set image` is given it. */
export const patchText = (change: WorkloadChange): string =>
  change.images.map((i) => `${i.container}=${i.image}`).join(' ');

/** How a human re-arms refresh after the flap lockout or a failed success reset (#563). */
export const rearmCommand = (c: TickConfig): string =>
  `${annotateGate(c)} ${c.topology.keys.refreshAttempt}- ${c.topology.keys.flapDetected}-   (or: image-refresh rearm)`;

/** What a failed re-image tick leaves (I7, I9): said by every line that ends one. */
export const NOTHING_RECORDED = 'the attempt counter stays incremented and the new digests are not recorded';
