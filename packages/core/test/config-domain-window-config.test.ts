import * as E from 'fp-ts/lib/Either.js';
import { describe, expect, it } from 'vitest';
import { parseMaintenanceWindows } from '../src/config/maintenance-window-grammar.js';
import { parseTickConfig } from '../src/config/parse-config.js';

// MAINTENANCE_WINDOW and its siblings as the tick reads them (docs/behaviour.md
// §3.4d): each problem's exact words at its variable, and the rollout-seconds
// keys judged only for a window setting that parsed.

const CHART = { RELEASE_NAME: 'stg', RELEASE_NAMESPACE: 'tracebloc', IMAGE_TAG: 'stg' };
const problemsOf = (env: Record<string, string>, profile?: unknown) => {
  const parsed = parseTickConfig(env, profile);
  return E.isLeft(parsed) ? parsed.left : [];
};

/** A one-workload profile whose workload (the gate) has the id given. */
const profileWithWorkload = (id: string) => ({
  annotationPrefix: 'shop.example.com',
  gate: id,
  images: [{ name: 'web', repository: 'shop/web' }],
  workloads: [{ id, kind: 'Deployment', namespace: 'shop', name: 'web', containers: { web: 'web' } }],
});

const KEY_TOO_LONG = (id: string) =>
  `needs each workload's rollout durations under rollout-seconds-<workload id>, at most 63 characters: workload id "${id}" is ${id.length} characters, at most 47 fit`;

describe('a malformed window is named at MAINTENANCE_WINDOW, with the whole value', () => {
  it('a day that is not one', () => {
    expect(problemsOf({ ...CHART, MAINTENANCE_WINDOW: 'Xyz 01:00-04:00 UTC' })).toEqual([
      {
        variable: 'MAINTENANCE_WINDOW',
        value: 'Xyz 01:00-04:00 UTC',
        problem:
          'window 1 "Xyz 01:00-04:00 UTC": "Xyz" is not a day (Mon, Tue, Wed, Thu, Fri, Sat, Sun) or a range of days (Mon-Fri)',
      },
    ]);
  });

  it('a range whose first day is not one, though its last is', () => {
    expect(problemsOf({ ...CHART, MAINTENANCE_WINDOW: 'Xyz-Fri 01:00-04:00 UTC' })).toEqual([
      {
        variable: 'MAINTENANCE_WINDOW',
        value: 'Xyz-Fri 01:00-04:00 UTC',
        problem:
          'window 1 "Xyz-Fri 01:00-04:00 UTC": "Xyz-Fri" is not a day (Mon, Tue, Wed, Thu, Fri, Sat, Sun) or a range of days (Mon-Fri)',
      },
    ]);
  });

  it('a time without its leading zero', () => {
    expect(problemsOf({ ...CHART, MAINTENANCE_WINDOW: 'Mon 1:00-04:00 UTC' })).toEqual([
      {
        variable: 'MAINTENANCE_WINDOW',
        value: 'Mon 1:00-04:00 UTC',
        problem: 'window 1 "Mon 1:00-04:00 UTC": "1:00-04:00" is not <HH:MM>-<HH:MM> (24-hour, 00:00 to 24:00)',
      },
    ]);
  });
});

describe('WINDOW_MARGIN', () => {
  it('without a unit is named with the examples of a duration that may be 0s', () => {
    expect(problemsOf({ ...CHART, MAINTENANCE_WINDOW: 'Mon 01:00-04:00 UTC', WINDOW_MARGIN: '5' })).toEqual([
      { variable: 'WINDOW_MARGIN', value: '5', problem: 'is not a duration (use a unit, e.g. 0s, 30s, 10m, 1h30m)' },
    ]);
  });
});

describe('the list of windows', () => {
  it('a trailing ";" after several windows closes the list', () => {
    const parsed = parseMaintenanceWindows('Mon 01:00-02:00 UTC; Tue 03:00-04:00 UTC;');
    expect(parsed).toEqual({
      windows: [
        { text: 'Mon 01:00-02:00 UTC', days: [0], startMinute: 60, endMinute: 120, zone: 'UTC' },
        { text: 'Tue 03:00-04:00 UTC', days: [1], startMinute: 180, endMinute: 240, zone: 'UTC' },
      ],
    });
  });

  it('an empty window between two is named by its place', () => {
    expect(parseMaintenanceWindows('Mon 01:00-02:00 UTC;; Tue 03:00-04:00 UTC')).toEqual({
      problems: ['window 2 is empty (windows are separated by ";")'],
    });
  });
});

describe("the rollout-seconds keys are judged only for a window setting that parsed (the window's own problems first)", () => {
  const longId = 'w'.repeat(48);

  it('a workload id whose key is exactly 63 characters fits', () => {
    const id = 'w'.repeat(47);
    const parsed = parseTickConfig(
      { IMAGE_TAG: 'stg', MAINTENANCE_WINDOW: 'Mon 01:00-04:00 UTC' },
      profileWithWorkload(id),
    );
    expect(E.isRight(parsed)).toBe(true);
    expect(
      problemsOf({ IMAGE_TAG: 'stg', MAINTENANCE_WINDOW: 'Mon 01:00-04:00 UTC' }, profileWithWorkload(longId)),
    ).toEqual([{ variable: 'MAINTENANCE_WINDOW', value: 'Mon 01:00-04:00 UTC', problem: KEY_TOO_LONG(longId) }]);
  });

  it('PREPULL_OUTSIDE_WINDOW=on without staging is named alone', () => {
    expect(
      problemsOf(
        { IMAGE_TAG: 'stg', MAINTENANCE_WINDOW: 'Mon 01:00-04:00 UTC', PREPULL_OUTSIDE_WINDOW: 'on' },
        profileWithWorkload(longId),
      ),
    ).toEqual([
      {
        variable: 'PREPULL_OUTSIDE_WINDOW',
        value: 'on',
        problem: 'stages a held plan ahead of the window, which needs PREPULL=on (staging is off)',
      },
    ]);
  });

  it('a malformed window is named alone', () => {
    expect(problemsOf({ IMAGE_TAG: 'stg', MAINTENANCE_WINDOW: 'Mon 01:00 UTC' }, profileWithWorkload(longId))).toEqual([
      {
        variable: 'MAINTENANCE_WINDOW',
        value: 'Mon 01:00 UTC',
        problem: 'window 1 "Mon 01:00 UTC": "01:00" is not <HH:MM>-<HH:MM> (24-hour, 00:00 to 24:00)',
      },
    ]);
  });

  it('a profile that is refused leaves no workload to judge: its problems are returned, nothing throws', () => {
    const refused = problemsOf({ IMAGE_TAG: 'stg', MAINTENANCE_WINDOW: 'Mon 01:00-04:00 UTC' }, { gate: 'web' });
    expect(refused.map((p) => `${p.variable}: ${p.problem}`)).toEqual([
      'IMAGE_REFRESH_PROFILE: annotationPrefix: is required',
      'IMAGE_REFRESH_PROFILE: images: is required: the images of the profile',
      'IMAGE_REFRESH_PROFILE: workloads: is required: the workloads of the profile',
    ]);
  });
});
