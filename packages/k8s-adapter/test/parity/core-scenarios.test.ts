import { runTick, type WorkloadRef } from '@image-refresh/core';
import { SCENARIOS, type Scenario, SimWorld, simConfig, simPorts } from '@image-refresh/core/sim';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RecordedRequest } from '../support/fake-api-server.js';
import { armedInSim, type Injected, noteInjected, simKubeEvents, simState, tickView } from './support/compare.js';
import { EXTRA_STORIES } from './support/extra-stories.js';
import {
  type ParityRegistry,
  REGISTRY_SETUP_TIMEOUT_MS,
  registryBinaryMissing,
  startParityRegistry,
} from './support/parity-registry.js';
import { RealStack } from './support/real-stack.js';
import { recordingWorld } from './support/recording-world.js';

// Parity: every named story of core's simulator (SCENARIOS, the ones
// `image-refresh simulate` tells), replayed tick by tick on (a) a SimWorld
// with simPorts and (b) the real adapters against the fake API server and a
// real docker-registry. The world events are the scenario's own code, run on
// a recording SimWorld and translated (support/real-stack.ts), so a story
// edited in core is replayed here as edited, and a world event the real
// stack cannot stage fails this file instead of passing as parity. Each story
// runs on the topology of its profile (docs/profiles.md; none: the chart's),
// on the simulator and on a fake cluster seeded with that topology alike.
//
// Per tick: result, exit code, settledness, event codes in order, findings,
// the successful writes with their values, the re-images with their images
// and rollout result, the drift acted on, which staged faults the tick met,
// and afterwards the bookkeeping annotations, every workload's images and
// the Kubernetes Events recorded (type, reason, count).
// Digests are compared exactly through the sim → registry map (see
// real-stack.ts).
//
// Mutations of the adapter's src that redden it, each run by hand in a
// private copy of the tree (never in the shared one), then discarded:
// a rollout wait whose window closes counted as success (flapping-readiness,
// stalled-rollout, daemonset-never-ready); status.replicas read as
// updatedReplicas (never-ready: old pods no longer keep it unsettled); the
// OCI manifest type dropped from Accept (every story); a repeated Event's
// count not incremented (4 stories); a single-digest record skipped (8);
// set image as a JSON merge patch instead of a strategic one (7); the batch
// token asked for the first scope only (every story); the success reset
// leaving refresh-flap-detected (rearm-by-attempt-only alone — core's
// flapping story has the human clear both annotations, so it cannot see it).

/** The annotation changes of every merge patch of the gate (the bookkeeping's object) the server accepted. */
const acceptedBookkeepingPatches = (requests: readonly RecordedRequest[], gate: WorkloadRef) =>
  requests
    .filter(
      (r) =>
        r.route === 'patch' &&
        r.kind === gate.kind &&
        r.name === gate.name &&
        r.contentType === 'application/merge-patch+json' &&
        r.fault === undefined &&
        r.status !== undefined &&
        r.status >= 200 &&
        r.status < 300,
    )
    .map(
      (r) => (JSON.parse(r.body) as { metadata: { annotations: Record<string, string | null> } }).metadata.annotations,
    );

// Small bounds: a hung request, an unsettled guard and a failed rollout each
// cost exactly one of them on the real stack.
const BOUNDS = { API_TIMEOUT: '1s', SETTLE_TIMEOUT: '300ms', ROLLOUT_TIMEOUT: '1s', REGISTRY_TIMEOUT: '1s' } as const;

// The default reporter folds a skipped file into one line: say why on stderr too.
if (registryBinaryMissing !== undefined) console.warn(`SKIPPED ${import.meta.url}: ${registryBinaryMissing}`);

