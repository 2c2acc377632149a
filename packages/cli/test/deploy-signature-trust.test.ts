import { execFileSync } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { loadAllYaml } from '@kubernetes/client-node';
import * as E from 'fp-ts/lib/Either.js';
import { afterAll, describe, expect, it } from 'vitest';
import { readConfiguration } from '../src/wiring/read-configuration.js';
import { requireBinary } from './support/require-binary.js';

// deploy/components/signature-key and signature-keyless, as an operator uses
// them (docs/signatures.md): an overlay of the base with a component and a
// secretGenerator of the operator's own files, rendered by kubectl's
// kustomize. The CronJob mounts the generated Secret (its hashed name) read
// only, and its environment names files inside that mount — which the CLI's
// own configuration reader then accepts, the Secret's files laid out where
// the mount puts them.

const kubectl = requireBinary('kubectl', 'kubectl is on every machine of this kind; install kubectl 1.32');
const DEPLOY = new URL('../deploy', import.meta.url).pathname;
const MOUNT = '/etc/image-refresh/trust';

interface Manifest {
  readonly kind: string;
  readonly metadata: { readonly name: string };
  readonly data?: Record<string, string>;
  readonly spec?: unknown;
}
interface PodSpec {
  readonly volumes?: { name: string; secret?: { secretName: string } }[];
  readonly containers: {
    name: string;
    env: { name: string; value?: string }[];
    volumeMounts?: { name: string; mountPath: string; readOnly?: boolean }[];
  }[];
}

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

const publicKeyPem = (): string =>
  generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey.export({ type: 'spki', format: 'pem' }).toString();

/** An overlay in a temp dir: the base, the components, a Secret of `files`, and `extra` YAML; rendered. */
const renderOverlay = (components: readonly string[], files: Readonly<Record<string, string>>, extra = '') => {
  const dir = mkdtempSync(join(tmpdir(), 'image-refresh-overlay-'));
  dirs.push(dir);
  for (const [name, content] of Object.entries(files)) writeFileSync(join(dir, name), content);
  const base = relative(dir, DEPLOY);
  writeFileSync(
    join(dir, 'kustomization.yaml'),
    [
      'apiVersion: kustomize.config.k8s.io/v1beta1',
      'kind: Kustomization',
      'resources:',
      `  - ${base}`,
      'components:',
      ...components.map((c) => `  - ${base}/components/${c}`),
      'secretGenerator:',
      '  - name: image-refresh-signature-trust',
      '    namespace: tracebloc',
      '    files:',
      ...Object.keys(files).map((name) => `      - ${name}`),
      extra,
    ].join('\n'),
  );
  const manifests = loadAllYaml(execFileSync(kubectl.path, ['kustomize', dir], { encoding: 'utf8' })) as Manifest[];
  const secret = manifests.find((m) => m.kind === 'Secret');
  const cronJob = manifests.find((m) => m.kind === 'CronJob') as Manifest & {
    spec: { jobTemplate: { spec: { template: { spec: PodSpec } } } };
  };
  const pod = cronJob.spec.jobTemplate.spec.template.spec;
  const container = pod.containers.find((c) => c.name === 'refresh');
  return { secret, pod, container, env: Object.fromEntries((container?.env ?? []).map((e) => [e.name, e.value])) };
};

/**
 * The rendered environment as the pod sees it, the mount moved to a temp dir
 * holding the Secret's files: what the CLI reads before its first call.
 */
const configurationOnThePod = async (rendered: ReturnType<typeof renderOverlay>) => {
  const mounted = mkdtempSync(join(tmpdir(), 'image-refresh-mount-'));
  dirs.push(mounted);
  for (const [name, base64] of Object.entries(rendered.secret?.data ?? {})) {
    mkdirSync(mounted, { recursive: true });
    writeFileSync(join(mounted, name), Buffer.from(base64, 'base64'));
  }
  const env = Object.fromEntries(
    Object.entries(rendered.env).map(([k, v]) => [k, v?.startsWith(`${MOUNT}/`) ? v.replace(MOUNT, mounted) : v]),
  );
  return readConfiguration(env, { signatureFiles: true });
};

