import type { Topology } from '../config/profile/topology.js';

// What the ownership check last found true, as a fingerprint on the gate
// (docs/behaviour.md §3.4c): the workloads' kinds, namespaces and names, each
// container's image, the images' repositories and tags, and what is pinned.
// A tick whose topology has another fingerprint than the recorded one checks
// every mapped container at once, so a typo in a workload's name or a
// container map is a finding on the next tick, not at the next build. A
// steady tick compares two strings and reads nothing more.

const FNV_OFFSET = 0xcbf29ce484222325n;
const FNV_PRIME = 0x100000001b3n;
const MASK = 0xffffffffffffffffn;

/** FNV-1a, 64 bits, over the UTF-16 code units: a checksum, not a secret. */
const fnv1a64 = (text: string): string => {
  let hash = FNV_OFFSET;
  for (let i = 0; i < text.length; i++) {
    hash ^= BigInt(text.charCodeAt(i));
    hash = (hash * FNV_PRIME) & MASK;
  }
  return hash.toString(16).padStart(16, '0');
};

/** The topology as one canonical line: every list sorted, so the profile's order does not move it. */
const canonical = (topology: Topology): string =>
  [
    ...topology.workloads
      .map(
        (w) =>
          `w ${w.kind}/${w.namespace}/${w.name} ${[...w.containers]
            .map((c) => `${c.container}=${c.image}`)
            .sort()
            .join(',')}${w.pinned ? ' pinned' : ''}`,
      )
      .sort(),
    ...topology.images.map((i) => `i ${i.name}=${i.host}/${i.repo}:${i.tag}${i.pinned ? ' pinned' : ''}`).sort(),
  ].join('\n');

/**
 * Every tick compares the recorded fingerprint with its topology's, and a
 * topology is one object for the life of a process (the config's): computed
 * once per topology, not once per tick — BigInt hashing was 6 % of a steady
 * simulated tick (README, Benchmarks).
 */
const computed = new WeakMap<Topology, string>();

/** `v1-<16 hex digits>`: the fingerprint the gate records once every mapped container was found the followed image's. */
export const topologyFingerprint = (topology: Topology): string => {
  const known = computed.get(topology);
  if (known !== undefined) return known;
  const fingerprint = `v1-${fnv1a64(canonical(topology))}`;
  computed.set(topology, fingerprint);
  return fingerprint;
};
