import * as O from 'fp-ts/lib/Option.js';
import { describe, expect, it } from 'vitest';
import type { ChangedDigest } from '../src/domain/admission.js';
import type { RecordedDigests } from '../src/domain/bookkeeping.js';
import { decideDigestAges, unjudgedHold } from '../src/domain/digest-age.js';
import { parsePendingDigest, rfc3339 } from '../src/domain/pending-digest.js';
import type { ImageResolution } from '../src/domain/plan.js';
import { startJitterDelayMs } from '../src/domain/start-jitter.js';
import { simConfig } from '../src/sim/index.js';
import { repeatedDigest } from './support/repeated-digest.js';

// The soak (docs/behaviour.md §3.4a step 2) and START_JITTER
// (docs/behaviour.md §3.3) as the values their pure functions return: the
// verdict per changed digest, the pending annotation written, the value read
// back, the delay an edge waits.

const d = repeatedDigest;
const OLD = d('a');
const NEW = d('b');
const OTHER = d('c');
const PENDING = 'tracebloc.io/pending-jobs-manager-digest';
const T0 = Date.parse('2026-12-01T13:05:00Z');
const HOUR = 3_600_000;
const change: ChangedDigest = { image: 'jobs-manager', from: OLD, to: NEW };
const recorded = { 'jobs-manager': O.some(OLD), 'pods-monitor': O.none, 'resource-monitor': O.none } as RecordedDigests;
const resolved: ImageResolution[] = [
  { _tag: 'Resolved', image: 'jobs-manager', digest: NEW, rateLimitRemaining: O.none },
];
const decide = (annotations: Record<string, string>, nowMs: number) =>
  decideDigestAges(simConfig().topology, [change], resolved, recorded, annotations, nowMs, HOUR);

describe('decideDigestAges', () => {
  it('a first sighting is too young and writes exactly one pending record, with no unparsable field', () => {
    const decision = decide({}, T0);
    expect(decision.verdicts).toStrictEqual([
      { _tag: 'TooYoung', change, pending: { digest: NEW, firstSeenMs: T0 }, dueMs: T0 + HOUR, firstSighting: true },
    ]);
    expect(decision.changes).toStrictEqual({ [PENDING]: `${NEW} 2026-12-01T13:05:00Z` });
  });

  it('a first sighting is never old enough, even when the required age is shorter than the part-second the record drops', () => {
    const decision = decideDigestAges(simConfig().topology, [change], resolved, recorded, {}, T0 + 999, 500);
    expect(decision.verdicts).toStrictEqual([
      { _tag: 'TooYoung', change, pending: { digest: NEW, firstSeenMs: T0 }, dueMs: T0 + 500, firstSighting: true },
    ]);
  });

  it('is old enough exactly at the due time, and then writes nothing', () => {
    const decision = decide({ [PENDING]: `${NEW} 2026-12-01T13:05:00Z` }, T0 + HOUR);
    expect(decision.verdicts).toStrictEqual([{ _tag: 'OldEnough', change, pending: { digest: NEW, firstSeenMs: T0 } }]);
    expect(decision.changes).toStrictEqual({});
  });

  it('a second before the due time it is still soaking, and the record is not rewritten', () => {
    const decision = decide({ [PENDING]: `${NEW} 2026-12-01T13:05:00Z` }, T0 + HOUR - 1_000);
    expect(decision.verdicts).toStrictEqual([
      { _tag: 'TooYoung', change, pending: { digest: NEW, firstSeenMs: T0 }, dueMs: T0 + HOUR, firstSighting: false },
    ]);
    expect(decision.changes).toStrictEqual({});
  });

  it('a record of another digest (the tag moved again) restarts the clock without calling the value unparsable', () => {
    const decision = decide({ [PENDING]: `${OTHER} 2026-12-01T10:00:00Z` }, T0);
    expect(decision.verdicts).toStrictEqual([
      { _tag: 'TooYoung', change, pending: { digest: NEW, firstSeenMs: T0 }, dueMs: T0 + HOUR, firstSighting: true },
    ]);
  });

  it('an unparsable record is carried in the verdict as it reads', () => {
    const decision = decide({ [PENDING]: 'garbage' }, T0);
    expect(decision.verdicts).toStrictEqual([
      {
        _tag: 'TooYoung',
        change,
        pending: { digest: NEW, firstSeenMs: T0 },
        dueMs: T0 + HOUR,
        firstSighting: true,
        unparsable: 'garbage',
      },
    ]);
  });
});

describe('unjudgedHold', () => {
  it('holds the digest as Soaking with no age (fail closed)', () => {
    expect(unjudgedHold(change)).toStrictEqual({ _tag: 'Soaking', image: 'jobs-manager', digest: NEW });
  });
});

describe('parsePendingDigest', () => {
  it('reads an RFC 3339 time with a fraction of any length', () => {
    expect(parsePendingDigest(`${NEW} 2026-12-01T13:05:00.123Z`)).toStrictEqual({ digest: NEW, firstSeenMs: T0 + 123 });
    expect(parsePendingDigest(`${NEW} 2026-12-01T13:05:00.5Z`)).toStrictEqual({ digest: NEW, firstSeenMs: T0 + 500 });
  });

  it('refuses a value with more than two fields or without a time', () => {
    expect(parsePendingDigest(`${NEW} 2026-12-01T13:05:00Z extra`)).toBeUndefined();
    expect(parsePendingDigest(NEW)).toBeUndefined();
  });

  it('refuses an expanded-year time (+002026-…), which Date.parse would read but RFC 3339 does not allow', () => {
    expect(parsePendingDigest(`${NEW} +002026-12-01T13:05:00Z`)).toBeUndefined();
  });

  it('round-trips what rfc3339 writes, in whole seconds', () => {
    expect(rfc3339(T0 + 999)).toBe('2026-12-01T13:05:00Z');
  });
});

describe('startJitterDelayMs', () => {
  // With jitterMs = 2^32 the delay is the FNV-1a 32-bit hash itself (published test vectors).
  it('is the FNV-1a hash of the uid scaled into [0, jitterMs)', () => {
    expect(startJitterDelayMs('', 2 ** 32)).toBe(0x811c9dc5);
    expect(startJitterDelayMs('a', 2 ** 32)).toBe(0xe40c292c);
    expect(startJitterDelayMs('foobar', 2 ** 32)).toBe(0xbf9cf968);
  });

  it('is 0 when jitter is off or negative', () => {
    expect(startJitterDelayMs('foobar', 0)).toBe(0);
    expect(startJitterDelayMs('foobar', -60_000)).toBe(0);
  });
});
