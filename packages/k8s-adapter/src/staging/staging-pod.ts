import { createHash } from 'node:crypto';
import type { WorkloadRef } from '@image-refresh/core';
import type { V1Pod, V1Toleration } from '@kubernetes/client-node';

// The short-lived pod that stages a workload's new images on one node
// (docs/behaviour.md §3.5a): bound to the node by `nodeName` (no scheduler),
// `IfNotPresent` so a node that has the image is staged at once, `Never`
// restarted, no service account token, the workload's own pull secrets and
// tolerations, requests of 1m/1Mi. Its command is a path no image has: the
// runtime pulls and unpacks the image, then fails to start it — nothing of the
// workload ever runs (a jobs-manager that started would reach for its
// database). Labelled so that a later tick finds it: who made it, for which
// workload, for which images.

/** The label every staging pod carries: the chart's convention for "made by". */
export const MANAGED_BY = { key: 'app.kubernetes.io/managed-by', value: 'image-refresh' } as const;
/** Which workload a staging pod stages for: `<kind>.<name>` (hashed when longer than a label value may be). */
export const STAGING_FOR = 'image-refresh.tracebloc.io/staging-for';
/** Which images: the first 40 hex digits of the SHA-256 of the references, one per line, sorted. */
export const STAGING_IMAGES = 'image-refresh.tracebloc.io/staging-images';
/** The references themselves, for a human reading the pod. */
export const STAGING_IMAGES_ANNOTATION = 'image-refresh.tracebloc.io/images';
/** The command a staging container is given: no image has it, so nothing of the workload starts. */
export const PULL_ONLY_COMMAND = '/image-refresh-staging-pulls-only';

const hex = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');

/** A label value: at most 63 characters, alphanumerics with `-_.` inside; longer names are hashed. */
const labelValue = (text: string): string => (text.length <= 63 ? text : `h-${hex(text).slice(0, 40)}`);

/** The `staging-for` label of a workload's staging pods. */
export const stagingFor = (ref: WorkloadRef): string => labelValue(`${ref.kind.toLowerCase()}.${ref.name}`);

/** The `staging-images` label of a set of references. */
export const stagingImages = (images: readonly string[]): string => hex([...images].sort().join('\n')).slice(0, 40);

/** The label selector of every staging pod of a workload (any images). */
export const stagingPodsOf = (ref: WorkloadRef): string =>
  `${MANAGED_BY.key}=${MANAGED_BY.value},${STAGING_FOR}=${stagingFor(ref)}`;

/** The same pod name for the same workload, node and images, tick after tick: a pod a killed tick left is found by it. */
export const stagingPodName = (ref: WorkloadRef, node: string, images: readonly string[]): string =>
  `${ref.name.slice(0, 40).replace(/[.-]+$/, '')}-staging-${hex(`${node}\n${stagingImages(images)}`).slice(0, 12)}`;

/** What a staging pod copies of its workload's pod template. */
export interface WorkloadPodFacts {
  readonly imagePullSecrets: readonly { readonly name: string }[];
  readonly tolerations: readonly V1Toleration[];
}

export interface StagingPodRequest {
  readonly ref: WorkloadRef;
  readonly node: string;
  readonly images: readonly string[];
  readonly facts: WorkloadPodFacts;
  /** The pod's own activeDeadlineSeconds: should the tick be killed, the kubelet still ends it. */
  readonly activeDeadlineSeconds: number;
}

/** The staging pod of one workload on one node, as the API server is sent it. */
export const stagingPod = (r: StagingPodRequest): V1Pod => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: {
    name: stagingPodName(r.ref, r.node, r.images),
    namespace: r.ref.namespace,
    labels: {
      [MANAGED_BY.key]: MANAGED_BY.value,
      [STAGING_FOR]: stagingFor(r.ref),
      [STAGING_IMAGES]: stagingImages(r.images),
    },
    annotations: { [STAGING_IMAGES_ANNOTATION]: r.images.join(' ') },
  },
  spec: {
    nodeName: r.node,
    restartPolicy: 'Never',
    automountServiceAccountToken: false,
    enableServiceLinks: false,
    terminationGracePeriodSeconds: 0,
    activeDeadlineSeconds: r.activeDeadlineSeconds,
    imagePullSecrets: r.facts.imagePullSecrets.map(({ name }) => ({ name })),
    tolerations: [...r.facts.tolerations],
    // The restricted Pod Security profile's, so the release namespace admits it whatever its level.
    securityContext: {
      runAsNonRoot: true,
      runAsUser: 65534,
      runAsGroup: 65534,
      seccompProfile: { type: 'RuntimeDefault' },
    },
    containers: r.images.map((image, index) => ({
      name: `stage-${index}`,
      image,
      imagePullPolicy: 'IfNotPresent',
      command: [PULL_ONLY_COMMAND],
      resources: { requests: { cpu: '1m', memory: '1Mi' } },
      securityContext: {
        allowPrivilegeEscalation: false,
        readOnlyRootFilesystem: true,
        capabilities: { drop: ['ALL'] },
      },
    })),
  },
});
