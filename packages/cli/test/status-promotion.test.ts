import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SIM_HALT_REPO, SIM_PROMOTION_TAG, simDigest, simPromotionDocument } from '@image-refresh/core/sim';
import { afterAll, describe, expect, it } from 'vitest';
import { ANNOTATION } from '../../core/test/support/chart.js';
import { aWorld, runCli } from './support/sim-connection.js';

// FLEET_PROMOTION_REF in `status` and `status --json` (docs/fleet-promotion.md):
// the promotion judged as a tick of this ring would judge it, nothing
// written, and each drifted image promoted for this ring or waiting.

const JM = 'tracebloc/jobs-manager';
const JM1 = simDigest(`${JM}#1`);
const JM2 = simDigest(`${JM}#2`);
const dir = mkdtempSync(join(tmpdir(), 'status-promotion-'));
const keyFile = join(dir, 'fleet.pub');
writeFileSync(
  keyFile,
  generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey.export({ type: 'spki', format: 'pem' }),
);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const REF = `docker.io/${SIM_HALT_REPO}:${SIM_PROMOTION_TAG}`;
const RING_ONE = { FLEET_PROMOTION_REF: REF, SIGNATURE_PUBLIC_KEYS: keyFile, ROLLOUT_RING: '1' };

/** A ring-1 edge that recorded build 1 of jobs-manager while the tag moved to build 2. */
const aDriftedEdge = () => {
  const world = aWorld(RING_ONE);
  world.setAnnotation('tracebloc.io/last-refreshed-jobs-manager-digest', JM1);
  world.publish(JM, JM2);
  return world;
};

const promote = (world: ReturnType<typeof aWorld>, entries: Parameters<typeof simPromotionDocument>[0]) =>
  world.publishHalt(simPromotionDocument(entries, Date.now() + 3_600_000), {
    signed: true,
    repo: SIM_HALT_REPO,
    tag: SIM_PROMOTION_TAG,
  });

const promotionLines = (stdout: readonly string[]) => {
  const at = stdout.findIndex((l) => l.startsWith('promotion'));
  return at < 0 ? [] : [stdout[at] ?? '', ...stdout.slice(at + 1).filter((l) => /^ {10,}/.test(l))];
};

describe('status and the fleet promotion', () => {
  it('none published: ring 1 waits, and the drifted image says what for', async () => {
    const world = aDriftedEdge();
    const run = await runCli(['status'], world, RING_ONE);
    expect(run.exitCode).toBe(0);
    const lines = promotionLines(run.stdout);
    expect(lines[0]).toMatch(new RegExp(`^promotion +${REF}: none published \\(404\\): ring 1 waits for one$`));
    expect(lines.some((l) => l.trim() === `waiting for promotion of jobs-manager@${JM2} to ring 1`)).toBe(true);
  });

  it('a verified promotion of another build: still waiting; of this build: promoted; nothing written either way', async () => {
    const world = aDriftedEdge();
    promote(world, [{ image: 'pods-monitor', digest: JM2, ring: 1 }]);
    const waiting = await runCli(['status', '--json'], world, RING_ONE);
    const { promotion } = JSON.parse(waiting.stdout[0] ?? '');
    expect(promotion).toMatchObject({
      state: 'verified',
      reference: REF,
      ring: 1,
      recordedDigest: null,
      changes: [{ image: 'jobs-manager', digest: JM2, promoted: false }],
    });
    expect(promotion.promotions).toEqual([expect.objectContaining({ image: 'pods-monitor', digest: JM2, ring: 1 })]);

    promote(world, [{ image: 'jobs-manager', digest: JM2, ring: 2 }]);
    const promoted = await runCli(['status'], world, RING_ONE);
    expect(
      promotionLines(promoted.stdout).some((l) => l.trim() === `jobs-manager@${JM2}: promoted to ring 1 or beyond`),
    ).toBe(true);
    expect(world.annotations[ANNOTATION.fleetPromotionDigest]).toBeUndefined();
    expect(world.calls.filter((c) => c.op === 'patchBookkeeping')).toEqual([]);
  });

  it('unsigned: UNVERIFIED with the reason; --json null where no promotion is read (ring 0)', async () => {
    const world = aDriftedEdge();
    world.publishHalt(simPromotionDocument([{ image: 'jobs-manager', digest: JM2, ring: 1 }], Date.now() + 3_600_000), {
      signed: false,
      repo: SIM_HALT_REPO,
      tag: SIM_PROMOTION_TAG,
    });
    const run = await runCli(['status'], world, RING_ONE);
    expect(promotionLines(run.stdout)[0]).toContain(': UNVERIFIED: its signature did not verify');
    const canary = await runCli(['status', '--json'], world, { ...RING_ONE, ROLLOUT_RING: '0' });
    expect(JSON.parse(canary.stdout[0] ?? '').promotion).toBeNull();
  });
});
