import { describe, expect, it } from 'vitest';
import { simDigest } from '../src/sim/index.js';
import { ANNOTATION } from './support/chart.js';
import { aSteadyEdge, JM } from './support/edge.js';

// When the success reset and then the record both failed, one line
// said "The digests are still recorded" and the next "could not record the
// new digests". No line of a tick may claim a record the tick did not make.

describe('lines that promise a write', () => {
  it('the success reset and the record both fail: no line says the digests are recorded', async () => {
    const edge = await aSteadyEdge();
    edge.world.publish(JM, simDigest(`${JM}#2`));
    edge.world.injectClusterFault('patchBookkeeping', 'Transport', 1, `${ANNOTATION.refreshAttempt}-`);
    edge.world.injectClusterFault('patchBookkeeping', 'Transport', 1, 'tracebloc.io/last-refreshed-');
    const outcome = await edge.tick();
    expect(outcome.findings.map((f) => f.code)).toEqual(['SUCCESS_RESET_FAILED', 'RECORD_FAILED']);
    expect(outcome.events.filter((e) => /digests (are|were) (still )?recorded/i.test(e.message))).toEqual([]);
    expect(edge.line('SUCCESS_RESET_FAILED')).toContain('The tick still goes on to record the new digests');
    expect(edge.line('RECORD_FAILED')).toContain('could not record the new digests');
  });
});
