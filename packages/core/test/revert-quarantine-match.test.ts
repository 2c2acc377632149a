import * as E from 'fp-ts/lib/Either.js';
import * as O from 'fp-ts/lib/Option.js';
import { describe, expect, it } from 'vitest';
import type { RecordedDigests } from '../src/domain/bookkeeping.js';
import type { WorkloadChange } from '../src/domain/plan.js';
import { planRevert } from '../src/domain/revert.js';
import { simConfig } from '../src/sim/index.js';
import { workloadRef } from './support/chart.js';
import { repeatedDigest } from './support/repeated-digest.js';

// I30: the way back refuses only a record that IS the image's quarantined
// digest. A quarantine of another build of the same image (an older bad one)
// leaves the recorded digest good, and the rollback goes back to it.

const d = repeatedDigest;
const GOOD = d('a');
const BAD = d('b');
const OLDER_BAD = d('f');
const config = simConfig({});

const recorded = {
  'jobs-manager': O.some(GOOD),
  'pods-monitor': O.none,
  'resource-monitor': O.none,
} as RecordedDigests;
const jmTo = (digest: string): WorkloadChange => ({
  workload: workloadRef(config, 'jobs-manager'),
  images: [{ container: 'api', image: `docker.io/tracebloc/jobs-manager@${digest}` }],
});

describe('planRevert against the quarantine', () => {
  it('a quarantine of another digest of the image does not block going back to the record', () => {
    const plan = planRevert(config, [jmTo(BAD)], 0, recorded, 0, { 'jobs-manager': O.some(OLDER_BAD) });
    expect(plan).toEqual(
      E.right({
        changes: [
          {
            workload: workloadRef(config, 'jobs-manager'),
            images: [{ container: 'api', image: `docker.io/tracebloc/jobs-manager@${GOOD}` }],
          },
        ],
        containers: [{ workload: 'jobs-manager', container: 'api', image: 'jobs-manager', from: BAD, to: GOOD }],
        bad: { 'jobs-manager': BAD },
      }),
    );
  });

  it('a record that is the quarantined digest is refused, naming it', () => {
    expect(planRevert(config, [jmTo(BAD)], 0, recorded, 0, { 'jobs-manager': O.some(GOOD) })).toEqual(
      E.left({ workload: 'jobs-manager', container: 'api', image: 'jobs-manager', recorded: GOOD, quarantined: true }),
    );
  });
});
