import { topologyFingerprint } from '../../domain/topology-fingerprint.js';
import { outcome, withPortError, write, written } from '../step-params.js';
import { tickSetup } from '../tick-setup.js';
import { ownedWorkloadsRead } from './inputs.js';

// Phase 3c, ownership (docs/behaviour.md §3.4c): before anything is set or
// recorded, every container the plan stakes must run the image it follows.
// Entered only with OWNERSHIP_CHECK on and something staked — from the flap
// back-off once the lockout is decided (a locked-out tick writes nothing but
// its marker), or from comparingDigests for a plan that only records — so a
// steady tick never comes here, and a refusal spends no attempt. Its steps.

/** Past the check, the plan goes on as comparingDigests would have sent it. */
const goingOnAsPlanned = [
  { guard: 'hasWorkloadsToReimage', target: '#tick.flapBackoff.checkingRegistryBudget' },
  { guard: 'hasDigestsToRecord', target: '#tick.recordingDigests' },
  { target: '#tick.complete' },
] as const;

export const checkingOwnership = tickSetup.createStateConfig({
  initial: 'readingOwnedWorkloads',
  entry: 'findWorkloadsToCheck',
  states: {
    // What this tick has not read yet, all of it in one call, each workload at
    // once (README.md, Benchmarks); with nothing left to read (the gate's own
    // containers, or workloads a pass read) the call asks for nothing and
    // makes no request.
    readingOwnedWorkloads: {
      invoke: {
        src: 'observeOwnedWorkloads',
        input: ownedWorkloadsRead,
        onDone: {
          target: 'judgingOwnership',
          actions: { type: 'rememberOwnedWorkloads', params: ({ event }) => ({ answers: event.output }) },
        },
        // Fail closed: what cannot be checked is not set.
        onError: {
          target: 'judgingOwnership',
          actions: { type: 'rememberOwnedWorkloadsUnread', params: withPortError },
        },
      },
    },
    judgingOwnership: {
      entry: 'judgeOwnership',
      always: [
        // Fail closed: what cannot be checked is not set.
        { guard: 'hasUnreadOwnedWorkloads', target: '#tick.ownershipUnchecked', actions: 'reportOwnershipUnchecked' },
        { guard: 'hasForeignContainers', target: '#tick.foreignImage' },
        { guard: 'hasTopologyFingerprintToRecord', target: 'recordingTopologyFingerprint' },
        ...goingOnAsPlanned,
      ],
    },
    // What was found true is remembered: the next tick on this topology checks nothing more.
    // Best effort: unwritten, the next tick checks again.
    recordingTopologyFingerprint: {
      invoke: {
        src: 'patchBookkeeping',
        input: ({ context }) =>
          write('recordTopologyFingerprint', {
            [context.config.topology.keys.topologyFingerprint]: topologyFingerprint(context.config.topology),
          }),
        onDone: {
          target: 'goingOn',
          actions: [{ type: 'noteWrite', params: written }, 'announceTopologyChecked'],
        },
        onError: {
          target: 'goingOn',
          actions: { type: 'warnTopologyFingerprintUnwritten', params: withPortError },
        },
      },
    },
    goingOn: { always: [...goingOnAsPlanned] },
  },
});

// How the phase can end the tick.
export const foreignImage = tickSetup.createStateConfig({ type: 'final', output: outcome('foreignImage') });

export const ownershipUnchecked = tickSetup.createStateConfig({
  type: 'final',
  output: outcome('ownershipUnchecked'),
});

/** The phase's steps, in the order the tick takes them. */
export const ownershipSteps = { checkingOwnership };

/** The final states the phase ends a tick in. */
export const ownershipEnds = { foreignImage, ownershipUnchecked };
