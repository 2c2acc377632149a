import { createHash, randomBytes } from 'node:crypto';

// Pushing images with plain HTTP, as the distribution spec describes (its
// push section): POST an upload, PUT the blob to its Location with the digest,
// then PUT the manifest under a tag. Each push makes fresh blobs, so pushing
// the same tag again moves it to a new digest — the event a tick looks for.

export const OCI_MANIFEST = 'application/vnd.oci.image.manifest.v1+json';
export const OCI_INDEX = 'application/vnd.oci.image.index.v1+json';
export const DOCKER_MANIFEST = 'application/vnd.docker.distribution.manifest.v2+json';

export interface Pushed {
  readonly digest: string;
  readonly size: number;
  readonly mediaType: string;
}

const sha256 = (content: Buffer): string => `sha256:${createHash('sha256').update(content).digest('hex')}`;

const authHeaders = (token: string | undefined): Record<string, string> =>
  token === undefined ? {} : { Authorization: `Bearer ${token}` };

const expectStatus = async (response: Response, status: number, what: string): Promise<void> => {
  if (response.status !== status) {
    throw new Error(`${what}: expected HTTP ${status}, got ${response.status}: ${await response.text()}`);
  }
};

export const pushBlob = async (base: string, repo: string, content: Buffer, token?: string): Promise<string> => {
  const digest = sha256(content);
  const started = await fetch(`${base}/v2/${repo}/blobs/uploads/`, { method: 'POST', headers: authHeaders(token) });
  await expectStatus(started, 202, `start upload to ${repo}`);
  const location = new URL(started.headers.get('location') ?? '', base);
  location.searchParams.set('digest', digest);
  const put = await fetch(location, {
    method: 'PUT',
    headers: { ...authHeaders(token), 'Content-Type': 'application/octet-stream' },
    body: content,
  });
  await expectStatus(put, 201, `upload ${digest} to ${repo}`);
  return digest;
};

export const pushManifest = async (
  base: string,
  repo: string,
  reference: string,
  mediaType: string,
  manifest: unknown,
  token?: string,
): Promise<Pushed> => {
  const body = Buffer.from(JSON.stringify(manifest));
  const put = await fetch(`${base}/v2/${repo}/manifests/${reference}`, {
    method: 'PUT',
    headers: { ...authHeaders(token), 'Content-Type': mediaType },
    body,
  });
  await expectStatus(put, 201, `put manifest ${repo}:${reference}`);
  const digest = sha256(body);
  const answered = put.headers.get('docker-content-digest');
  if (answered !== digest) throw new Error(`registry stored ${repo}:${reference} as ${answered}, expected ${digest}`);
  return { digest, size: body.length, mediaType };
};

type Flavour = 'oci' | 'docker';

const TYPES: Record<Flavour, { manifest: string; config: string; layer: string }> = {
  oci: {
    manifest: OCI_MANIFEST,
    config: 'application/vnd.oci.image.config.v1+json',
    layer: 'application/vnd.oci.image.layer.v1.tar+gzip',
  },
  docker: {
    manifest: DOCKER_MANIFEST,
    config: 'application/vnd.docker.container.image.v1+json',
    layer: 'application/vnd.docker.image.rootfs.diff.tar.gzip',
  },
};

/**
 * The manifest with a nonce annotation chosen so that its digest begins with
 * `prefix` (a few hex digits: 16⁴ tries on average for four), for builds the
 * test servers treat by their digest (never-ready-build.ts).
 */
const withDigestPrefix = (manifest: Record<string, unknown>, prefix: string): Record<string, unknown> => {
  for (let nonce = 0; nonce < 16 ** (prefix.length + 2); nonce += 1) {
    const candidate = { ...manifest, annotations: { 'test.image-refresh/nonce': String(nonce) } };
    if (sha256(Buffer.from(JSON.stringify(candidate))).startsWith(`sha256:${prefix}`)) return candidate;
  }
  throw new Error(`no manifest digest beginning ${prefix} found`);
};

/** A single-platform image with fresh content: a new digest every time (beginning with `digestPrefix` if given). */
export const pushImage = async (
  base: string,
  repo: string,
  tag: string,
  options: { flavour?: Flavour; token?: string; digestPrefix?: string } = {},
): Promise<Pushed> => {
  const types = TYPES[options.flavour ?? 'oci'];
  const layer = randomBytes(64);
  const config = Buffer.from(
    JSON.stringify({ architecture: 'amd64', os: 'linux', rootfs: { type: 'layers', diff_ids: [sha256(layer)] } }),
  );
  const layerDigest = await pushBlob(base, repo, layer, options.token);
  const configDigest = await pushBlob(base, repo, config, options.token);
  const manifest = {
    schemaVersion: 2,
    mediaType: types.manifest,
    config: { mediaType: types.config, digest: configDigest, size: config.length },
    layers: [{ mediaType: types.layer, digest: layerDigest, size: layer.length }],
  };
  const body = options.digestPrefix === undefined ? manifest : withDigestPrefix(manifest, options.digestPrefix);
  return pushManifest(base, repo, tag, types.manifest, body, options.token);
};

/** A multi-platform OCI index over manifests already in the repo. */
export const pushIndex = async (
  base: string,
  repo: string,
  tag: string,
  manifests: readonly Pushed[],
  token?: string,
): Promise<Pushed> =>
  pushManifest(
    base,
    repo,
    tag,
    OCI_INDEX,
    {
      schemaVersion: 2,
      mediaType: OCI_INDEX,
      manifests: manifests.map((m, i) => ({
        ...m,
        platform: { architecture: i === 0 ? 'amd64' : 'arm64', os: 'linux' },
      })),
    },
    token,
  );
