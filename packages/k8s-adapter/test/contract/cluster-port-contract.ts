import {
  recordChanges,
  recordedDigestsOf,
  refreshAttemptOf,
  refreshAttemptSet,
  skipStreakOf,
  skipStreakRemoved,
  skipStreakSet,
} from '@image-refresh/core';
import * as O from 'fp-ts/lib/Option.js';
import { afterEach, describe, expect, it } from 'vitest';
import { CHART_TOPOLOGY, chartNamesOf, workloadRef } from '../../../core/test/support/chart.js';
import { createClusterPort, inspectWorkload } from '../../src/cluster/index.js';
import { createEventsPort, eventName, REPORTING_CONTROLLER } from '../../src/events/index.js';
import { bookkeepingRead, FAST, guardRead, left, right, run, TIMING_SLACK_MS } from '../cluster/cluster-test-kit.js';
import type { JsonObject } from '../support/fake-api-patch.js';
import type { RecordedRequest } from '../support/fake-api-server.js';
import { neverReadyDigest } from '../support/never-ready-build.js';
import type { PortWorld, StartWorld, WorldOptions } from './port-world.js';

// The adapter's port contract: what createClusterPort and createEventsPort
// do, told in a world both test servers can stage (port-world.ts), so the
// same cases run on the fake API server (on-fake-api-server.test.ts, fast,
// every run) and on the real kube-apiserver with the real Deployment and
// DaemonSet controllers, kwok's pods and the shipped RBAC
// (test/real-cluster/cluster-port-contract.test.ts). Where the two servers
// ever disagreed, the case says so; where a case needs what only the fake
// can stage (a status set by hand, a fault inside a settle window), it lives
// in test/cluster/ and runs on the fake alone.

const STREAK = 'tracebloc.io/refresh-skip-streak';
const ATTEMPT = 'tracebloc.io/refresh-attempt';
const RECORD_JM = 'tracebloc.io/last-refreshed-jobs-manager-digest';
const RECORD_PM = 'tracebloc.io/last-refreshed-pods-monitor-digest';
const D1 = `sha256:${'1'.repeat(64)}`;
const D2 = `sha256:${'2'.repeat(64)}`;
const JOBS_MANAGER = 'stg-jobs-manager';
const REQUESTS_PROXY = 'stg-requests-proxy';
const RESOURCE_MONITOR = 'stg-resource-monitor';

const annotationsOf = (object: JsonObject): Record<string, string> =>
  ((object.metadata as JsonObject).annotations ?? {}) as Record<string, string>;
const generationOf = (object: JsonObject): number => Number((object.metadata as JsonObject).generation);
const imagesOf = (object: JsonObject): Record<string, string> =>
  Object.fromEntries(
    ((((object.spec as JsonObject).template as JsonObject).spec as JsonObject).containers as JsonObject[]).map(
      (c) => [String(c.name), String(c.image)] as const,
    ),
  );

/** What the code under test asked of the server, as `METHOD route kind/name`. */
const calls = (requests: readonly RecordedRequest[]): string[] =>
  requests.map((r) => `${r.method} ${r.route} ${r.kind ?? ''}/${r.name ?? ''}`);
const patches = (world: PortWorld) => world.requests().filter((r) => r.route === 'patch');
const eventTraffic = (world: PortWorld): string[] =>
  world
    .requests()
    .filter((r) => r.route === 'event')
    .map((r) => `${r.method} ${r.status}`);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `read` until `ok`, for the controllers' asynchronous work. */
const eventually = async (what: string, read: () => Promise<boolean>, withinMs = 20_000): Promise<void> => {
  const deadline = Date.now() + withinMs;
  while (!(await read())) {
    if (Date.now() > deadline) throw new Error(`not within ${withinMs} ms: ${what}`);
    await sleep(50);
  }
};

