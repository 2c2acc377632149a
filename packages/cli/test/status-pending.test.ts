import { simDigest } from '@image-refresh/core/sim';
import { describe, expect, it } from 'vitest';
import { aWorld, runCli } from './support/sim-connection.js';

// docs/behaviour.md §3.4a step 2: `status` and `status --json` show each digest
// soaking on this edge (its pending record) and when it becomes due under this
// edge's MIN_DIGEST_AGE + ROLLOUT_RING × RING_DELAY.

const JM = 'tracebloc/jobs-manager';
const SOAK = { MIN_DIGEST_AGE: '1h', ROLLOUT_RING: '1', RING_DELAY: '30m' };

describe('status shows pending digests', () => {
  it('one line per pending digest with its first sighting and when it is due', async () => {
    const world = aWorld(SOAK);
    world.annotations = {
      'tracebloc.io/pending-jobs-manager-digest': `${simDigest(`${JM}#2`)} 2026-12-01T12:00:00Z`,
      'tracebloc.io/pending-resource-monitor-digest': 'garbage',
    };
    const { exitCode, stdout } = await runCli(['status', '--no-registry'], world, SOAK);
    expect(exitCode).toBe(0);
    expect(stdout.filter((l) => l.startsWith('pending'))).toEqual([
      `pending          jobs-manager ${simDigest(`${JM}#2`).slice(0, 19)}… first seen 2026-12-01T12:00:00Z; due 2026-12-01T13:30:00Z (MIN_DIGEST_AGE=1h, ring 1 × RING_DELAY=30m)`,
      'pending          resource-monitor holds "garbage": not "<digest> <RFC 3339 time>", the next tick counts it as first seen then',
    ]);
  });

  it('says nothing of pending digests when there is none', async () => {
    const { stdout } = await runCli(['status', '--no-registry'], aWorld({}), {});
    expect(stdout.filter((l) => l.startsWith('pending'))).toEqual([]);
  });

  it('--json: a `pending` list with digest, firstSeen, due and the raw annotation', async () => {
    const world = aWorld(SOAK);
    const value = `${simDigest(`${JM}#2`)} 2026-12-01T12:00:00Z`;
    world.annotations = { 'tracebloc.io/pending-jobs-manager-digest': value };
    const { stdout } = await runCli(['status', '--json', '--no-registry'], world, SOAK);
    expect(JSON.parse(stdout[0] ?? '').pending).toEqual([
      {
        image: 'jobs-manager',
        digest: simDigest(`${JM}#2`),
        firstSeen: '2026-12-01T12:00:00Z',
        due: '2026-12-01T13:30:00Z',
        annotation: value,
      },
    ]);
  });
});
