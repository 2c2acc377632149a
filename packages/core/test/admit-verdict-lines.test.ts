import { describe, expect, it } from 'vitest';
import type { Hold } from '../src/domain/admission.js';
import type { Digest } from '../src/domain/digest.js';
import type { ImageVerdict } from '../src/domain/plan.js';
import { verdict } from '../src/machine/admit/messages.js';
import { imageSpec } from './support/chart.js';

// Each image's verdict line names the check that held its changed digest back (docs/behaviour.md
// §3.4a): an operator reading one line must know which switch to look at, and the check's own
// line says more. Every hold, worded, on each kind of verdict that can be held.

const JM = imageSpec('jobs-manager');
const FROM = 'sha256:aaaa' as Digest;
const TO = 'sha256:bbbb' as Digest;
const drift: ImageVerdict = { _tag: 'Drift', image: 'jobs-manager', from: FROM, to: TO };
const first: ImageVerdict = { _tag: 'FirstObservation', image: 'jobs-manager', digest: TO };
const holdOf = (tag: Hold['_tag']) => ({ _tag: tag, image: 'jobs-manager', digest: TO }) as Hold;
const pin = { image: 'jobs-manager', digest: FROM } as never;

const HELD: ReadonlyArray<readonly [Hold['_tag'], string]> = [
  ['Halted', 'by the fleet halt'],
  ['HaltUnverified', 'by the fleet halt, which could not be verified this tick'],
  ['Quarantined', 'by the quarantine'],
  ['Soaking', 'by the soak (not yet old enough on this edge)'],
  ['SignatureNotVerified', 'by the signature check'],
  ['PlatformMismatch', 'by the platform check'],
  ['NotStaged', 'by staging (not pulled onto every node of a workload)'],
];

describe('the verdict line of a held digest', () => {
  it.each(HELD)('%s: a drift is "held back %s"', (tag, because) => {
    expect(verdict(JM, drift, holdOf(tag)).message).toBe(
      `tracebloc/jobs-manager: digest changed (${FROM} -> ${TO}); held back ${because}`,
    );
  });

  it.each(HELD)('%s: a first observation is held and not recorded', (tag, because) => {
    expect(verdict(JM, first, holdOf(tag)).message).toBe(
      `tracebloc/jobs-manager: latest=${TO} recorded=<unset> -- first observation; held back ${because}, not recorded`,
    );
  });

  it("a drift back to the fleet halt's pin: needed, or held by what held it", () => {
    expect(verdict(JM, drift, undefined, pin).message).toBe(
      `tracebloc/jobs-manager: sending it back to the fleet halt's pin (${FROM} -> ${TO}); re-image needed`,
    );
    expect(verdict(JM, drift, holdOf('SignatureNotVerified'), pin).message).toBe(
      `tracebloc/jobs-manager: sending it back to the fleet halt's pin (${FROM} -> ${TO}); held back by the signature check`,
    );
  });

  it('nothing held: a drift is needed, a first observation recorded', () => {
    expect(verdict(JM, drift).message).toBe(
      `tracebloc/jobs-manager: digest changed (${FROM} -> ${TO}); re-image needed`,
    );
    expect(verdict(JM, first).message).toBe(
      `tracebloc/jobs-manager: latest=${TO} recorded=<unset> -- first observation; recording without re-imaging`,
    );
  });
});