const progressDeadlineExceeded = (object: JsonObject): boolean =>
  (((object.status as JsonObject | undefined)?.conditions ?? []) as JsonObject[]).some(
    (c) => c.type === 'Progressing' && c.reason === 'ProgressDeadlineExceeded',
  );

export const describeClusterPortContract = (startWorld: StartWorld, server: string): void => {
  let world: PortWorld | undefined;
  afterEach(async () => {
    const w = world;
    world = undefined;
    await w?.close();
  });
  const start = async (options: WorldOptions = {}): Promise<PortWorld> => {
    world = await startWorld(options);
    return world;
  };
  const portOn = (w: PortWorld, overrides: Readonly<Record<string, string>> = {}) =>
    createClusterPort(w.kubeConfig(), w.config(overrides), FAST);
  const refs = (w: PortWorld) => ({
    jobsManager: workloadRef(w.config(), 'jobs-manager'),
    requestsProxy: workloadRef(w.config(), 'requests-proxy'),
    resourceMonitor: workloadRef(w.config(), 'resource-monitor'),
  });

  describe(`the cluster port's reads on ${server}`, () => {
    it('costs a steady tick exactly one request: observe, then read streak, attempt and digests', async () => {
      const w = await start({ annotations: { [RECORD_JM]: D1 } });
      const port = portOn(w);
      expect(right(await run(guardRead(port)))._tag).toBe('Settled');
      expect(right(await run(bookkeepingRead(port, (a) => skipStreakOf(CHART_TOPOLOGY, a))))).toEqual(O.none);
      expect(right(await run(bookkeepingRead(port, (a) => refreshAttemptOf(CHART_TOPOLOGY, a))))).toEqual(O.none);
      const recorded = right(await run(bookkeepingRead(port, (a) => recordedDigestsOf(CHART_TOPOLOGY, a))));
      expect(recorded['jobs-manager']).toEqual(O.some(D1));
      expect(recorded['pods-monitor']).toEqual(O.none);
      expect(calls(w.requests())).toEqual([`GET get Deployment/${JOBS_MANAGER}`]);
    });

    it('reads the bookkeeping annotations as they are on the Deployment, garbage included', async () => {
      const w = await start({ annotations: { [STREAK]: '4', [ATTEMPT]: 'garbage' } });
      const port = portOn(w);
      await run(guardRead(port));
      expect(right(await run(bookkeepingRead(port, (a) => skipStreakOf(CHART_TOPOLOGY, a))))).toEqual(O.some('4'));
      expect(right(await run(bookkeepingRead(port, (a) => refreshAttemptOf(CHART_TOPOLOGY, a))))).toEqual(
        O.some('garbage'),
      );
    });

    it('is Left NotFound, naming the object, when the Deployment does not exist (#571), after one request', async () => {
      const w = await start({ withoutJobsManager: true });
      const error = left(await run(guardRead(portOn(w))));
      expect(error).toMatchObject({ _tag: 'NotFound', status: 404 });
      expect(error.message).toContain(`deployments.apps "${JOBS_MANAGER}" not found`);
      expect(w.requests()).toHaveLength(1);
    });

    it('answers Waiting, with numbers, while a rollout of a never-ready build keeps the old pod', async () => {
      const w = await start();
      await w.humanSetsImage('jobs-manager', 'api', `docker.io/tracebloc/jobs-manager@${neverReadyDigest()}`);
      // The controller first creates the new ReplicaSet: wait until its status says the new pod is not Ready.
      await eventually('the new pod up and unready', async () => {
        const status = (await w.workload('jobs-manager')).status as JsonObject;
        return status.observedGeneration === 2 && status.updatedReplicas === 1 && status.replicas === 2;
      });
      const settledness = right(await run(guardRead(portOn(w, { SETTLE_TIMEOUT: '300ms' }), 300)));
      expect(settledness).toEqual({
        _tag: 'Waiting',
        reason: `Waiting for deployment "${JOBS_MANAGER}" rollout to finish: 1 old replicas are pending termination...`,
      });
    });

    it('answers Failed at once for a Deployment past its progress deadline, without waiting the window out', async () => {
      const w = await start({ progressDeadlineSeconds: 1 });
      await w.humanSetsImage('jobs-manager', 'api', `docker.io/tracebloc/jobs-manager@${neverReadyDigest()}`);
      await eventually('ProgressDeadlineExceeded', async () =>
        progressDeadlineExceeded(await w.workload('jobs-manager')),
      );
      w.resetLog();
      const began = Date.now();
      expect(right(await run(guardRead(portOn(w, { SETTLE_TIMEOUT: '5s' }), 5_000)))).toEqual({
        _tag: 'Failed',
        reason: `deployment "${JOBS_MANAGER}" exceeded its progress deadline`,
      });
      expect(Date.now() - began).toBeLessThan(2_000);
      expect(w.requests()).toHaveLength(1);
    });

    it('inspectWorkload reads a DaemonSet, and an OnDelete one is Failed, never settled', async () => {
      const w = await start({ daemonSetStrategy: 'OnDelete' });
      const snapshot = right(
        await run(inspectWorkload(w.kubeConfig(), refs(w).resourceMonitor, { apiTimeoutMs: w.config().apiTimeoutMs })),
      );
      expect(snapshot.settledness._tag).toBe('Failed');
      expect(snapshot.images).toEqual({ 'tracebloc-resource-monitor': 'docker.io/tracebloc/resource-monitor:stg' });
    });
  });

  describe(`the cluster port's writes on ${server}`, () => {
    it('writes the skip streak as a merge patch of that one annotation, as field manager image-refresh: no rollout', async () => {
      const w = await start({ annotations: { [ATTEMPT]: '1' } });
      const before = await w.workload('jobs-manager');
      right(await run(portOn(w).patchBookkeeping(skipStreakSet(CHART_TOPOLOGY, 3))));
      const after = await w.workload('jobs-manager');
      expect(annotationsOf(after)).toMatchObject({ [STREAK]: '3', [ATTEMPT]: '1' });
      // The real apiserver bumps a Deployment's generation for an annotation change (its strategy copies
      // annotations to the ReplicaSets); the fake once did not. No rollout: the template is untouched, and
      // the controller observes the new generation with nothing to roll.
      expect(generationOf(after)).toBe(2);
      expect((after.spec as JsonObject).template).toEqual((before.spec as JsonObject).template);
      await eventually('the controller observes the annotation generation', async () => {
        const status = (await w.workload('jobs-manager')).status as JsonObject;
        return status.observedGeneration === 2 && status.availableReplicas === 1 && status.updatedReplicas === 1;
      });
      const [patch] = patches(w);
      expect(patch?.contentType).toBe('application/merge-patch+json');
      expect(patch?.query.fieldManager).toBe('image-refresh');
      expect(JSON.parse(patch?.body ?? '')).toEqual({ metadata: { annotations: { [STREAK]: '3' } } });
      expect(patch?.status).toBe(200);
    });

    it('removes an annotation with null, leaving every other one, and records digests in one write', async () => {
      const w = await start({ annotations: { [STREAK]: '5', [RECORD_JM]: D1 } });
      const port = portOn(w);
      right(await run(port.patchBookkeeping(skipStreakRemoved(CHART_TOPOLOGY))));
      right(
        await run(port.patchBookkeeping(recordChanges(CHART_TOPOLOGY, { 'jobs-manager': D2, 'pods-monitor': D1 }, {}))),
      );
      const annotations = annotationsOf(await w.workload('jobs-manager'));
      expect(annotations).not.toHaveProperty(STREAK);
      expect(annotations).toMatchObject({ [RECORD_JM]: D2, [RECORD_PM]: D1 });
      expect(patches(w)).toHaveLength(2);
    });

    it("a human's annotation made after the tick read the Deployment survives the tick's write, and the tick's lands: no precondition, no conflict", async () => {
      const w = await start();
      const port = portOn(w);
      right(await run(guardRead(port)));
      await w.humanAnnotates('example.com/owner', 'team-edge');
      right(await run(port.patchBookkeeping(skipStreakSet(CHART_TOPOLOGY, 1))));
      expect(annotationsOf(await w.workload('jobs-manager'))).toMatchObject({
        'example.com/owner': 'team-edge',
        [STREAK]: '1',
      });
      expect(JSON.parse(patches(w)[0]?.body ?? '{}')).not.toHaveProperty('metadata.resourceVersion');
    });

    it('reads back what it wrote from the PATCH answer, without another request', async () => {
      const w = await start();
      const port = portOn(w);
      right(await run(guardRead(port)));
      right(await run(port.patchBookkeeping(refreshAttemptSet(CHART_TOPOLOGY, 1))));
      expect(right(await run(bookkeepingRead(port, (a) => refreshAttemptOf(CHART_TOPOLOGY, a))))).toEqual(O.some('1'));
      expect(calls(w.requests())).toEqual([
        `GET get Deployment/${JOBS_MANAGER}`,
        `PATCH patch Deployment/${JOBS_MANAGER}`,
      ]);
    });

    it('changes both jobs-manager containers in ONE strategic merge patch (I16), leaving the rest of each container', async () => {
      const w = await start();
      const api = `docker.io/tracebloc/jobs-manager@${D1}`;
      const monitor = `docker.io/tracebloc/pods-monitor@${D2}`;
      right(
        await run(
          portOn(w).setImages(refs(w).jobsManager, [
            { container: 'api', image: api },
            { container: 'pods-monitor-container', image: monitor },
          ]),
        ),
      );
      const after = await w.workload('jobs-manager');
      expect(imagesOf(after)).toEqual({ api, 'pods-monitor-container': monitor });
      expect(generationOf(after)).toBe(2);
      const containers = (((after.spec as JsonObject).template as JsonObject).spec as JsonObject)
        .containers as JsonObject[];
      expect(containers.map((x) => x.imagePullPolicy)).toEqual(['IfNotPresent', 'IfNotPresent']);
      const [patch] = patches(w);
      expect(patches(w)).toHaveLength(1);
      expect(patch?.contentType).toBe('application/strategic-merge-patch+json');
      expect(patch?.query.fieldManager).toBe('image-refresh');
    });

    it('sends no patch for a workload already on target, and says it changed nothing', async () => {
      const w = await start();
      const port = portOn(w);
      const proxy = `docker.io/tracebloc/jobs-manager@${D1}`;
      expect(right(await run(port.setImages(refs(w).requestsProxy, [{ container: 'proxy', image: proxy }])))).toEqual({
        changed: true,
      });
      expect(right(await run(port.setImages(refs(w).requestsProxy, [{ container: 'proxy', image: proxy }])))).toEqual({
        changed: false,
      });
      expect(patches(w).filter((p) => p.name === REQUESTS_PROXY)).toHaveLength(1);
      expect(generationOf(await w.workload('requests-proxy'))).toBe(2);
    });

    it('patches the DaemonSet in the node-agents namespace, and its managedFields say image-refresh set the image', async () => {
      const w = await start();
      const monitor = `docker.io/tracebloc/resource-monitor@${D2}`;
      right(
        await run(
          portOn(w).setImages(refs(w).resourceMonitor, [{ container: 'tracebloc-resource-monitor', image: monitor }]),
        ),
      );
      expect(imagesOf(await w.workload('resource-monitor'))).toEqual({ 'tracebloc-resource-monitor': monitor });
      expect(patches(w).map((p) => [p.kind, p.namespace, p.name])).toEqual([
        ['DaemonSet', chartNamesOf(w.config()).nodeAgentsNamespace, RESOURCE_MONITOR],
      ]);
      const snapshot = right(
        await run(inspectWorkload(w.kubeConfig(), refs(w).resourceMonitor, { apiTimeoutMs: w.config().apiTimeoutMs })),
      );
      // The image field moved from its creator (helm) to image-refresh: only one manager owns it now.
      const owners = snapshot.containerOwners.filter((o) => o.imagesOf.includes('tracebloc-resource-monitor'));
      expect(owners.map((o) => [o.manager, o.operation])).toEqual([['image-refresh', 'Update']]);
    });

    it('refuses to add a container the workload does not have, sending no patch', async () => {
      const w = await start();
      const error = left(
        await run(
          portOn(w).setImages(refs(w).requestsProxy, [{ container: 'renamed-proxy', image: `docker.io/x@${D1}` }]),
        ),
      );
      expect(error._tag).toBe('NotFound');
      expect(error.message).toContain('has no container "renamed-proxy" (it has proxy)');
      expect(patches(w)).toEqual([]);
    });

    it('fails a write RBAC refuses, Forbidden with the apiserver words naming the verb and the resource (docs/behaviour.md §3.5)', async () => {
      const w = await start({ refuse: [{ resource: 'deployments', verb: 'patch' }] });
      const error = left(await run(portOn(w).patchBookkeeping(refreshAttemptSet(CHART_TOPOLOGY, 1))));
      expect(error).toMatchObject({ _tag: 'Forbidden', status: 403 });
      expect(error.message).toContain('cannot patch resource "deployments" in API group "apps"');
      expect(annotationsOf(await w.workload('jobs-manager'))).not.toHaveProperty(ATTEMPT);
    });
  });

  describe(`the cluster port's rollout waits on ${server}`, () => {
    it('returns once a re-imaged Deployment has rolled out: observed, updated, available', async () => {
      const w = await start();
      const port = portOn(w);
      right(await run(port.setImages(refs(w).jobsManager, [{ container: 'api', image: `docker.io/x@${D1}` }])));
      right(await run(port.waitForRollout(refs(w).jobsManager, 20_000)));
      const status = (await w.workload('jobs-manager')).status as JsonObject;
      expect(status).toMatchObject({ observedGeneration: 2, updatedReplicas: 1, availableReplicas: 1 });
    });

    it('returns at once for a workload already settled, after one read', async () => {
      const w = await start();
      right(await run(portOn(w).waitForRollout(refs(w).requestsProxy, 5_000)));
      expect(calls(w.requests())).toEqual([`GET get Deployment/${REQUESTS_PROXY}`]);
    });

    it('follows a DaemonSet rollout in the node-agents namespace to the end, every node updated and available', async () => {
      const w = await start();
      const port = portOn(w);
      right(
        await run(
          port.setImages(refs(w).resourceMonitor, [
            { container: 'tracebloc-resource-monitor', image: `docker.io/x@${D1}` },
          ]),
        ),
      );
      right(await run(port.waitForRollout(refs(w).resourceMonitor, 20_000)));
      const status = (await w.workload('resource-monitor')).status as JsonObject;
      expect(status.updatedNumberScheduled).toBe(status.desiredNumberScheduled);
      expect(status.numberAvailable).toBe(status.desiredNumberScheduled);
      expect(w.requests().every((r) => r.namespace === chartNamesOf(w.config()).nodeAgentsNamespace)).toBe(true);
    });

    it('times out a build that never becomes Ready at ROLLOUT_TIMEOUT, naming the old replica it keeps', async () => {
      const w = await start();
      const port = portOn(w);
      right(
        await run(
          port.setImages(refs(w).jobsManager, [{ container: 'api', image: `docker.io/x@${neverReadyDigest()}` }]),
        ),
      );
      const began = Date.now();
      const error = left(await run(port.waitForRollout(refs(w).jobsManager, 1_500)));
      const took = Date.now() - began;
      expect(error._tag).toBe('RolloutTimedOut');
      expect(error.message).toContain(`deployment/${JOBS_MANAGER} did not finish rolling out within 1.5s`);
      expect(error.message).toContain('1 old replicas are pending termination');
      expect(took).toBeGreaterThanOrEqual(1_500);
      expect(took).toBeLessThan(1_500 + w.config().apiTimeoutMs + TIMING_SLACK_MS);
    });

    it('fails a Deployment past its progress deadline as RolloutFailed, before ROLLOUT_TIMEOUT', async () => {
      const w = await start({ progressDeadlineSeconds: 2 });
      const port = portOn(w);
      right(
        await run(
          port.setImages(refs(w).jobsManager, [{ container: 'api', image: `docker.io/x@${neverReadyDigest()}` }]),
        ),
      );
      const began = Date.now();
      const error = left(await run(port.waitForRollout(refs(w).jobsManager, 30_000)));
      expect(error).toEqual({
        _tag: 'RolloutFailed',
        message: `deployment "${JOBS_MANAGER}" exceeded its progress deadline`,
      });
      // The controller checks the deadline on its own resync: seconds past it, never ROLLOUT_TIMEOUT.
      expect(Date.now() - began).toBeLessThan(20_000);
    });

    it('fails an OnDelete DaemonSet as RolloutFailed: its pods change only when someone deletes them', async () => {
      const w = await start({ daemonSetStrategy: 'OnDelete' });
      const error = left(await run(portOn(w).waitForRollout(refs(w).resourceMonitor, 10_000)));
      expect(error._tag).toBe('RolloutFailed');
      expect(error.message).toContain(`daemon set "${RESOURCE_MONITOR}" uses the OnDelete update strategy`);
      expect(w.requests()).toHaveLength(1);
    });
  });

  describe(`the Events port on ${server}`, () => {
    /** image-refresh's Events: a real cluster's controllers record their own beside them (ScalingReplicaSet, Scheduled…). */
    const ours = async (w: PortWorld): Promise<JsonObject[]> =>
      (await w.events()).filter((e) => e.reportingController === REPORTING_CONTROLLER);
    const FROZEN = { type: 'Warning', reason: 'RefreshFrozen', message: 'IMAGE REFRESH IS FROZEN (8/8)' } as const;
    const SKIPPED = { type: 'Normal', reason: 'RefreshSkipped', message: 'skipping this refresh tick 1/8' } as const;
    const E_RIGHT = { _tag: 'Right', right: undefined } as const;

    it('creates an Event on the jobs-manager Deployment that the server validates and keeps, events.k8s.io/v1 fields only', async () => {
      const w = await start();
      const port = createEventsPort(w.kubeConfig(), w.config(), { reportingInstance: 'refresh-29xyz' });
      expect(await run(port.record(FROZEN))).toEqual(E_RIGHT);
      const [written, ...rest] = await ours(w);
      expect(rest).toEqual([]);
      expect(written).toMatchObject({
        metadata: {
          name: eventName(JOBS_MANAGER, 'RefreshFrozen', FROZEN.message),
          namespace: chartNamesOf(w.config()).releaseNamespace,
        },
        regarding: {
          apiVersion: 'apps/v1',
          kind: 'Deployment',
          name: JOBS_MANAGER,
          namespace: chartNamesOf(w.config()).releaseNamespace,
          uid: ((await w.workload('jobs-manager')).metadata as JsonObject).uid,
        },
        type: 'Warning',
        reason: 'RefreshFrozen',
        action: 'Refresh',
        note: FROZEN.message,
        reportingController: REPORTING_CONTROLLER,
        reportingInstance: 'refresh-29xyz',
      });
      expect(eventTraffic(w)).toEqual(['POST 201']);
    });

    it('repeats count in ONE Event series (2, 3), only create and patch sent, each accepted', async () => {
      const w = await start();
      let minutes = 0;
      const port = createEventsPort(w.kubeConfig(), w.config(), {
        now: () => new Date(Date.now() + 60_000 * minutes++),
      });
      for (const streak of ['(8/8)', '(9/8)', '(10/8)']) {
        expect(await run(port.record({ ...FROZEN, message: `IMAGE REFRESH IS FROZEN ${streak}` }))).toEqual(E_RIGHT);
      }
      const events = await ours(w);
      expect(events.map((e) => [e.reason, e.note, (e.series as JsonObject | undefined)?.count])).toEqual([
        ['RefreshFrozen', 'IMAGE REFRESH IS FROZEN (8/8)', 3],
      ]);
      expect(eventTraffic(w)).toEqual([
        'POST 201',
        'POST 409',
        'PATCH 200',
        'PATCH 200',
        'POST 409',
        'PATCH 200',
        'PATCH 200',
      ]);
    });

    it('a different message under the same reason is a new Event, counted apart', async () => {
      const w = await start();
      const port = createEventsPort(w.kubeConfig(), w.config());
      for (const message of [SKIPPED.message, 'skipping this refresh tick 1/8 (another cause)', SKIPPED.message]) {
        await run(port.record({ ...SKIPPED, message }));
      }
      const counted = (await ours(w)).map((e) => [e.note, (e.series as JsonObject | undefined)?.count ?? 1]);
      expect(counted).toHaveLength(2);
      expect(counted).toContainEqual([SKIPPED.message, 2]);
    });

    it('RBAC without events create: Forbidden naming the verb and the fix, then no further request', async () => {
      const w = await start({ refuse: [{ resource: 'events', verb: 'create' }] });
      const port = createEventsPort(w.kubeConfig(), w.config());
      const first = left(await run(port.record(FROZEN)));
      expect(first).toMatchObject({ _tag: 'Forbidden', status: 403 });
      expect(first.message).toContain('cannot create resource "events" in API group "events.k8s.io"');
      expect(first.message).toContain('or set IMAGE_REFRESH_EVENTS=0');
      left(await run(port.record(SKIPPED)));
      expect(eventTraffic(w)).toEqual(['POST 403']);
    });

    it('RBAC with create but not patch: the repeat is refused at its patch, and the port stops there', async () => {
      const w = await start({ refuse: [{ resource: 'events', verb: 'patch' }] });
      const port = createEventsPort(w.kubeConfig(), w.config());
      expect(await run(port.record(FROZEN))).toEqual(E_RIGHT);
      expect(left(await run(port.record(FROZEN))).message).toContain('cannot patch resource "events"');
      expect(left(await run(port.record(SKIPPED)))._tag).toBe('Forbidden');
      expect(eventTraffic(w)).toEqual(['POST 201', 'POST 409', 'PATCH 403']);
    });
  });

  describe(`faults in front of ${server}`, () => {
    it('a read that never gets an answer is a Timeout at API_TIMEOUT', async () => {
      const w = await start();
      w.inject({ route: 'get' }, { kind: 'hang' });
      const began = Date.now();
      const error = left(await run(guardRead(portOn(w, { API_TIMEOUT: '500ms' }))));
      expect(error._tag).toBe('Timeout');
      expect(Date.now() - began).toBeLessThan(500 + TIMING_SLACK_MS);
    });

    it('a dropped connection is Transport; a plain-text 500 from a proxy is Transport with its words', async () => {
      const w = await start();
      w.inject({ route: 'get' }, { kind: 'reset' });
      expect(left(await run(guardRead(portOn(w))))._tag).toBe('Transport');
      w.inject(
        { route: 'patch' },
        { kind: 'raw', code: 500, contentType: 'text/plain', body: 'upstream connect error' },
      );
      const error = left(await run(portOn(w).patchBookkeeping(skipStreakSet(CHART_TOPOLOGY, 1))));
      expect(error).toMatchObject({ _tag: 'Transport', status: 500 });
      expect(error.message).toContain('upstream connect error');
      expect(annotationsOf(await w.workload('jobs-manager'))).not.toHaveProperty(STREAK);
    });
  });
};
