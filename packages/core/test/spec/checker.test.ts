import { describe, expect, it } from 'vitest';
import type { Environment } from '../../src/config/environment.js';
import type { Profile } from '../../src/config/profile/profile.js';
import { SHOP_PROFILE, SimWorld, simConfig, simDigest, simPorts } from '../../src/sim/index.js';
import { ANNOTATION } from '../support/chart.js';
import type { SpecCall } from '../support/spec-calls.js';
import { INVARIANTS } from './invariants.js';
import { SpecChecker } from './spec-checker.js';
import { recordTick, type TickRecord } from './tick-record.js';

// The checker is itself tested: a trace that breaks an invariant must be
// rejected, naming that invariant. Each case records a real tick, then
// tampers with it the way a broken tick machine would have behaved.

const JM = 'tracebloc/jobs-manager';
const RM = 'tracebloc/resource-monitor';
const STREAK = ANNOTATION.skipStreak;
/** Verification on (§3.4a step 3), with the simulator's trusted key. */
const SIGNED = { VERIFY_SIGNATURES: 'enforce', SIGNATURE_PUBLIC_KEYS: '/etc/image-refresh/keys/sim.pub' };

/** A world after `setup`, with the given preceding ticks already run, and one more tick recorded. */
const recorded = async (
  setup: (world: SimWorld) => void,
  env: Environment = {},
  before: (world: SimWorld) => Promise<void> = async () => undefined,
  profile?: Profile,
): Promise<{ checker: SpecChecker; record: TickRecord }> => {
  const config = simConfig(env, profile);
  const world = new SimWorld(config);
  const ports = simPorts(world);
  const checker = new SpecChecker();
  await before(world);
  // A first, clean tick records the digests (and primes the checker's history).
  checker.check(await recordTick(world, ports, config));
  setup(world);
  return { checker, record: await recordTick(world, ports, config) };
};

const call = (op: SpecCall['op'], detail = '', outcome = 'ok'): SpecCall => ({ op, detail, outcome, at: 0 });
const ids = (checker: SpecChecker, record: TickRecord, replay?: TickRecord) =>
  [...new Set(checker.check(record, replay).map((v) => v.invariant.id))].sort();

const withExit = (record: TickRecord, exitCode: 0 | 1): TickRecord => ({
  ...record,
  outcome: { ...record.outcome, exitCode },
});
const withCalls = (record: TickRecord, calls: readonly SpecCall[]): TickRecord => ({ ...record, calls });

interface WrongTrace {
  readonly breaks: readonly string[];
  readonly trace: string;
  readonly tampered: () => Promise<{ checker: SpecChecker; record: TickRecord; replay?: TickRecord }>;
}

