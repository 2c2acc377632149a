import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { restAs } from '../../../k8s-adapter/test/parity/support/world-controls.js';
import { JOBS_MANAGER, NS } from '../../../k8s-adapter/test/support/fake-api-chart.js';
import { ATTEMPT, JM, JM_REF, RECORD, STREAK } from './support/chart-facts.js';
import type { Stage } from './support/cluster-stage.js';
import { linesWith } from './support/run-bundle.js';
import { type LiveRun, startBundle } from './support/run-bundle-live.js';
import type { TinyRegistry } from './support/tiny-registry.js';
import { tinyDigest } from './support/tiny-registry.js';
import { tinyStagePerTest } from './support/tiny-stage.js';

// SIGTERM is what Kubernetes sends at activeDeadlineSeconds, on a node drain
// or an eviction. It ended the process in milliseconds with no line, no
// summary and no Event. Now (docs/behaviour.md §3, Signals): no further call
// starts, the wait in flight ends, one line says where the tick was, a Warning
// Event RefreshInterrupted is recorded, the summary says outcome=interrupted,
// exit 143 (SIGINT: 130) — within about two seconds. A second signal exits at
// once. Mutations that redden it, each tried: bin.ts not installing
// stopOnSignal (all four: no line, no summary); the driver ignoring the signal
// (all four: the tick waits its rollout out); the interrupted tick's Event
// bound left at API_TIMEOUT + 2 s (the hung-Event case).

const CASE_MS = 40_000;
/** "Within about two seconds" of the signal, on a loaded 2-core machine. */
const STOPPED_WITHIN_MS = 2_500;
const BOUNDS = { API_TIMEOUT: '5s', SETTLE_TIMEOUT: '20s', REGISTRY_TIMEOUT: '2s', ROLLOUT_TIMEOUT: '20s' };

let registry: TinyRegistry;
let stage: Stage;
const startTinyStage = tinyStagePerTest();

/** A release whose digests are recorded, and a new build behind the tag: the next tick re-images. */
const driftPending = async () => {
  ({ registry, stage } = await startTinyStage());
  expect((await stage.tick(BOUNDS)).exitCode).toBe(0);
  registry.bump();
};

/** Sends `signal` once `phrase` is on stderr; the run's end and how long after the signal it came. */
const signalAt = async (run: LiveRun, phrase: string, signal: NodeJS.Signals) => {
  await run.lineWith('stderr', phrase);
  // Let the call that follows the line start (the wait, the read).
  await new Promise((resolve) => setTimeout(resolve, 300));
  const sentAt = Date.now();
  run.child.kill(signal);
  const end = await run.ended;
  return { ...end, afterSignalMs: Date.now() - sentAt };
};

const interruptedEvents = () =>
  stage.cluster.server.events
    .all()
    .filter((e) => e.reason === 'RefreshInterrupted')
    .map((e) => `${String(e.type)} ${String(e.message)}`);

