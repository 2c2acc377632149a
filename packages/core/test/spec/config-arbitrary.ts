import fc from 'fast-check';
import type { Environment } from '../../src/config/environment.js';
import type { Profile } from '../../src/config/profile/profile.js';

/**
 * The switches and ceilings any edge has, whatever its topology: every
 * ceiling in practical use, and each switch beyond the script on or off.
 */
const switchesArbitrary = fc.record({
  MAX_SKIP_TICKS: fc.integer({ min: 1, max: 10 }).map(String),
  MAX_REFRESH_ATTEMPTS: fc.integer({ min: 1, max: 5 }).map(String),
  FLAP_LOCKOUT_EXIT: fc.constantFrom('0', '1'),
  REGISTRY_BUDGET_FLOOR: fc.constantFrom('10', '10', '0', '40', 'off'),
  // The live and decoupled switches, off about half the time so I1–I20 keep their reference meaning (I21).
  RECONCILE_LIVE: fc.constantFrom('0', '0', 'report', '1', '1'),
  DECOUPLED_REFRESH: fc.constantFrom('0', '1'),
  // The way back, off about half the time so the rest keep their meaning (I31).
  ON_ROLLOUT_FAILURE: fc.constantFrom('keep', 'revert'),
  ROLLOUT_STABLE_FOR: fc.constantFrom('0s', '0s', '1m'),
  // Signatures: off 40% of the time, so the existing invariants keep their
  // reference meaning (I28); enforce as often, so I26 meets its re-images.
  VERIFY_SIGNATURES: fc.constantFrom('off', 'off', 'warn', 'enforce', 'enforce'),
  SIGNATURE_PUBLIC_KEYS: fc.constant('/etc/image-refresh/keys/sim.pub'),
  // Never overwrite what is not ours (docs/behaviour.md §3.4c): on by default, off now and then (I21, I45).
  OWNERSHIP_CHECK: fc.constantFrom('on', 'on', 'on', 'off'),
  // A registry that never answers (docs/behaviour.md §3.3, I46): low ceilings so runs reach them, off now and then.
  MAX_RESOLVE_FAILURE_TICKS: fc.constantFrom('1', '2', '3', '8', 'off'),
});

/** A pin variable's value: set about a quarter of the time (I13). */
const pinValue = fc.constantFrom('0', '0', '0', '1');

// Configurations vary with the sequences: every ceiling the chart allows in
// practice, any pin combination, and now and then a private mirror.
export const environmentArbitrary: fc.Arbitrary<Environment> = fc
  .tuple(
    switchesArbitrary,
    fc.record({
      JOBS_MANAGER_PINNED: pinValue,
      PODS_MONITOR_PINNED: pinValue,
      RESOURCE_MONITOR_PINNED: pinValue,
      REQUESTS_PROXY_PINNED: pinValue,
    }),
    // Now and then a private mirror: inert as the script (I14), or followed
    // upstream through (MIRROR_MODE=follow-upstream, docs/behaviour.md §3.3).
    fc.constantFrom<Environment>(
      ...Array<Environment>(16).fill({ IMAGE_REGISTRY: 'docker.io' }),
      { IMAGE_REGISTRY: 'mirror.corp.example:5000' },
      ...Array<Environment>(3).fill({ IMAGE_REGISTRY: 'mirror.corp.example:5000', MIRROR_MODE: 'follow-upstream' }),
    ),
  )
  .map(([switches, chart, mirror]) => ({ ...chart, ...mirror, ...switches }));

/**
 * The environment beside a profile (docs/profiles.md): the same switches and
 * ceilings, none of the chart's variables (a profile ignores them, and the
 * mirror guard is the chart's, docs/behaviour.md §3.1), and a value for each
 * pin variable the profile itself names — an image's or a workload's.
 */
export const profileEnvironmentArbitrary = (profile: Profile): fc.Arbitrary<Environment> => {
  const pins = [...profile.images, ...profile.workloads].flatMap((p) => (p.pinnedBy === undefined ? [] : [p.pinnedBy]));
  return fc.tuple(switchesArbitrary, fc.tuple(...pins.map(() => pinValue))).map(([switches, values]) => ({
    ...switches,
    // DECOUPLED_REFRESH=1 over a profile that marks no workload decoupled is a configuration error (I24).
    ...(profile.workloads.some((w) => w.decoupled === true) ? {} : { DECOUPLED_REFRESH: '0' }),
    ...Object.fromEntries(pins.map((pin, i) => [pin, values[i]])),
  }));
};
