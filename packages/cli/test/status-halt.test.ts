import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SIM_HALT_REPO, SIM_HALT_TAG, simDigest, simHaltDocument } from '@image-refresh/core/sim';
import { afterAll, describe, expect, it } from 'vitest';
import { ANNOTATION } from '../../core/test/support/chart.js';
import { aWorld, runCli, theLine } from './support/sim-connection.js';

// FLEET_HALT_REF in the CLI (docs/behaviour.md §3.4b): what `status` and
// `status --json` say of the halt (judged as a tick would, nothing
// written), and the configuration errors a tick and status refuse before
// any call. The simulated registry signs with its own key; the CLI reads a
// real PEM file, as it must before any call.

const JM = 'tracebloc/jobs-manager';
const JM2 = simDigest(`${JM}#2`);
const dir = mkdtempSync(join(tmpdir(), 'status-halt-'));
const keyFile = join(dir, 'fleet.pub');
writeFileSync(
  keyFile,
  generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey.export({ type: 'spki', format: 'pem' }),
);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const HALT_ENV = { FLEET_HALT_REF: `docker.io/${SIM_HALT_REPO}:${SIM_HALT_TAG}`, SIGNATURE_PUBLIC_KEYS: keyFile };
const REF = HALT_ENV.FLEET_HALT_REF;

const aWorldUnderHalt = (signed: boolean) => {
  const world = aWorld(HALT_ENV);
  const document = simHaltDocument('build 2 loses jobs', Date.now() + 3_600_000, {
    [JM]: { digests: [JM2], pin: simDigest(`${JM}#1`) },
  });
  const digest = world.publishHalt(document, { signed, repo: SIM_HALT_REPO, tag: SIM_HALT_TAG });
  return { world, digest };
};