describe.skipIf(registryBinaryMissing !== undefined)(
  `core's scenarios on the simulator and on the real adapters${registryBinaryMissing === undefined ? '' : ` (skipped: ${registryBinaryMissing})`}`,
  () => {
    let registry: ParityRegistry;
    beforeAll(async () => {
      registry = await startParityRegistry();
    }, REGISTRY_SETUP_TIMEOUT_MS);
    afterAll(async () => {
      await registry?.close();
    });

    const replay = async (scenario: Scenario) => {
      const config = simConfig(
        { ...scenario.env, ...BOUNDS, IMAGE_REFRESH_REGISTRY_URL: registry.url },
        scenario.profile,
      );
      const sim = new SimWorld(config);
      const ports = simPorts(sim);
      // Build 1 of every image, under the tag it follows, as the SimWorld publishes it when created.
      const firstBuilds = new Map(
        config.topology.images.flatMap(({ repo, tag }) => {
          const digest = sim.registry.get(`${repo}:${tag}`);
          return digest === undefined ? [] : [[repo, digest] as const];
        }),
      );
      const real = await RealStack.start({ config, registry, pollIntervalMs: 25, stepMs: 15 }, firstBuilds);
      const injected: Injected = { ops: new Set(), repos: new Set() };
      try {
        for (const [index, step] of scenario.steps.entries()) {
          const label = `${scenario.name} tick ${index + 1} (${step.event})`;
          const { world, calls } = recordingWorld(sim);
          step.act?.(world);
          noteInjected(injected, calls);
          for (const call of calls) await real.apply(call);

          const armedBefore = armedInSim(sim, injected);
          const expected = await runTick(config, ports);
          const metInSim = armedBefore.filter((fault) => !armedInSim(sim, injected).includes(fault));
          const actual = await real.tick();

          expect(tickView(actual.outcome), label).toEqual(real.translate(tickView(expected)));
          // The writes an outcome reports are the patches the API
          // server accepted, change for change and in order — not the machine's
          // own account of what it meant to write.
          expect(
            actual.outcome.writes.map((w) => w.annotations),
            `${label}: reported writes vs bookkeeping PATCHes received`,
          ).toEqual(acceptedBookkeepingPatches(actual.apiRequests, config.topology.gate));
          expect([...actual.faultsMet].sort(), label).toEqual(metInSim.sort());
          expect(real.state(), label).toEqual(real.translate(simState(sim)));
          expect(real.kubeEvents(), label).toEqual(simKubeEvents(sim));
          // Every request was one the fake models, with the kubeconfig's token.
          expect(
            actual.apiRequests.filter((r) => r.route === 'unexpected' || r.auth !== 'token').map((r) => r.path),
            label,
          ).toEqual([]);
          expect(
            actual.registryRequests.filter((r) => !r.startsWith('HEAD /v2/')),
            label,
          ).toEqual([]);
        }
      } finally {
        await real.close();
      }
    };

    // A story of several edges on a driven clock (canary-ring) is
    // the simulator's alone: the real stack is one cluster on real time. Its
    // parts are told on the real adapters by the CLI's e2e (fleet-safe.test.ts).
    // A story whose images live off Docker Hub or are pulled through a mirror
    // is the simulator's too: the parity registry stands in for Docker Hub
    // alone. The CLI's e2e tells those on real registries (own-registries.test.ts,
    // mirror.test.ts, private-registry.test.ts).
    const onDockerHubAlone = (s: Scenario): boolean => {
      const config = simConfig(s.env ?? {}, s.profile);
      return config.mirror?.followUpstream !== true && config.topology.images.every((i) => i.host === 'docker.io');
    };
    // A story of maintenance windows (night-window) jumps the clock by hours between ticks: the
    // simulator's too. The CLI's e2e tells a window on the real adapters and the process's own clock
    // (maintenance-window.test.ts).
    const onRealTime = (s: Scenario): boolean => s.env?.MAINTENANCE_WINDOW === undefined;
    for (const scenario of SCENARIOS.filter((s) => s.edges === undefined && onDockerHubAlone(s) && onRealTime(s))) {
      it(`${scenario.name}: ${scenario.summary}`, () => replay(scenario), 30_000);
    }
    for (const story of EXTRA_STORIES) {
      it(`(beyond core's scenarios) ${story.name}: ${story.summary}`, () => replay(story), 30_000);
    }
  },
);
