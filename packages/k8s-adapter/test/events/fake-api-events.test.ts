import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { describeEventValidation, EVENT_NAME, type ValidationServer } from '../contract/events-validation-contract.js';
import { writeFakeKubeconfig } from '../support/fake-api-kubeconfig.js';
import { KUBECTL, KUBECTL_MISSING, kubectl } from '../support/fake-api-kubectl.js';
import type { JsonObject } from '../support/fake-api-patch.js';
import { type FakeApiServer, startFakeApiServer } from '../support/fake-api-server.js';

// The fake API server refuses events.k8s.io/v1 Events the way a real
// kube-apiserver does (the cases: contract/events-validation-contract.ts,
// which runs them on the real apiserver too), so the Events port's tests
// cannot pass on writes a cluster answers 400 or 422; and real kubectl meets
// the same refusal.

const NS = 'tracebloc';
const NAME = EVENT_NAME;

let server: FakeApiServer | undefined;
const start = async (anonymous = false) => {
  server = await startFakeApiServer({ anonymous });
  return server;
};
afterEach(async () => {
  const s = server;
  server = undefined;
  if (s === undefined) return;
  const unexpected = s.unexpected.map((r) => `${r.method} ${r.path}: ${r.problem}`);
  await s.close();
  expect(unexpected).toEqual([]);
});

const onFake = async (): Promise<ValidationServer> => {
  const s = await start();
  return {
    namespace: NS,
    send: async (method, body, name) => {
      const path = `/apis/events.k8s.io/v1/namespaces/${NS}/events${name === undefined ? '' : `/${name}`}`;
      const response = await fetch(`${s.url}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${s.token}`,
          'content-type': method === 'PATCH' ? 'application/merge-patch+json' : 'application/json',
        },
        body: JSON.stringify(body),
      });
      return { code: response.status, body: (await response.json()) as JsonObject };
    },
    stored: async () => s.events.allEventsV1(),
    // The file's afterEach closes the server and checks it saw nothing unmodelled.
    close: async () => undefined,
  };
};

describeEventValidation(onFake, 'the fake API server');

/** A valid events.k8s.io/v1 Event, as client-go's recorder creates one. */
const anEvent = (): JsonObject => ({
  metadata: { name: NAME, namespace: NS },
  regarding: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'stg-jobs-manager', namespace: NS },
  type: 'Warning',
  reason: 'RefreshFrozen',
  action: 'Refresh',
  note: 'IMAGE REFRESH IS FROZEN (8/8)',
  eventTime: '2026-11-30T12:00:00.000000Z',
  reportingController: 'tracebloc.io/image-refresh',
  reportingInstance: 'refresh-29xyz',
});

describe.skipIf(KUBECTL === undefined)(`the same refusal under real kubectl (${KUBECTL ?? KUBECTL_MISSING})`, () => {
  it('`kubectl create -f` of an events.k8s.io/v1 Event with deprecatedCount is refused: "needs to be unset"', async () => {
    const s = await start(true);
    const kubeconfig = writeFakeKubeconfig(s, { namespace: NS });
    const dir = mkdtempSync(join(tmpdir(), 'event-'));
    try {
      const file = join(dir, 'event.json');
      const valid: JsonObject = { apiVersion: 'events.k8s.io/v1', kind: 'Event', ...anEvent() };
      writeFileSync(file, JSON.stringify({ ...valid, deprecatedCount: 1 }));
      const refused = await kubectl(kubeconfig, ['create', '--validate=false', '-f', file]);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain('count: Invalid value: "": needs to be unset');
      expect(s.events.all()).toEqual([]);
      // The same Event without it is created.
      writeFileSync(file, JSON.stringify(valid));
      const created = await kubectl(kubeconfig, ['create', '--validate=false', '-f', file]);
      expect(created.stderr).toBe('');
      expect(created.stdout).toContain(`event.events.k8s.io/${NAME} created`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
      rmSync(kubeconfig.dir, { recursive: true, force: true });
    }
  });
});
