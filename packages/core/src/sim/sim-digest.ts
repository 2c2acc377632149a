// Deterministic, well-formed sha256 digests for the simulator: the same label
// always gives the same digest, so scenarios and counterexamples replay.

const fnv1a = (text: string, seed: number): number => {
  let hash = 0x811c9dc5 ^ seed;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash >>> 0;
};

/** A well-formed sha256 digest derived from `label`: the same label always gives the same digest. */
export const simDigest = (label: string): string => {
  let hex = '';
  for (let block = 0; block < 8; block++) hex += fnv1a(label, block).toString(16).padStart(8, '0');
  return `sha256:${hex}`;
};
