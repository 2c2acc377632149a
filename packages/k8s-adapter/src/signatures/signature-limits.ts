// Bounds on what a signature check reads and requests: a size limit on what
// is read. A signature manifest holds one small layer
// descriptor per signature; a bundle with a certificate chain and a log entry
// is ≈ 5–10 KB; a simple-signing payload is < 1 KB. The caps leave room for a
// few hundred signatures and refuse what no signer produces.

/** Caps on what one signature check reads and tries; see {@link DEFAULT_SIGNATURE_LIMITS}. */
export interface SignatureLimits {
  /** A `.sig` manifest, a referrers index, a bundle manifest. */
  readonly maxManifestBytes: number;
  /** A simple-signing payload or a bundle blob. */
  readonly maxBlobBytes: number;
  /** Signature layers of one `.sig` manifest that are tried; the rest are ignored. */
  readonly maxSignatureLayers: number;
  /** Bundle referrers of one digest that are tried; the rest are ignored. */
  readonly maxBundles: number;
}

/** 512 KiB per manifest or index, 256 KiB per blob, 16 `.sig` layers, 8 bundles. */
export const DEFAULT_SIGNATURE_LIMITS: SignatureLimits = {
  maxManifestBytes: 512 * 1024,
  maxBlobBytes: 256 * 1024,
  maxSignatureLayers: 16,
  maxBundles: 8,
};