describe('a signal during a tick stops it, says where it was, and exits 143 / 130', () => {
  it(
    'SIGTERM during the rollout wait of jobs-manager (ROLLOUT_TIMEOUT=20s)',
    async () => {
      await driftPending();
      stage.cluster.server.setBehaviour('Deployment', NS, JOBS_MANAGER, 'stalls');
      const run = startBundle(['tick'], stage.env(BOUNDS));
      const end = await signalAt(run, `set image deployment/${JOBS_MANAGER}`, 'SIGTERM');
      expect(end.exitCode).toBe(143);
      expect(end.afterSignalMs).toBeLessThan(STOPPED_WITHIN_MS);
      const line = `[image-refresh] interrupted by SIGTERM while waiting for deployment/${JOBS_MANAGER}: refresh-attempt=1 stays, digests not recorded`;
      expect(run.stderr.filter((l) => l.includes('interrupted by'))).toEqual([line]);
      expect(run.stderr.at(-1)).toMatch(
        /^\[image-refresh\] summary: outcome=interrupted exit=143 findings=0 writes=1 /,
      );
      expect(interruptedEvents()).toEqual([`Warning ${line.replace('[image-refresh] ', '')}`]);
      // The state stays consistent: the attempt counted, the new digests not recorded.
      expect(stage.bookkeeping()[ATTEMPT]).toBe('1');
      expect(stage.bookkeeping()[RECORD.jm]).toBe(tinyDigest(JM, 'stg', 1));
      // Nothing after the signal but the Event: no PATCH of annotations, no other workload touched.
      expect(run.stderr.some((l) => l.includes('requests-proxy') && l.includes('set image'))).toBe(false);
    },
    CASE_MS,
  );

  it(
    'SIGINT during the settled guard wait (SETTLE_TIMEOUT=20s): exit 130, the skip not counted',
    async () => {
      ({ registry, stage } = await startTinyStage());
      // jobs-manager unsettled: a rollout that never becomes Ready.
      restAs(stage.cluster, JM_REF, 'neverReady');
      const run = startBundle(['tick'], stage.env(BOUNDS));
      const end = await signalAt(run, 'release=stg', 'SIGINT');
      expect(end.exitCode).toBe(130);
      expect(end.afterSignalMs).toBeLessThan(STOPPED_WITHIN_MS);
      expect(run.stderr.filter((l) => l.includes('interrupted by'))).toEqual([
        `[image-refresh] interrupted by SIGINT while the settled guard waited for deployment/${JOBS_MANAGER}: the skip was not counted, nothing was written`,
      ]);
      expect(run.stderr.at(-1)).toMatch(/summary: outcome=interrupted exit=130 findings=0 writes=0 /);
      expect(stage.bookkeeping()[STREAK]).toBeUndefined();
    },
    CASE_MS,
  );

  it(
    'SIGTERM with an Event POST that never answers (API_TIMEOUT=5s): the Event is given up within its short bound',
    async () => {
      await driftPending();
      stage.cluster.server.setBehaviour('Deployment', NS, JOBS_MANAGER, 'stalls');
      stage.cluster.server.inject({ route: 'event' }, { kind: 'hang' }, Number.POSITIVE_INFINITY);
      const run = startBundle(['tick'], stage.env(BOUNDS));
      const end = await signalAt(run, `set image deployment/${JOBS_MANAGER}`, 'SIGTERM');
      expect(end.exitCode).toBe(143);
      expect(end.afterSignalMs).toBeLessThan(STOPPED_WITHIN_MS);
      expect(run.stderr.filter((l) => l.includes('could not record the Kubernetes Event'))).toEqual([
        expect.stringContaining('RefreshInterrupted'),
      ]);
      expect(run.stderr.at(-1)).toMatch(/summary: outcome=interrupted exit=143 /);
    },
    CASE_MS,
  );

  it(
    'a second SIGTERM exits at once, while the first one waits on an Event POST that never answers',
    async () => {
      await driftPending();
      stage.cluster.server.setBehaviour('Deployment', NS, JOBS_MANAGER, 'stalls');
      stage.cluster.server.inject({ route: 'event' }, { kind: 'hang' }, Number.POSITIVE_INFINITY);
      const run = startBundle(['tick'], stage.env(BOUNDS));
      await run.lineWith('stderr', `set image deployment/${JOBS_MANAGER}`);
      await new Promise((resolve) => setTimeout(resolve, 300));
      run.child.kill('SIGTERM');
      await run.lineWith('stderr', 'interrupted by SIGTERM');
      const secondAt = Date.now();
      run.child.kill('SIGTERM');
      const end = await run.ended;
      expect(end.exitCode).toBe(143);
      expect(Date.now() - secondAt).toBeLessThan(500);
      expect(run.stderr.some((l) => l.includes('summary:'))).toBe(false);
    },
    CASE_MS,
  );
});

// Under ON_ROLLOUT_FAILURE=revert a signal during the rollout wait leaves the
// new build half-rolled — rightly: no new call starts, and a rollout cut short
// is not a rollout that failed. But the line did not say that no rollback was
// made, nor what the next tick will do (red on the unfixed CLI, whose line
// ended at "digests not recorded"). Now it says both, and the next tick does
// what it said.
describe('a signal during a rollout wait under ON_ROLLOUT_FAILURE=revert', () => {
  it(
    'SIGTERM while waiting for jobs-manager: no rollback, and the line says so and what the next tick does',
    async () => {
      await driftPending();
      stage.cluster.server.setBehaviour('Deployment', NS, JOBS_MANAGER, 'stalls');
      const revert = { ...BOUNDS, ON_ROLLOUT_FAILURE: 'revert' };
      const run = startBundle(['tick'], stage.env(revert));
      const end = await signalAt(run, `set image deployment/${JOBS_MANAGER}`, 'SIGTERM');
      expect(end.exitCode).toBe(143);
      expect(end.afterSignalMs).toBeLessThan(STOPPED_WITHIN_MS);
      expect(run.stderr.filter((l) => l.includes('interrupted by'))).toEqual([
        `[image-refresh] interrupted by SIGTERM while waiting for deployment/${JOBS_MANAGER}: refresh-attempt=1 stays, digests not recorded; no rollback was made (ON_ROLLOUT_FAILURE=revert rolls back a rollout that failed, and this one was cut short): the next tick retries this build as attempt 2/3 once deployment/${JOBS_MANAGER} is settled, and rolls it back if its rollout fails`,
      ]);
      expect(run.stderr.at(-1)).toMatch(/summary: outcome=interrupted exit=143 /);
      // Half-rolled, as said: the new build in the pod template, nothing quarantined.
      expect(stage.images()[JOBS_MANAGER]?.api).toBe(`docker.io/${JM}@${tinyDigest(JM, 'stg', 2)}`);
      expect(Object.keys(stage.bookkeeping()).filter((k) => k.includes('quarantined'))).toEqual([]);
      // The next tick does what the line said: attempt 2, the same build, and a rollback when it fails.
      stage.cluster.server.setBehaviour('Deployment', NS, JOBS_MANAGER, 'settles');
      restAs(stage.cluster, JM_REF, 'settles');
      const next = await stage.tick(revert);
      expect(stage.bookkeeping()[ATTEMPT]).toBeUndefined();
      expect(next.stderr.at(-1)).toMatch(/summary: outcome=complete exit=0 /);
      expect(linesWith(next.stderr, 'attempt 2/3')).toHaveLength(1);
    },
    CASE_MS,
  );
});

