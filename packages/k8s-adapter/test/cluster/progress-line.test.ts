import type { WorkloadRef } from '@image-refresh/core';
import { describe, expect, it } from 'vitest';
import { progressLine } from '../../src/cluster/progress-line.js';

// The line `kubectl logs -f` shows while a rollout is waited on: what it
// waits for, with numbers, and how long of how long.

const ref: WorkloadRef = { id: 'jobs-manager', kind: 'Deployment', name: 'stg-jobs-manager', namespace: 'tracebloc' };

describe('progressLine', () => {
  it('says what a Deployment rollout waits for, with numbers, elapsed and limit', () => {
    const line = progressLine(
      ref,
      {
        settledness: {
          _tag: 'Waiting',
          reason:
            'Waiting for deployment "stg-jobs-manager" rollout to finish: 0 of 1 updated replicas are available...',
        },
      },
      90_000,
      600_000,
    );
    expect(line).toBe('waiting for deployment/stg-jobs-manager: 0 of 1 updated replicas are available (1m30s of 10m)');
  });

  it('says a DaemonSet spec is not yet observed', () => {
    const ds: WorkloadRef = { ...ref, id: 'resource-monitor', kind: 'DaemonSet', name: 'stg-resource-monitor' };
    const line = progressLine(
      ds,
      {
        settledness: {
          _tag: 'Waiting',
          reason: 'Waiting for daemon set "stg-resource-monitor" spec update to be observed...',
        },
      },
      30_000,
      600_000,
    );
    expect(line).toBe('waiting for daemonset/stg-resource-monitor: spec update to be observed (30s of 10m)');
  });

  it('says when the last read failed, and why', () => {
    const line = progressLine(ref, { error: { _tag: 'Transport', message: 'boom', status: 503 } }, 60_000, 600_000);
    expect(line).toBe(
      'waiting for deployment/stg-jobs-manager: the last read failed: Transport (HTTP 503): boom (1m of 10m)',
    );
  });
});
