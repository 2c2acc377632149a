import type { TickConfig } from '../../config/tick-config.js';
import { pulledFrom } from '../../domain/mirror.js';
import type { OwnershipFinding } from '../../domain/ownership.js';
import { describePortError, type PortError } from '../../domain/port-error.js';
import { topologyFingerprint } from '../../domain/topology-fingerprint.js';
import { describeWorkload, imageOf, type WorkloadRef } from '../../domain/workloads.js';
import { event } from '../operator-words.js';
import type { TickEvent } from '../tick-event.js';

// The ownership check's operator lines (docs/behaviour.md §3.4c): a container
// that runs another image than the one it follows, one the workload does not
// have, or a workload that could not be read — each a finding, and the tick
// writes nothing.

const NOTHING_WRITTEN = 'nothing is re-imaged or recorded this tick';

const OFF = 'OWNERSHIP_CHECK=off sets it anyway, as the script did';

export const foreignContainer = (c: TickConfig, f: OwnershipFinding): TickEvent => {
  const followed = imageOf(c.topology, f.image);
  const host = pulledFrom(c, followed);
  const where = `${describeWorkload(f.workload)} in ${f.workload.namespace}`;
  return f._tag === 'Foreign'
    ? event(
        'error',
        'FOREIGN_IMAGE',
        `ERROR: ${where} container ${f.container} runs ${f.runs}, not ${host}/${followed.repo} (at ${followed.tag} or a digest), which the profile says it follows (image "${f.image}"); ${NOTHING_WRITTEN}`,
        [
          `a container set to another image on purpose is not image-refresh's: set it back to ${host}/${followed.repo}:${followed.tag}, or map the container to the image it runs`,
          OFF,
        ],
      )
    : event(
        'error',
        'FOREIGN_IMAGE',
        `ERROR: ${where} has no container ${f.container} (it has ${f.has.join(', ') || 'none'}), which the profile maps to image "${f.image}"; ${NOTHING_WRITTEN}`,
        [`a set image would add one: fix the profile's containers of workload "${f.workload.id}"`],
      );
};

export const ownershipUnchecked = (workload: WorkloadRef, e: PortError): TickEvent =>
  event(
    'error',
    'OWNERSHIP_UNCHECKED',
    `ERROR: cannot read ${describeWorkload(workload)} in ${workload.namespace} (${describePortError(e)}), so whether its containers run what the profile says cannot be checked; ${NOTHING_WRITTEN}`,
  );

export const topologyChecked = (c: TickConfig): TickEvent =>
  event(
    'info',
    'TOPOLOGY_CHECKED',
    `every mapped container runs the image it follows: this topology (${topologyFingerprint(c.topology)}) is recorded in ${c.topology.keys.topologyFingerprint}, and checked again only when it changes`,
  );

export const topologyFingerprintUnwritten = (c: TickConfig, e: PortError): TickEvent =>
  event(
    'warn',
    'TOPOLOGY_FINGERPRINT_UNWRITTEN',
    `WARN: could not write ${c.topology.keys.topologyFingerprint} on ${describeWorkload(c.topology.gate)} (${describePortError(e)}); the next tick checks every mapped container again`,
  );
