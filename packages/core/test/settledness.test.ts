import { describe, expect, it } from 'vitest';
import {
  type DaemonSetRolloutView,
  type DeploymentRolloutView,
  daemonSetSettledness,
  deploymentSettledness,
} from '../src/domain/settledness.js';

// kubectl's rollout-status rules, in kubectl's order (kubectl pkg/polymorphichelpers/rollout_status.go).

const rolledOut: DeploymentRolloutView = {
  name: 'stg-jobs-manager',
  generation: 4,
  specReplicas: 2,
  observedGeneration: 4,
  replicas: 2,
  updatedReplicas: 2,
  availableReplicas: 2,
  conditions: [{ type: 'Progressing', reason: 'NewReplicaSetAvailable' }],
};

describe('deploymentSettledness', () => {
  it('is settled when every replica is updated and available', () =>
    expect(deploymentSettledness(rolledOut)).toEqual({
      _tag: 'Settled',
      message: 'deployment "stg-jobs-manager" successfully rolled out',
    }));

  it.each<[string, Partial<DeploymentRolloutView>, string]>([
    ['the spec is not observed yet', { observedGeneration: 3 }, 'spec update to be observed'],
    ['new replicas are missing', { updatedReplicas: 1 }, '1 out of 2 new replicas have been updated'],
    ['old replicas linger', { replicas: 3 }, '1 old replicas are pending termination'],
    ['updated replicas are not available', { availableReplicas: 0 }, '0 of 2 updated replicas are available'],
  ])('waits while %s, saying so with numbers', (_, change, reason) => {
    const result = deploymentSettledness({ ...rolledOut, ...change });
    expect(result._tag).toBe('Waiting');
    expect(result._tag === 'Waiting' && result.reason).toContain(reason);
  });

  it('fails (never settles) once the progress deadline is exceeded', () =>
    expect(
      deploymentSettledness({
        ...rolledOut,
        conditions: [{ type: 'Progressing', reason: 'ProgressDeadlineExceeded' }],
      }),
    ).toEqual({ _tag: 'Failed', reason: 'deployment "stg-jobs-manager" exceeded its progress deadline' }));

  it('an unobserved spec wins over an old progress deadline, as in kubectl', () =>
    expect(
      deploymentSettledness({
        ...rolledOut,
        observedGeneration: 3,
        conditions: [{ type: 'Progressing', reason: 'ProgressDeadlineExceeded' }],
      })._tag,
    ).toBe('Waiting'));
});

const dsRolledOut: DaemonSetRolloutView = {
  name: 'stg-resource-monitor',
  updateStrategy: 'RollingUpdate',
  generation: 2,
  observedGeneration: 2,
  desiredNumberScheduled: 3,
  updatedNumberScheduled: 3,
  numberAvailable: 3,
};

describe('daemonSetSettledness', () => {
  it('is settled when every node runs the updated pod, available', () =>
    expect(daemonSetSettledness(dsRolledOut)._tag).toBe('Settled'));

  it.each<[string, Partial<DaemonSetRolloutView>, string]>([
    ['the spec is not observed yet', { observedGeneration: 1 }, 'spec update to be observed'],
    ['nodes lack the new pod', { updatedNumberScheduled: 1 }, '1 out of 3 new pods have been updated'],
    ['updated pods are not available', { numberAvailable: 2 }, '2 of 3 updated pods are available'],
  ])('waits while %s', (_, change, reason) => {
    const result = daemonSetSettledness({ ...dsRolledOut, ...change });
    expect(result._tag === 'Waiting' && result.reason).toContain(reason);
  });

  it('an OnDelete DaemonSet is a failure, never "settled" (kubectl says done with an error)', () =>
    expect(daemonSetSettledness({ ...dsRolledOut, updateStrategy: 'OnDelete' })._tag).toBe('Failed'));
});
