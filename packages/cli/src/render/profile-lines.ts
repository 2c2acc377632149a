import { describeWorkload, type TickConfig, type TopologyWorkload } from '@image-refresh/core';

// What `tick --dry-run` says of the topology it understood (docs/profiles.md):
// before an operator lets a new profile write, they read which containers of
// which workloads it would keep on which image, which are pinned on this
// edge, which workload gates the tick and where the bookkeeping goes.

const pin = (variable: string | undefined, pinned: boolean): string =>
  variable === undefined ? '' : pinned ? `, pinned by ${variable}=1` : `, pinned when ${variable}=1`;

const role = (w: TopologyWorkload, gateId: string): string =>
  w.id === gateId ? ' (the gate)' : w.decoupled ? ' (decoupled)' : '';

/** The profile as understood, one line per image and per workload, after a header naming its source. */
export const profileLines = (config: TickConfig, file: string | undefined): string[] => {
  const { profile, images, workloads, gate } = config.topology;
  return [
    `profile ${file === undefined ? "(none: the chart's topology, named by its variables)" : file}: bookkeeping under ${profile.annotationPrefix}/ on ${describeWorkload(gate)} in ${gate.namespace}`,
    ...images.map((i) => `  image ${i.name}: ${i.host}/${i.repo}:${i.tag}${pin(i.pinnedBy, i.pinned)}`),
    // MIRROR_MODE (docs/behaviour.md §3.3): where the pods pull through, and whether the tick follows upstream.
    ...(config.mirror === undefined
      ? []
      : [
          `  mirror ${config.mirror.host}: ${config.mirror.followUpstream ? 'tags resolved upstream, pinned through it (MIRROR_MODE=follow-upstream)' : 'inert behind it (MIRROR_MODE unset)'}`,
        ]),
    ...workloads.map(
      (w) =>
        `  ${describeWorkload(w)} in ${w.namespace}${role(w, gate.id)}${pin(w.pinnedBy, w.pinned)}: ${w.containers.map((c) => `${c.container} runs ${c.image}`).join(', ')}`,
    ),
  ];
};
