import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newSigningKey } from '../../../k8s-adapter/test/support/signature-sig-tag.js';
import { BUILD_TIMEOUT_MS, BUNDLE, ensureBundle } from './support/bundle.js';
import { BUNDLE_NODE } from './support/run-bundle.js';

// Two parts of the program ship as files of their own beside the bundle, each
// imported only when its switch asks for it — inlined, even never evaluated,
// the signature check cost a steady tick with the check off 1.2 MiB of peak
// RSS and the profile's YAML parser 11 MiB (README.md, Benchmarks). Shown by
// running the bundle from a directory that holds it alone: with the switch
// off it never needs the other file; on, it does. A private mirror keeps the
// tick inert (I14), and the profile runs in the simulator: no cluster or
// registry is needed.

const SIGNATURES_FILE = 'image-refresh-signatures.mjs';
const PROFILE_FILE = 'image-refresh-profile.mjs';
const SHOP_PROFILE = join(import.meta.dirname, '../../examples/shop.yaml');

describe('the signature check and the profile parser are files of their own, each loaded only when asked for', () => {
  let alone: string;
  let both: string;
  let keyFile: string;

  beforeAll(async () => {
    await ensureBundle();
    alone = mkdtempSync(join(tmpdir(), 'image-refresh-alone-'));
    both = mkdtempSync(join(tmpdir(), 'image-refresh-both-'));
    copyFileSync(BUNDLE, join(alone, 'image-refresh.mjs'));
    copyFileSync(BUNDLE, join(both, 'image-refresh.mjs'));
    for (const file of [SIGNATURES_FILE, PROFILE_FILE]) copyFileSync(join(BUNDLE, '..', file), join(both, file));
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

  const simulate = (dir: string, args: readonly string[]) =>
    spawnSync(BUNDLE_NODE, [join(dir, 'image-refresh.mjs'), 'simulate', ...args], {
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: dir },
      encoding: 'utf8',
      timeout: 20_000,
    });

  it('no profile: the bundle alone runs the chart topology', () => {
    const run = simulate(alone, ['--scenario', 'healthy-drift']);
    expect(run.stderr).not.toContain(PROFILE_FILE);
    expect(run.status).toBe(0);
  });

  it('a profile: the bundle alone cannot read it; beside its parser it runs the profile', () => {
    const withoutIt = simulate(alone, ['--profile', SHOP_PROFILE]);
    expect(withoutIt.status).not.toBe(0);
    expect(withoutIt.stderr).toContain(PROFILE_FILE);
    const withIt = simulate(both, ['--profile', SHOP_PROFILE]);
    expect(withIt.status).toBe(0);
    expect(withIt.stdout).toMatch(/re-imaged agent/);
  });
});