describe.skipIf(kubectl.skip)('deploy/components: the signature check’s Secret and its mount', () => {
  it('signature-key: the generated Secret mounted read-only, VERIFY_SIGNATURES=enforce, the key file inside the mount', async () => {
    const rendered = renderOverlay(['signature-key'], { 'cosign.pub': publicKeyPem() });
    expect(rendered.secret?.metadata.name).toMatch(/^image-refresh-signature-trust-[a-z0-9]+$/);
    expect(rendered.pod.volumes).toEqual([
      { name: 'signature-trust', secret: { secretName: rendered.secret?.metadata.name } },
    ]);
    expect(rendered.container?.volumeMounts).toEqual([{ name: 'signature-trust', mountPath: MOUNT, readOnly: true }]);
    expect(rendered.env).toMatchObject({
      VERIFY_SIGNATURES: 'enforce',
      SIGNATURE_PUBLIC_KEYS: `${MOUNT}/cosign.pub`,
      RELEASE_NAME: 'stg',
    });
    const configuration = await configurationOnThePod(rendered);
    expect(E.isRight(configuration) && configuration.right.trust?.keys.length).toBe(1);
  });

  it('signature-keyless: the trusted root inside the mount; with the overlay’s identity and issuer, the CLI accepts it', async () => {
    const identity = [
      'patches:',
      '  - target: { kind: CronJob, name: stg-image-refresh }',
      '    patch: |-',
      '      - op: add',
      '        path: /spec/jobTemplate/spec/template/spec/containers/0/env/-',
      '        value: { name: SIGNATURE_IDENTITY, value: "https://github.com/acme/jobs-manager/.github/workflows/release.yml@refs/heads/main" }',
      '      - op: add',
      '        path: /spec/jobTemplate/spec/template/spec/containers/0/env/-',
      '        value: { name: SIGNATURE_ISSUER, value: "https://token.actions.githubusercontent.com" }',
    ].join('\n');
    const rendered = renderOverlay(['signature-keyless'], { 'trusted_root.json': '{"mediaType":"x"}' }, identity);
    expect(rendered.env).toMatchObject({
      VERIFY_SIGNATURES: 'enforce',
      SIGSTORE_TRUSTED_ROOT: `${MOUNT}/trusted_root.json`,
      SIGNATURE_ISSUER: 'https://token.actions.githubusercontent.com',
    });
    expect(rendered.env).not.toHaveProperty('SIGNATURE_PUBLIC_KEYS');
    const configuration = await configurationOnThePod(rendered);
    expect(E.isRight(configuration) && configuration.right.trust?.keyless?.issuer).toBe(
      'https://token.actions.githubusercontent.com',
    );
  });

  it('signature-keyless without the overlay’s identity fails closed: exit-2 problems naming both variables', async () => {
    const rendered = renderOverlay(['signature-keyless'], { 'trusted_root.json': '{}' });
    const configuration = await configurationOnThePod(rendered);
    expect(E.isLeft(configuration) && configuration.left.map((e) => e.variable).sort()).toEqual([
      'SIGNATURE_IDENTITY',
      'SIGNATURE_ISSUER',
    ]);
  });

  it('both components: one Secret, one volume, one mount, both kinds of trust', async () => {
    const rendered = renderOverlay(['signature-key', 'signature-keyless'], {
      'cosign.pub': publicKeyPem(),
      'trusted_root.json': '{}',
    });
    expect(rendered.pod.volumes).toHaveLength(1);
    expect(rendered.container?.volumeMounts).toHaveLength(1);
    expect(Object.keys(rendered.secret?.data ?? {}).sort()).toEqual(['cosign.pub', 'trusted_root.json']);
    expect(rendered.env).toMatchObject({
      SIGNATURE_PUBLIC_KEYS: `${MOUNT}/cosign.pub`,
      SIGSTORE_TRUSTED_ROOT: `${MOUNT}/trusted_root.json`,
    });
  });
});