/**
 * A Pushgateway that accepts the first push and never answers it, and
 * answers every later one 200, keeping its body: what a tick pushes after a
 * signal cut its first push short.
 */
const gatewayHangingOnce = async () => {
  const bodies: string[] = [];
  let seen = 0;
  const server = createServer((request, response) => {
    seen += 1;
    if (seen === 1) return; // accepted, never answered
    let body = '';
    request.on('data', (chunk: Buffer) => {
      body += chunk.toString('utf8');
    });
    request.on('end', () => {
      bodies.push(body);
      response.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${address.port}`,
    bodies,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
};

// The metrics push is the last thing before the summary, and a gateway that
// accepts and never answers held the process for all of API_TIMEOUT: a
// SIGTERM 3 s into such a tick ended exit 0, outcome=complete, no line, and
// only a second signal stopped it (143, no summary). The first signal wins
// there too: the push is cut short, the line says the tick had ended, the
// metrics go again as interrupted within the interrupted bound, the summary
// says outcome=interrupted, exit 143 / 130, within about two seconds.
// What reddened it, each tried: the unfixed CLI (both cases: exit 0 after
// 15 s); the push not handed the interrupt signal (the push waits out
// API_TIMEOUT, 14.7 s after the signal); the second push left out (no
// interrupted metrics on the gateway).
describe('a signal during a hung metrics push wins', () => {
  it.each([
    ['SIGTERM', 143],
    ['SIGINT', 130],
  ] as const)(
    '%s while the Pushgateway does not answer: the line, outcome=interrupted, exit %i, the interrupted metrics pushed again',
    async (signal, exitCode) => {
      ({ registry, stage } = await startTinyStage());
      const gateway = await gatewayHangingOnce();
      try {
        const run = startBundle(['tick'], stage.env({ ...BOUNDS, API_TIMEOUT: '15s', PUSHGATEWAY_URL: gateway.url }));
        const end = await signalAt(run, 'tick complete', signal);
        expect(end.exitCode).toBe(exitCode);
        expect(end.afterSignalMs).toBeLessThan(STOPPED_WITHIN_MS);
        expect(run.stderr.filter((l) => l.includes('interrupted by'))).toEqual([
          `[image-refresh] interrupted by ${signal} while pushing this tick's metrics to the Pushgateway: the tick had already ended complete (exit 0); what it wrote stands`,
        ]);
        expect(run.stderr.at(-1)).toMatch(
          // A first tick: the topology found true, then the digests recorded (§3.4c).
          new RegExp(`^\\[image-refresh\\] summary: outcome=interrupted exit=${exitCode} findings=0 writes=2 `),
        );
        // The first push was cut short; the second says what the fleet must see.
        expect(gateway.bodies).toHaveLength(1);
        expect(gateway.bodies[0]).toContain('image_refresh_tick_outcome{outcome="interrupted"} 1');
        expect(gateway.bodies[0]).toContain(`image_refresh_exit_code ${exitCode}`);
        expect(gateway.bodies[0]).not.toContain('image_refresh_last_success_timestamp_seconds');
        // The first observation the tick recorded stands.
        expect(stage.bookkeeping()[RECORD.jm]).toBe(tinyDigest(JM, 'stg', 1));
      } finally {
        await gateway.close();
      }
    },
    CASE_MS,
  );
});