const WRONG_TRACES: readonly WrongTrace[] = [
  {
    breaks: ['I1', 'I9'],
    trace: 'a re-image on an unsettled tick',
    tampered: async () => {
      const { checker, record } = await recorded((w) => w.setBehaviour('jobs-manager', 'neverReady'));
      const tampered = withCalls(record, [
        ...record.calls,
        call('setImages', `jobs-manager api=docker.io/${JM}@${simDigest('x')}`),
      ]);
      return { checker, record: tampered };
    },
  },
  {
    breaks: ['I2'],
    trace: 'a write after the jobs-manager Deployment could not be read',
    tampered: async () => {
      const { checker, record } = await recorded((w) => w.injectClusterFault('readGate', 'Forbidden'));
      return { checker, record: withCalls(record, [...record.calls, call('writeSkipStreak', '1')]) };
    },
  },
  {
    breaks: ['I3', 'I5', 'I18'],
    trace: 'a tick at the skip ceiling that exits 0',
    tampered: async () => {
      const { checker, record } = await recorded(
        (w) => {
          w.setBehaviour('jobs-manager', 'neverReady');
        },
        { MAX_SKIP_TICKS: '1' },
      );
      expect(record.outcome.exitCode).toBe(1);
      return { checker, record: withExit(record, 0) };
    },
  },
  {
    breaks: ['I3'],
    trace: 'a streak that did not count up from the recorded one',
    tampered: async () => {
      const { checker, record } = await recorded((w) => {
        w.setBehaviour('jobs-manager', 'neverReady');
        w.setAnnotation(STREAK, '4');
      });
      const calls = record.calls.map((c) => (c.op === 'writeSkipStreak' ? { ...c, detail: '1' } : c));
      return { checker, record: withCalls(record, calls) };
    },
  },
  {
    breaks: ['I4'],
    trace: 'an unreadable streak collapsed to a write of 1',
    tampered: async () => {
      const { checker, record } = await recorded((w) => {
        w.setBehaviour('jobs-manager', 'neverReady');
        w.armClusterFault({ op: 'readGate', readIndex: 1 }, 'Transport');
      });
      return { checker, record: withCalls(record, [...record.calls, call('writeSkipStreak', '1')]) };
    },
  },
  {
    breaks: ['I6'],
    trace: 'a settled tick that leaves a recorded streak in place',
    tampered: async () => {
      const { checker, record } = await recorded((w) => w.setAnnotation(STREAK, '3'));
      return {
        checker,
        record: withCalls(
          record,
          record.calls.filter((c) => c.op !== 'clearSkipStreak'),
        ),
      };
    },
  },
  {
    breaks: ['I7', 'I12'],
    trace: 'a digest recorded after a failed rollout',
    tampered: async () => {
      const { checker, record } = await recorded((w) => {
        w.publish(JM, simDigest(`${JM}#2`));
        w.setBehaviour('jobs-manager', 'stalls');
      });
      const after = {
        ...record.after,
        annotations: {
          ...record.after.annotations,
          'tracebloc.io/last-refreshed-jobs-manager-digest': simDigest(`${JM}#2`),
        },
      };
      return { checker, record: { ...record, after, calls: [...record.calls, call('clearFlapState')] } };
    },
  },
  {
    breaks: ['I7b'],
    trace: 'a re-image started with the registry pull budget below the floor',
    tampered: async () => {
      const { checker, record } = await recorded((w) => {
        w.publish(JM, simDigest(`${JM}#2`));
        w.rateLimitRemaining = 2;
      });
      const calls = [
        ...record.calls,
        call('writeRefreshAttempt', '1'),
        call('setImages', `jobs-manager api=docker.io/${JM}@${simDigest(`${JM}#2`)}`),
      ];
      return { checker, record: withCalls(record, calls) };
    },
  },
  {
    breaks: ['I8'],
    trace: 'a re-image on a first observation',
    tampered: async () => {
      const { checker, record } = await recorded((w) =>
        w.setAnnotation('tracebloc.io/last-refreshed-jobs-manager-digest', undefined),
      );
      const reimage = [
        call('writeRefreshAttempt', '1'),
        call('setImages', `jobs-manager api=docker.io/${JM}@${simDigest(`${JM}#1`)}`),
        call('waitForRollout', 'jobs-manager'),
      ];
      return { checker, record: withCalls(record, [...record.calls, ...reimage]) };
    },
  },
  {
    breaks: ['I10'],
    trace: 'a re-image at the flap ceiling',
    tampered: async () => {
      const { checker, record } = await recorded((w) => {
        w.publish(JM, simDigest(`${JM}#2`));
        w.setAnnotation(ANNOTATION.refreshAttempt, '3');
      });
      const calls = [
        ...record.calls.filter((c) => c.op !== 'markFlapDetected'),
        call('writeRefreshAttempt', '4'),
        call('setImages', `jobs-manager api=docker.io/${JM}@${simDigest(`${JM}#2`)}`),
      ];
      return { checker, record: withCalls(record, calls) };
    },
  },
  {
    breaks: ['I10', 'I18'],
    trace: 'a lockout with drift pending that a low registry budget deferred to exit 0 (FLAP_LOCKOUT_EXIT=1)',
    tampered: async () => {
      const { checker, record } = await recorded(
        (w) => {
          w.publish(JM, simDigest(`${JM}#2`));
          w.setAnnotation(ANNOTATION.refreshAttempt, '3');
          w.rateLimitRemaining = 2;
        },
        { FLAP_LOCKOUT_EXIT: '1' },
      );
      expect(record.outcome.result).toBe('flapLockout');
      // The old order: budget first, the counter never read, `complete`.
      const calls = record.calls.filter((c) => c.op !== 'readRefreshAttempt' && c.op !== 'markFlapDetected');
      return { checker, record: withExit(withCalls(record, calls), 0) };
    },
  },
  {
    breaks: ['I11'],
    trace: 'a re-image after the attempt counter could not be read',
    tampered: async () => {
      const { checker, record } = await recorded((w) => {
        w.publish(JM, simDigest(`${JM}#2`));
        w.armClusterFault({ op: 'readGate', readIndex: 3 }, 'Timeout');
      });
      const calls = [
        ...record.calls,
        call('writeRefreshAttempt', '1'),
        call('setImages', `jobs-manager api=docker.io/${JM}@${simDigest(`${JM}#2`)}`),
      ];
      return { checker, record: withCalls(record, calls) };
    },
  },
  {
    breaks: ['I12'],
    trace: 'a digest record that comes before the success reset',
    tampered: async () => {
      const { checker, record } = await recorded((w) => w.publish(JM, simDigest(`${JM}#2`)));
      const reset = record.calls.find((c) => c.op === 'clearFlapState');
      const calls = [...record.calls.filter((c) => c.op !== 'clearFlapState'), ...(reset ? [reset] : [])];
      return { checker, record: withCalls(record, calls) };
    },
  },
  {
    breaks: ['I13'],
    trace: 'resolving a pinned image',
    tampered: async () => {
      const { checker, record } = await recorded(() => undefined, { JOBS_MANAGER_PINNED: '1' });
      return { checker, record: withCalls(record, [...record.calls, call('resolveDigest', JM)]) };
    },
  },
  {
    breaks: ['I14'],
    trace: 'any call behind a private mirror',
    tampered: async () => {
      const { checker, record } = await recorded(() => undefined, { IMAGE_REGISTRY: 'mirror.example' });
      return { checker, record: withCalls(record, [call('observeJobsManager')]) };
    },
  },
  {
    breaks: ['I15'],
    trace: 'a drifted image left behind because another failed to resolve',
    tampered: async () => {
      const { checker, record } = await recorded((w) => {
        w.publish(JM, simDigest(`${JM}#2`));
        w.publish('tracebloc/resource-monitor', simDigest('tracebloc/resource-monitor#2'));
        w.injectRegistryFault('tracebloc/pods-monitor', 'Transport');
      });
      const calls = record.calls.filter((c) => !(c.op === 'setImages' && c.detail.startsWith('resource-monitor')));
      return { checker, record: withCalls(record, calls) };
    },
  },
  {
    breaks: ['I16'],
    trace: 'requests-proxy on a digest other than jobs-manager`s',
    tampered: async () => {
      const { checker, record } = await recorded((w) => w.publish(JM, simDigest(`${JM}#2`)));
      const calls = record.calls.map((c) =>
        c.op === 'setImages' && c.detail.startsWith('requests-proxy')
          ? { ...c, detail: `requests-proxy proxy=docker.io/${JM}@${simDigest('other')}` }
          : c,
      );
      return { checker, record: withCalls(record, calls) };
    },
  },
  {
    breaks: ['I17'],
    trace: 'a tick that ran past the sum of its bounds',
    tampered: async () => {
      const { checker, record } = await recorded(() => undefined);
      return {
        checker,
        record: { ...record, after: { ...record.after, clockMs: record.before.clockMs + 10 * 60 * 60_000 } },
      };
    },
  },
  {
    breaks: ['I18'],
    trace: 'a failed bookkeeping write that exits 0',
    tampered: async () => {
      const { checker, record } = await recorded((w) => {
        w.publish(JM, simDigest(`${JM}#2`));
        w.injectClusterFault('patchBookkeeping', 'Transport', 1, 'tracebloc.io/last-refreshed-');
      });
      return { checker, record: withExit(record, 0) };
    },
  },
  {
    breaks: ['I18b'],
    trace: 'a Deployment write made after an Event was recorded',
    tampered: async () => {
      const { checker, record } = await recorded((w) => w.setBehaviour('jobs-manager', 'neverReady'));
      return { checker, record: withCalls(record, [...record.calls, call('writeSkipStreak', '2')]) };
    },
  },
  {
    breaks: ['I21'],
    trace: 'a live read made with RECONCILE_LIVE and DECOUPLED_REFRESH off',
    tampered: async () => {
      const { checker, record } = await recorded(() => undefined);
      return { checker, record: withCalls(record, [...record.calls, call('observeWorkload', 'requests-proxy')]) };
    },
  },
  {
    breaks: ['I21'],
    trace: 'an ownership read with OWNERSHIP_CHECK=off: the reference tick reads no workload',
    tampered: async () => {
      const { checker, record } = await recorded(() => undefined, { OWNERSHIP_CHECK: 'off' });
      return { checker, record: withCalls(record, [...record.calls, call('readOwnedWorkload', 'requests-proxy')]) };
    },
  },
  {
    breaks: ['I21'],
    trace: "the gate read again for the ownership check: its read is the tick's own",
    tampered: async () => {
      const { checker, record } = await recorded(() => undefined);
      return { checker, record: withCalls(record, [...record.calls, call('readOwnedWorkload', 'jobs-manager')]) };
    },
  },
  {
    breaks: ['I46'],
    trace: 'a tick in which an image went unanswered that counts no silence',
    tampered: async () => {
      const { checker, record } = await recorded((w) => w.injectRegistryFault(JM, 'Transport'));
      return {
        checker,
        record: withCalls(
          record,
          record.calls.filter((c) => c.op !== 'writeResolveFailureStreak'),
        ),
      };
    },
  },
  {
    breaks: ['I46'],
    trace: 'a tick in which every image answered that leaves the silence streak behind',
    tampered: async () => {
      const { checker, record } = await recorded((w) => w.setAnnotation(ANNOTATION.resolveFailureStreak, '3'));
      return {
        checker,
        record: withCalls(
          record,
          record.calls.filter((c) => c.op !== 'clearResolveFailureStreak'),
        ),
      };
    },
  },
  {
    breaks: ['I46'],
    trace: 'a silence counted with MAX_RESOLVE_FAILURE_TICKS=off',
    tampered: async () => {
      const { checker, record } = await recorded((w) => w.injectRegistryFault(JM, 'Transport'), {
        MAX_RESOLVE_FAILURE_TICKS: 'off',
      });
      return { checker, record: withCalls(record, [...record.calls, call('writeResolveFailureStreak', '1')]) };
    },
  },
  {
    breaks: ['I45'],
    trace: 'a set image of a container someone set to another image, under OWNERSHIP_CHECK=on',
    tampered: async () => {
      const { checker, record } = await recorded((w) => {
        w.setLiveImage('resource-monitor', 'tracebloc-resource-monitor', 'quay.io/acme/monitor:debug');
        w.publish(RM, simDigest(`${RM}#2`));
      });
      const calls = [
        ...record.calls,
        call('writeRefreshAttempt', '1'),
        call('setImages', `resource-monitor tracebloc-resource-monitor=docker.io/${RM}@${simDigest(`${RM}#2`)}`),
        call('waitForRollout', 'resource-monitor'),
      ];
      return { checker, record: withCalls(record, calls) };
    },
  },
  {
    breaks: ['I22'],
    trace: 'a pods-monitor re-image past an unsettled jobs-manager in decoupled mode',
    tampered: async () => {
      const { checker, record } = await recorded((w) => w.setBehaviour('jobs-manager', 'neverReady'), {
        DECOUPLED_REFRESH: '1',
      });
      const calls = [
        ...record.calls,
        call('writeRefreshAttempt', '1'),
        call('setImages', `jobs-manager pods-monitor-container=docker.io/tracebloc/pods-monitor@${simDigest('pm')}`),
      ];
      return { checker, record: withCalls(record, calls) };
    },
  },
  {
    breaks: ['I23'],
    trace: 'a re-pin of a fresh install still on repo:tag, which image-refresh never pinned',
    tampered: async () => {
      const { checker, record } = await recorded(() => undefined, { RECONCILE_LIVE: '1' });
      const calls = [
        ...record.calls,
        call('writeRefreshAttempt', '1'),
        call('setImages', `jobs-manager api=docker.io/${JM}@${simDigest(`${JM}#1`)}`),
        call('waitForRollout', 'jobs-manager'),
      ];
      return { checker, record: withCalls(record, calls) };
    },
  },
  {
    breaks: ['I24'],
    trace: 'a decoupled re-image of a resource-monitor that was not settled itself',
    tampered: async () => {
      const { checker, record } = await recorded(
        (w) => {
          w.setBehaviour('jobs-manager', 'neverReady');
          w.setBehaviour('resource-monitor', 'neverReady');
        },
        { DECOUPLED_REFRESH: '1' },
      );
      const calls = [
        ...record.calls,
        call('writeRefreshAttempt', '1'),
        call(
          'setImages',
          `resource-monitor tracebloc-resource-monitor=docker.io/tracebloc/resource-monitor@${simDigest('rm')}`,
        ),
      ];
      return { checker, record: withCalls(record, calls) };
    },
  },
  {
    breaks: ['I25'],
    trace: 'a decoupled pass that patched requests-proxy in place and cleared the count a failing jobs-manager built',
    tampered: async () => {
      const { checker, record } = await recorded(
        (w) => {
          w.publish(JM, simDigest(`${JM}#2`));
          w.workload('requests-proxy').images.proxy = `docker.io/${JM}@${simDigest(`${JM}#2`)}`;
          w.setAnnotation(ANNOTATION.refreshAttempt, '2');
          w.setBehaviour('jobs-manager', 'neverReady');
        },
        { DECOUPLED_REFRESH: '1' },
      );
      const calls = [
        ...record.calls,
        call('writeRefreshAttempt', '3'),
        call('setImages', `requests-proxy proxy=docker.io/${JM}@${simDigest(`${JM}#2`)}`),
        call('waitForRollout', 'requests-proxy'),
        call('clearFlapState'),
      ];
      const after = { ...record.after, annotations: { ...record.after.annotations } };
      delete (after.annotations as Record<string, string>)[ANNOTATION.refreshAttempt];
      return { checker, record: { ...withCalls(record, calls), after } };
    },
  },
  {
    breaks: ['I19'],
    trace: 'a malformed digest in a pod spec',
    tampered: async () => {
      const { checker, record } = await recorded((w) => w.publish(JM, simDigest(`${JM}#2`)));
      const calls = record.calls.map((c) =>
        c.op === 'setImages' ? { ...c, detail: 'jobs-manager api=docker.io/tracebloc/jobs-manager@sha256:nope' } : c,
      );
      return { checker, record: withCalls(record, calls) };
    },
  },
  {
    breaks: ['I29'],
    trace: 'a failed rollout under revert that leaves the container on the bad digest',
    tampered: async () => {
      const bad = simDigest(`${JM}#2`);
      const { checker, record } = await recorded(
        (w) => {
          w.publish(JM, bad);
          w.breakBuild(bad);
        },
        { ON_ROLLOUT_FAILURE: 'revert' },
      );
      const gate = record.after.workloads['jobs-manager'];
      if (gate === undefined) throw new Error('setup: the chart has a jobs-manager workload');
      const after = {
        ...record.after,
        workloads: {
          ...record.after.workloads,
          'jobs-manager': { ...gate, images: { ...gate.images, api: `docker.io/${JM}@${bad}` } },
        },
      };
      return { checker, record: { ...record, after } };
    },
  },
  {
    breaks: ['I30'],
    trace: 'a set image onto the quarantined digest',
    tampered: async () => {
      const bad = simDigest(`${JM}#2`);
      const { checker, record } = await recorded(
        (w) => {
          w.publish(JM, bad);
          w.setAnnotation('tracebloc.io/quarantined-jobs-manager-digest', bad);
        },
        { ON_ROLLOUT_FAILURE: 'revert' },
      );
      const calls = [
        ...record.calls,
        call('writeRefreshAttempt', '1'),
        call('setImages', `jobs-manager api=docker.io/${JM}@${bad}`),
        call('waitForRollout', 'jobs-manager'),
      ];
      return { checker, record: withCalls(record, calls) };
    },
  },
  {
    breaks: ['I26', 'I27'],
    trace: 'an unsigned new digest re-imaged under VERIFY_SIGNATURES=enforce, after spending an attempt',
    tampered: async () => {
      const { checker, record } = await recorded((w) => w.publish(JM, simDigest(`${JM}#2`)), SIGNED);
      const calls = [
        ...record.calls,
        call('readRefreshAttempt'),
        call('writeRefreshAttempt', '1'),
        call('setImages', `jobs-manager api=docker.io/${JM}@${simDigest(`${JM}#2`)}`),
      ];
      return { checker, record: withCalls(record, calls) };
    },
  },
  {
    breaks: ['I31'],
    trace: 'a stability watch under keep and ROLLOUT_STABLE_FOR=0s',
    tampered: async () => {
      const { checker, record } = await recorded((w) => w.publish(JM, simDigest(`${JM}#2`)));
      const calls = record.calls.flatMap((c) =>
        c.op === 'waitForRollout' ? [c, call('watchStability', c.detail)] : [c],
      );
      return { checker, record: withCalls(record, calls) };
    },
  },
  {
    breaks: ['I27'],
    trace: 'an attempt spent on a digest whose signature fetch failed (VERIFY_SIGNATURES=warn)',
    tampered: async () => {
      const { checker, record } = await recorded(
        (w) => {
          w.publish(JM, simDigest(`${JM}#2`));
          w.injectSignatureFault(JM, 'Transport');
        },
        { ...SIGNED, VERIFY_SIGNATURES: 'warn' },
      );
      return { checker, record: withCalls(record, [...record.calls, call('writeRefreshAttempt', '1')]) };
    },
  },
  {
    breaks: ['I28'],
    trace: 'a signature request with VERIFY_SIGNATURES=off',
    tampered: async () => {
      const { checker, record } = await recorded((w) => w.publish(JM, simDigest(`${JM}#2`)));
      const calls = [call('verifySignature', `${JM}@${simDigest(`${JM}#2`)}`, 'Verified'), ...record.calls];
      return { checker, record: withCalls(record, calls) };
    },
  },
  {
    breaks: ['I35'],
    trace: "a HEAD of a fleet halt's tag, with FLEET_HALT_REF unset",
    tampered: async () => {
      const { checker, record } = await recorded((w) => w.publish(JM, simDigest(`${JM}#2`)));
      const calls = [...record.calls, call('resolveDigest', 'tracebloc/fleet-control', 'NotFound')];
      return { checker, record: withCalls(record, calls) };
    },
  },
  {
    breaks: ['I43'],
    trace: 'a staging pod and a manifest read with PLATFORM_CHECK and PREPULL off',
    tampered: async () => {
      const { checker, record } = await recorded((w) => w.publish(JM, simDigest(`${JM}#2`)));
      const image = `docker.io/${JM}@${simDigest(`${JM}#2`)}`;
      const calls = [call('stageImage', `jobs-manager edge-1 ${image}`, 'Staged'), ...record.calls];
      return { checker, record: withCalls(record, calls) };
    },
  },
  {
    breaks: ['I20'],
    trace: 'a replay of the same tick that came out differently',
    tampered: async () => {
      const { checker, record } = await recorded((w) => w.publish(JM, simDigest(`${JM}#2`)));
      return { checker, record, replay: withExit(record, 1) };
    },
  },
];

/** The shop (docs/profiles.md): web gates, log is its sidecar, worker runs the web image, agent is a DaemonSet. */
const WEB = 'shop/web';
/** The shop with its worker edited: not decoupled, or pinned by WORKER_PINNED. */
const shopWith = (worker: { readonly decoupled?: true; readonly pinnedBy?: string }): Profile => ({
  ...SHOP_PROFILE,
  workloads: SHOP_PROFILE.workloads.map((w) => {
    if (w.id !== 'worker') return w;
    const { decoupled: _decoupled, ...rest } = w;
    return { ...rest, ...worker };
  }),
});
const onTheShop = (setup: (world: SimWorld) => void, env: Environment = {}, profile: Profile = SHOP_PROFILE) =>
  recorded(setup, env, async () => undefined, profile);

/** Wrong traces on a profile's topology: each generalized invariant, judged by that topology's own pins and decoupling. */
const PROFILE_WRONG_TRACES: readonly WrongTrace[] = [
  {
    breaks: ['I16'],
    trace: "the shop's worker on a digest other than the web gate's, in one tick",
    tampered: async () => {
      const { checker, record } = await onTheShop((w) => w.publish(WEB, simDigest(`${WEB}#2`)));
      const calls = record.calls.map((c) =>
        c.op === 'setImages' && c.detail.startsWith('worker ')
          ? { ...c, detail: `worker worker=docker.io/${WEB}@${simDigest('other')}` }
          : c,
      );
      return { checker, record: withCalls(record, calls) };
    },
  },
  {
    breaks: ['I16'],
    trace: "the web gate's two containers in two patches",
    tampered: async () => {
      const { checker, record } = await onTheShop((w) => {
        w.publish(WEB, simDigest(`${WEB}#2`));
        w.publish('shop/log', simDigest('shop/log#2'));
      });
      const calls = record.calls.flatMap((c) =>
        c.op === 'setImages' && c.detail.startsWith('web ')
          ? c.detail
              .split(' ')
              .slice(1)
              .map((pair) => ({ ...c, detail: `web ${pair}` }))
          : [c],
      );
      return { checker, record: withCalls(record, calls) };
    },
  },
  {
    breaks: ['I13'],
    trace: 'a re-image of a workload pinned on its own (WORKER_PINNED=1)',
    tampered: async () => {
      const { checker, record } = await onTheShop(
        (w) => w.publish(WEB, simDigest(`${WEB}#2`)),
        { WORKER_PINNED: '1' },
        shopWith({ pinnedBy: 'WORKER_PINNED', decoupled: true }),
      );
      const calls = [
        ...record.calls,
        call('setImages', `worker worker=docker.io/${WEB}@${simDigest(`${WEB}#2`)}`),
        call('waitForRollout', 'worker'),
      ];
      return { checker, record: withCalls(record, calls) };
    },
  },
  {
    breaks: ['I13'],
    trace: 'a pinned image re-imaged in a workload other than the gate (WEB_PINNED=1)',
    tampered: async () => {
      const { checker, record } = await onTheShop((w) => w.publish(WEB, simDigest(`${WEB}#2`)), {
        WEB_PINNED: '1',
      });
      const calls = [...record.calls, call('setImages', `worker worker=docker.io/${WEB}@${simDigest(`${WEB}#2`)}`)];
      return { checker, record: withCalls(record, calls) };
    },
  },
  {
    breaks: ['I22'],
    trace: "the web gate's log sidecar re-imaged past the unsettled gate (DECOUPLED_REFRESH=1)",
    tampered: async () => {
      const { checker, record } = await onTheShop((w) => w.setBehaviour('web', 'neverReady'), {
        DECOUPLED_REFRESH: '1',
      });
      const calls = [...record.calls, call('setImages', `web log=docker.io/shop/log@${simDigest('shop/log#2')}`)];
      return { checker, record: withCalls(record, calls) };
    },
  },
  {
    breaks: ['I24'],
    trace: 'a workload that is not decoupled re-imaged past the unsettled gate (DECOUPLED_REFRESH=1)',
    tampered: async () => {
      const { checker, record } = await onTheShop(
        (w) => {
          w.publish(WEB, simDigest(`${WEB}#2`));
          w.setBehaviour('web', 'neverReady');
        },
        { DECOUPLED_REFRESH: '1' },
        shopWith({}),
      );
      const calls = [
        ...record.calls,
        call('writeRefreshAttempt', '1'),
        call('setImages', `worker worker=docker.io/${WEB}@${simDigest(`${WEB}#2`)}`),
        call('waitForRollout', 'worker'),
      ];
      return { checker, record: withCalls(record, calls) };
    },
  },
  {
    breaks: ['I25'],
    trace: 'a decoupled pass that patched the worker onto the web digest it already runs, which the pass cannot record',
    tampered: async () => {
      const { checker, record } = await onTheShop(
        (w) => {
          w.publish(WEB, simDigest(`${WEB}#2`));
          w.workload('worker').images.worker = `docker.io/${WEB}@${simDigest(`${WEB}#2`)}`;
          w.setBehaviour('web', 'neverReady');
        },
        { DECOUPLED_REFRESH: '1' },
      );
      const calls = [
        ...record.calls,
        call('writeRefreshAttempt', '1'),
        call('setImages', `worker worker=docker.io/${WEB}@${simDigest(`${WEB}#2`)}`),
        call('waitForRollout', 'worker'),
      ];
      return { checker, record: withCalls(record, calls) };
    },
  },
];

describe('the invariant checker', () => {
  it('accepts the real, correct tick the wrong traces are tampered from', async () => {
    const { checker, record } = await recorded((w) => w.publish(JM, simDigest(`${JM}#2`)));
    expect(checker.check(record)).toEqual([]);
  });

  for (const wrong of WRONG_TRACES) {
    it(`rejects ${wrong.trace}, naming ${wrong.breaks.join(', ')}`, async () => {
      const { checker, record, replay } = await wrong.tampered();
      expect(ids(checker, record, replay)).toEqual(expect.arrayContaining([...wrong.breaks]));
    });
  }

  it("accepts the real, correct tick of a profile's topology", async () => {
    const { checker, record } = await onTheShop((w) => {
      w.publish(WEB, simDigest(`${WEB}#2`));
      w.publish('shop/agent', simDigest('shop/agent#2'));
    });
    expect(record.calls.filter((c) => c.op === 'setImages').map((c) => c.detail.split(' ')[0])).toEqual([
      'web',
      'worker',
      'agent',
    ]);
    expect(checker.check(record)).toEqual([]);
  });

  for (const wrong of PROFILE_WRONG_TRACES) {
    it(`rejects ${wrong.trace}, naming ${wrong.breaks.join(', ')}`, async () => {
      const { checker, record, replay } = await wrong.tampered();
      expect(ids(checker, record, replay)).toEqual(expect.arrayContaining([...wrong.breaks]));
    });
  }

  it('has a rejected wrong trace for every invariant of the suite', () => {
    const covered = new Set(WRONG_TRACES.flatMap((w) => w.breaks));
    expect(INVARIANTS.map((i) => i.id).filter((id) => !covered.has(id))).toEqual([]);
  });
});
