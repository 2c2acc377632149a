import * as E from 'fp-ts/lib/Either.js';
import * as O from 'fp-ts/lib/Option.js';
import { describe, expect, it } from 'vitest';
import type { RecordedDigests } from '../src/domain/bookkeeping.js';
import { planRevert } from '../src/domain/revert.js';
import { rollbackImpossible } from '../src/machine/way-back/messages.js';
import { simConfig } from '../src/sim/index.js';
import { workloadRef } from './support/chart.js';
import { repeatedDigest } from './support/repeated-digest.js';

// The way back (ON_ROLLOUT_FAILURE=revert, docs/behaviour.md §3.6, I29) asked
// to move a container the profile does not manage: nothing is guessed, and the
// ROLLBACK FAILED line says why.

const config = simConfig({ ON_ROLLOUT_FAILURE: 'revert' });
const recorded = {
  'jobs-manager': O.some(repeatedDigest('a')),
  'pods-monitor': O.none,
  'resource-monitor': O.some(repeatedDigest('c')),
} as RecordedDigests;

describe('a way back through a container image-refresh does not manage', () => {
  it('is refused, and ROLLBACK FAILED says the container is not managed and what to do by hand', () => {
    const planned = planRevert(
      config,
      [
        {
          workload: workloadRef(config, 'jobs-manager'),
          images: [{ container: 'sidecar', image: `docker.io/tracebloc/jobs-manager@${repeatedDigest('b')}` }],
        },
      ],
      0,
      recorded,
    );
    if (E.isRight(planned)) throw new Error('expected no way back');
    expect(rollbackImpossible(config, planned.left, 'its rollout failed (RolloutFailed: x)')).toEqual({
      level: 'error',
      code: 'ROLLBACK_FAILED',
      message:
        'ERROR: ROLLBACK FAILED: a rollout of this tick failed (its rollout failed (RolloutFailed: x)) but deployment/stg-jobs-manager container sidecar is not one image-refresh manages; a rollback would have to guess, so none is made. Nothing else is touched; the attempt counter stays incremented and the new digests are not recorded.',
      hints: [
        'MANUAL ATTENTION NEEDED: the workload is left as it is now. Inspect it and set it back by hand, e.g.',
        '  kubectl -n tracebloc rollout undo deployment/stg-jobs-manager',
      ],
    });
  });
});
