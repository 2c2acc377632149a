import { type Scenario, type SimWorld, simDigest } from '@image-refresh/core/sim';
import { ANNOTATION } from '../../../../core/test/support/chart.js';

// Stories beyond core's named ones, in the same shape, for paths those do not
// walk on the real adapters: a failed re-image that leaves the Deployment
// unsettled (the guard then skips), a re-image whose set image is a no-op
// patch (the image is already in the spec: no new rollout), a DaemonSet
// whose rollout never completes, and a lockout re-armed the way the FLAP
// DETECTED line says — clearing refresh-attempt alone — where only the
// success reset removes refresh-flap-detected.

const JM = 'tracebloc/jobs-manager';
const RM = 'tracebloc/resource-monitor';
const publish = (repo: string, build: number) => (world: SimWorld) =>
  world.publish(repo, simDigest(`${repo}#${build}`));

export const EXTRA_STORIES: readonly Scenario[] = [
  {
    name: 'stalled-rollout',
    summary:
      'A new jobs-manager build never becomes available: the re-image fails, the next tick skips the unsettled Deployment, and once its pods come up the image it already runs is not sent again (docs/behaviour.md §3.6), its rollout is waited for, and the digest recorded.',
    steps: [
      { event: 'fresh install' },
      {
        event: `publish ${JM} build 2, whose pods never become available`,
        act: (w) => {
          publish(JM, 2)(w);
          w.setBehaviour('jobs-manager', 'stalls');
        },
      },
      { event: '-' },
      { event: 'the stalled pods come up', act: (w) => w.setBehaviour('jobs-manager', 'settles') },
      { event: '-' },
    ],
  },
  {
    name: 'daemonset-never-ready',
    summary:
      'A new resource-monitor build never becomes Ready on the nodes: the DaemonSet re-image fails (attempt 1), then it recovers and the next tick records it.',
    steps: [
      { event: 'fresh install' },
      {
        event: `publish ${RM} build 2, never Ready on the nodes`,
        act: (w) => {
          publish(RM, 2)(w);
          w.setBehaviour('resource-monitor', 'neverReady');
        },
      },
      { event: 'the nodes pull and start it', act: (w) => w.setBehaviour('resource-monitor', 'settles') },
      { event: '-' },
    ],
  },
  {
    name: 'rearm-by-attempt-only',
    summary:
      'With MAX_REFRESH_ATTEMPTS=1 a flapping build locks out at once; the operator clears only refresh-attempt, as the FLAP DETECTED line says, and the next successful re-image removes refresh-flap-detected in its success reset.',
    env: { MAX_REFRESH_ATTEMPTS: '1' },
    steps: [
      { event: 'fresh install' },
      {
        event: `publish ${JM} build 2, which flaps`,
        act: (w) => {
          publish(JM, 2)(w);
          w.setBehaviour('jobs-manager', 'flaps');
        },
      },
      { event: '-' },
      {
        event: 'fixed; the operator clears refresh-attempt only',
        act: (w) => {
          w.setBehaviour('jobs-manager', 'settles');
          w.setAnnotation(ANNOTATION.refreshAttempt, undefined);
        },
      },
      { event: '-' },
    ],
  },
];
