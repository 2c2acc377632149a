import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newSigningKey } from '../../../k8s-adapter/test/support/signature-sig-tag.js';
import { BUILD_TIMEOUT_MS, BUNDLE, ensureBundle } from './support/bundle.js';
import { BUNDLE_NODE } from './support/run-bundle.js';

// The signature check ships as a second file beside the bundle,
// dist/image-refresh-signatures.mjs, imported only when VERIFY_SIGNATURES is
// on — inlined, its code cost a steady tick with the check off 1.2 MiB of
// peak RSS. Shown by running the bundle from a directory that holds it alone:
// with the check off it never needs the second file; on, it does. A private
// mirror keeps the tick inert (I14): no cluster or registry is needed.

const SIGNATURES_FILE = 'image-refresh-signatures.mjs';

describe('the signature check is a file of its own, loaded only when VERIFY_SIGNATURES is on', () => {
  let alone: string;
  let both: string;
  let keyFile: string;

  beforeAll(async () => {
    await ensureBundle();
    alone = mkdtempSync(join(tmpdir(), 'image-refresh-alone-'));
    both = mkdtempSync(join(tmpdir(), 'image-refresh-both-'));
    copyFileSync(BUNDLE, join(alone, 'image-refresh.mjs'));
    copyFileSync(BUNDLE, join(both, 'image-refresh.mjs'));
    copyFileSync(join(BUNDLE, '..', SIGNATURES_FILE), join(both, SIGNATURES_FILE));
    keyFile = join(both, 'cosign.pub');
    writeFileSync(keyFile, newSigningKey('ecdsa-p256').publicPem);
  }, BUILD_TIMEOUT_MS);

  afterAll(() => {
    for (const dir of [alone, both]) if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  const tick = (dir: string, env: Record<string, string>) =>
    spawnSync(BUNDLE_NODE, [join(dir, 'image-refresh.mjs'), 'tick'], {
      env: {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        HOME: dir,
        RELEASE_NAME: 'stg',
        RELEASE_NAMESPACE: 'tracebloc',
        IMAGE_TAG: 'stg',
        IMAGE_REGISTRY: 'mirror.corp.example:5000',
        ...env,
      },
      encoding: 'utf8',
      timeout: 20_000,
    });

  it('off: the bundle alone runs the tick', () => {
    const run = tick(alone, {});
    expect(run.status).toBe(0);
    expect(run.stderr).toMatch(/summary: outcome=mirrorInert exit=0/);
  });

  it('enforce: the bundle alone cannot check signatures; beside its second file it can', () => {
    const on = { VERIFY_SIGNATURES: 'enforce', SIGNATURE_PUBLIC_KEYS: keyFile };
    const withoutIt = tick(alone, on);
    expect(withoutIt.status).not.toBe(0);
    expect(withoutIt.stderr).toContain(SIGNATURES_FILE);
    const withIt = tick(both, on);
    expect(withIt.status).toBe(0);
    expect(withIt.stderr).toMatch(/summary: outcome=mirrorInert exit=0/);
  });
});