describe('status and the fleet halt', () => {
  it('a verified halt in force: its reason, expiry and what it halts; nothing written', async () => {
    const { world, digest } = aWorldUnderHalt(true);
    const run = await runCli(['status'], world, HALT_ENV);
    expect(run.exitCode).toBe(0);
    const at = run.stdout.findIndex((l) => l.startsWith('fleet halt'));
    expect(run.stdout[at]).toMatch(
      new RegExp(
        `^fleet halt {7}${REF}@${digest.slice(0, 19)}…: IN FORCE until \\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ: build 2 loses jobs \\(verified now; a tick keeps it\\)$`,
      ),
    );
    expect(run.stdout[at + 1]).toBe(`${' '.repeat(17)}  ${JM}: ${JM2.slice(0, 19)}…; pin ${simDigest(`${JM}#1`)}`);
    expect(world.annotations[ANNOTATION.fleetHaltDigest]).toBeUndefined();
    expect(world.calls.filter((c) => c.op === 'patchBookkeeping')).toEqual([]);
  });

  it('--json: the halt block, with the pin spelled out', async () => {
    const { world, digest } = aWorldUnderHalt(true);
    const run = await runCli(['status', '--json'], world, HALT_ENV);
    const { halt } = JSON.parse(run.stdout[0] ?? '');
    expect(halt).toMatchObject({
      state: 'inForce',
      reference: REF,
      digest,
      reason: 'build 2 loses jobs',
      why: null,
      recordedDigest: null,
      repositories: { [JM]: { digests: [JM2], pin: simDigest(`${JM}#1`) } },
    });
  });

  it('an unsigned halt: UNVERIFIED, with why, and that a tick holds everything back', async () => {
    const { world } = aWorldUnderHalt(false);
    const run = await runCli(['status'], world, HALT_ENV);
    expect(theLine(run.stdout, 'UNVERIFIED')).toMatch(
      new RegExp(
        `^fleet halt {7}${REF}: UNVERIFIED: its signature did not verify: .*; a tick re-images nothing while this holds$`,
      ),
    );
    const json = await runCli(['status', '--json'], world, HALT_ENV);
    expect(JSON.parse(json.stdout[0] ?? '').halt).toMatchObject({ state: 'unverified', repositories: null });
  });

  it('--no-registry: not asked, and the digest this edge last verified', async () => {
    const { world } = aWorldUnderHalt(true);
    world.setAnnotation(ANNOTATION.fleetHaltDigest, JM2);
    const run = await runCli(['status', '--no-registry'], world, HALT_ENV);
    expect(theLine(run.stdout, 'fleet halt')).toBe(
      `fleet halt       ${REF}: not asked (--no-registry); last verified here: ${JM2.slice(0, 19)}…`,
    );
    expect(world.calls.filter((c) => c.op === 'resolveDigest')).toEqual([]);
  });

  it('FLEET_HALT_REF unset: no line, `halt: null`, and no request of the halt tag', async () => {
    const { world } = aWorldUnderHalt(true);
    const run = await runCli(['status'], world);
    expect(run.stdout.filter((l) => l.includes('fleet halt'))).toEqual([]);
    const json = await runCli(['status', '--json'], world);
    expect(JSON.parse(json.stdout[0] ?? '').halt).toBeNull();
    expect(world.calls.filter((c) => c.detail.includes(SIM_HALT_REPO))).toEqual([]);
  });

  it('the halt tag answers 404: none published', async () => {
    const world = aWorld(HALT_ENV);
    const run = await runCli(['status'], world, HALT_ENV);
    expect(theLine(run.stdout, 'fleet halt')).toBe(`fleet halt       ${REF}: none published (404): nothing is halted`);
  });
});

describe('FLEET_HALT_REF configuration errors: exit 2 before any call', () => {
  it('without any trust: names FLEET_HALT_REF and the trust variables, tick and status alike', async () => {
    for (const command of [['tick'], ['status']]) {
      const run = await runCli(command, aWorld(), { FLEET_HALT_REF: REF });
      expect(run.exitCode).toBe(2);
      expect(run.connected).toBe(0);
      expect(theLine(run.stderr, 'FLEET_HALT_REF')).toBe(
        `[image-refresh] ERROR: configuration: FLEET_HALT_REF="${REF}": a halt is obeyed only once its signature verifies, and no trust is configured to verify it with: set SIGNATURE_PUBLIC_KEYS (PEM public-key files) and/or SIGNATURE_IDENTITY, SIGNATURE_ISSUER and SIGSTORE_TRUSTED_ROOT (keyless)`,
      );
    }
  });

  it.each([
    ['ghcr.io/acme:stg', 'names no repository of the form namespace/name'],
    ['docker.io/tracebloc/fleet-control', 'has no tag'],
    [`docker.io/tracebloc/fleet-control@sha256:${'a'.repeat(64)}`, 'names a digest'],
    ['docker.io/fleet-control:stg', 'names no repository of the form namespace/name'],
  ])('a reference that is not a repository tag (%s): exit 2 saying why', async (reference, why) => {
    const run = await runCli(['tick'], aWorld(), { FLEET_HALT_REF: reference, SIGNATURE_PUBLIC_KEYS: keyFile });
    expect(run.exitCode).toBe(2);
    expect(run.connected).toBe(0);
    expect(theLine(run.stderr, 'FLEET_HALT_REF')).toContain(`FLEET_HALT_REF="${reference}": ${why}; must be a tag`);
  });

  it('FLEET_HALT_EXIT other than 0 or 1: exit 2 naming it', async () => {
    const run = await runCli(['tick'], aWorld(), { ...HALT_ENV, FLEET_HALT_EXIT: 'yes' });
    expect(run.exitCode).toBe(2);
    expect(theLine(run.stderr, 'FLEET_HALT_EXIT')).toContain('FLEET_HALT_EXIT="yes": must be "1"');
  });

  it('a key file that is not one: exit 2 naming SIGNATURE_PUBLIC_KEYS, though VERIFY_SIGNATURES is off', async () => {
    const run = await runCli(['tick'], aWorld(), {
      FLEET_HALT_REF: REF,
      SIGNATURE_PUBLIC_KEYS: join(dir, 'missing.pub'),
    });
    expect(run.exitCode).toBe(2);
    expect(run.connected).toBe(0);
    expect(theLine(run.stderr, 'SIGNATURE_PUBLIC_KEYS')).toContain('cannot be read (ENOENT)');
  });
});
