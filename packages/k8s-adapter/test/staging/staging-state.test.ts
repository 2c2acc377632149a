import { describe, expect, it } from 'vitest';
import { stagingStateOf } from '../../src/staging/staging-state.js';
import { labelSelectorOf } from '../../src/staging/workload-nodes.js';

// When a node counts as staged (docs/behaviour.md §3.5a): every container has
// left the pulling state — running, terminated, or waiting for a reason that
// is not ErrImagePull, ImagePullBackOff or ContainerCreating.

const pod = (statuses: unknown[] | undefined, extra: Record<string, unknown> = {}) => ({
  metadata: { name: 'p' },
  spec: { containers: [{ name: 'stage-0' }, { name: 'stage-1' }] },
  status: { phase: 'Pending', ...(statuses === undefined ? {} : { containerStatuses: statuses }), ...extra },
});
const waiting = (name: string, reason: string, message?: string) => ({
  name,
  state: { waiting: message === undefined ? { reason } : { reason, message } },
});

describe('stagingStateOf', () => {
  it('staged once every container runs, terminated, or waits for a reason past the pull', () => {
    expect(
      stagingStateOf(
        pod([
          { name: 'stage-0', state: { running: {} } },
          { name: 'stage-1', state: { terminated: { reason: 'StartError' } } },
        ]),
      ),
    ).toEqual({ _tag: 'Staged' });
    expect(
      stagingStateOf(pod([waiting('stage-0', 'CreateContainerConfigError'), waiting('stage-1', 'RunContainerError')])),
    ).toEqual({ _tag: 'Staged' });
  });

  it('still pulling while one container is, with the kubelet’s words', () => {
    for (const reason of ['ErrImagePull', 'ContainerCreating']) {
      expect(
        stagingStateOf(pod([{ name: 'stage-0', state: { running: {} } }, waiting('stage-1', reason, 'slow')])),
      ).toEqual({
        _tag: 'Pulling',
        reason: `${reason}: slow`,
      });
    }
    expect(stagingStateOf(pod(undefined))).toEqual({ _tag: 'Pulling', reason: 'Pending' });
    expect(
      stagingStateOf(
        pod([
          { name: 'stage-0', state: {} },
          { name: 'stage-1', state: { running: {} } },
        ]),
      ),
    ).toEqual({ _tag: 'Pulling', reason: 'ContainerCreating' });
  });

  it('fails at once where a pull failed and the kubelet backs off: the tick’s deadline is not spent on it', () => {
    expect(
      stagingStateOf(
        pod([
          waiting('stage-0', 'ImagePullBackOff', 'Back-off pulling image "x"'),
          waiting('stage-1', 'ContainerCreating'),
        ]),
      ),
    ).toEqual({
      _tag: 'Failed',
      reason: 'ImagePullBackOff: Back-off pulling image "x"',
    });
  });

  it('fails at once where the image will never be there, or the kubelet refused the pod', () => {
    expect(
      stagingStateOf(pod([waiting('stage-0', 'InvalidImageName', 'bad ref'), waiting('stage-1', 'ContainerCreating')])),
    ).toEqual({
      _tag: 'Failed',
      reason: 'InvalidImageName: bad ref',
    });
    expect(
      stagingStateOf(
        pod(undefined, { phase: 'Failed', reason: 'OutOfcpu', message: 'Node didn’t have enough resource' }),
      ),
    ).toEqual({
      _tag: 'Failed',
      reason: 'the kubelet failed the pod: OutOfcpu: Node didn’t have enough resource',
    });
    expect(
      stagingStateOf({ ...pod(undefined), metadata: { name: 'p', deletionTimestamp: '2026-12-03T00:00:00Z' } }),
    ).toEqual({
      _tag: 'Failed',
      reason: 'the staging pod is being deleted (by someone else)',
    });
  });

  it('an answer that is not a pod is still pulling, never staged', () => {
    expect(stagingStateOf(null)._tag).toBe('Pulling');
    expect(stagingStateOf({ spec: {} })._tag).toBe('Pulling');
  });
});

describe('labelSelectorOf', () => {
  it('matchLabels and every matchExpressions operator, as the labelSelector query takes them', () => {
    expect(
      labelSelectorOf({
        matchLabels: { app: 'rm', tier: 'node' },
        matchExpressions: [
          { key: 'a', operator: 'In', values: ['x', 'y'] },
          { key: 'b', operator: 'NotIn', values: ['z'] },
          { key: 'c', operator: 'Exists' },
          { key: 'd', operator: 'DoesNotExist' },
        ],
      }),
    ).toBe('app=rm,tier=node,a in (x,y),b notin (z),c,!d');
  });

  it('nothing to select by, or an operator it does not know: none (the workload is not staged)', () => {
    expect(labelSelectorOf({})).toBeUndefined();
    expect(labelSelectorOf({ matchExpressions: [{ key: 'a', operator: 'Near' }] })).toBeUndefined();
  });
});
