import fc from 'fast-check';
import type { Environment } from '../../src/config/environment.js';

// Configurations vary with the sequences: every ceiling the chart allows in
// practice, any pin combination, and now and then a private mirror.
export const environmentArbitrary: fc.Arbitrary<Environment> = fc.record({
  MAX_SKIP_TICKS: fc.integer({ min: 1, max: 10 }).map(String),
  MAX_REFRESH_ATTEMPTS: fc.integer({ min: 1, max: 5 }).map(String),
  JOBS_MANAGER_PINNED: fc.constantFrom('0', '0', '0', '1'),
  PODS_MONITOR_PINNED: fc.constantFrom('0', '0', '0', '1'),
  RESOURCE_MONITOR_PINNED: fc.constantFrom('0', '0', '0', '1'),
  REQUESTS_PROXY_PINNED: fc.constantFrom('0', '0', '0', '1'),
  IMAGE_REGISTRY: fc.constantFrom(...Array(19).fill('docker.io'), 'mirror.corp.example:5000'),
  FLAP_LOCKOUT_EXIT: fc.constantFrom('0', '1'),
  REGISTRY_BUDGET_FLOOR: fc.constantFrom('10', '10', '0', '40', 'off'),
  // Issue 7's switches, off about half the time so I1–I20 keep their reference meaning.
  RECONCILE_LIVE: fc.constantFrom('0', '0', 'report', '1', '1'),
  DECOUPLED_REFRESH: fc.constantFrom('0', '1'),
  // Issue 16's switches, off about half the time so the rest keep their meaning (I31).
  ON_ROLLOUT_FAILURE: fc.constantFrom('keep', 'revert'),
  ROLLOUT_STABLE_FOR: fc.constantFrom('0s', '0s', '1m'),
  // Issue 15: off 40% of the time, so the existing invariants keep their
  // reference meaning (I28); enforce as often, so I26 meets its re-images.
  VERIFY_SIGNATURES: fc.constantFrom('off', 'off', 'warn', 'enforce', 'enforce'),
  SIGNATURE_PUBLIC_KEYS: fc.constant('/etc/image-refresh/keys/sim.pub'),
  // Never overwrite what is not ours (docs/behaviour.md §3.4c): on by default, off now and then (I21, I45).
  OWNERSHIP_CHECK: fc.constantFrom('on', 'on', 'on', 'off'),
});
