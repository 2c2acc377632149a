import { expect, it } from 'vitest';
import { dryRunEvent } from '../src/render/dry-run-lines.js';

// An interrupted dry run wrote nothing: its line must not repeat what the
// pretend writes "left" (the skip counted, refresh-attempt=1 stays, digests
// recorded) — a dry run's log names no write it did not make (docs/behaviour.md §3, Dry run).

it('an interrupted dry run says nothing was written, not what its pretend writes would have left', () => {
  const shown = dryRunEvent({
    level: 'warn',
    code: 'INTERRUPTED',
    message:
      'interrupted by SIGTERM while waiting for deployment/stg-jobs-manager: refresh-attempt=1 stays, digests not recorded',
  });
  expect(shown?.message).toBe(
    'dry-run: interrupted by SIGTERM while waiting for deployment/stg-jobs-manager: nothing was written (dry run)',
  );
});

it('PREPULL under --dry-run: staging is said as what would happen, and no node is named as staged', () => {
  const starts = dryRunEvent({
    level: 'info',
    code: 'STAGING',
    message:
      'staging docker.io/tracebloc/jobs-manager@sha256:ab on the nodes of deployment/stg-jobs-manager before switching them (PREPULL_TIMEOUT=30m, PREPULL_PARALLEL=1)',
  });
  expect(starts?.message).toBe(
    'dry-run: would stage docker.io/tracebloc/jobs-manager@sha256:ab on the nodes of deployment/stg-jobs-manager before switching them (PREPULL_TIMEOUT=30m, PREPULL_PARALLEL=1)',
  );
  expect(
    dryRunEvent({ level: 'info', code: 'STAGED', message: 'staged … on no node (no pod of it runs now) for …' }),
  ).toBeUndefined();
});
