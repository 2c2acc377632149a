import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { writeFakeKubeconfig } from '../support/fake-api-kubeconfig.js';
import { KUBECTL, KUBECTL_MISSING, kubectl } from '../support/fake-api-kubectl.js';
import type { JsonObject } from '../support/fake-api-patch.js';
import { type FakeApiServer, startFakeApiServer } from '../support/fake-api-server.js';

// The fake API server refuses events.k8s.io/v1 Events the way a real
// kube-apiserver does (pkg/apis/core/validation/events.go, and MicroTime's
// six-digit decoding), so the Events port's tests cannot pass on writes a
// cluster answers 400 or 422. Each case states one request and the answer a
// real apiserver gives it; the first ones are the exact shapes the port once
// sent and production refused every tick.

const NS = 'tracebloc';
const NAME = 'stg-jobs-manager.image-refresh.refreshfrozen';
const MICRO = '2026-11-30T12:00:00.000000Z';
const LATER = '2026-11-30T12:15:00.000000Z';

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

/** A valid events.k8s.io/v1 Event, as client-go's recorder creates one. */
const anEvent = (overrides: JsonObject = {}): JsonObject => ({
  metadata: { name: NAME, namespace: NS },
  regarding: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'stg-jobs-manager', namespace: NS },
  type: 'Warning',
  reason: 'RefreshFrozen',
  action: 'Refresh',
  note: 'IMAGE REFRESH IS FROZEN (8/8)',
  eventTime: MICRO,
  reportingController: 'tracebloc.io/image-refresh',
  reportingInstance: 'refresh-29xyz',
  ...overrides,
});

interface Answer {
  readonly code: number;
  readonly body: JsonObject;
}

const send = async (s: FakeApiServer, method: 'POST' | 'PATCH', body: unknown, name?: string): Promise<Answer> => {
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
};
const create = (s: FakeApiServer, body: JsonObject) => send(s, 'POST', body);
const patch = (s: FakeApiServer, body: JsonObject) => send(s, 'PATCH', body, NAME);

/** The Status a real apiserver sends with a 422. */
const invalid = (...errors: string[]) => ({
  kind: 'Status',
  status: 'Failure',
  reason: 'Invalid',
  code: 422,
  message: `Event.events.k8s.io "${NAME}" is invalid: ${errors.length === 1 ? errors[0] : `[${errors.join(', ')}]`}`,
});

describe('the fake refuses what a real apiserver refuses (events.k8s.io/v1)', () => {
  it('the port’s old create — deprecatedCount, deprecatedFirst/LastTimestamp, deprecatedSource — is a 422 "needs to be unset" per field', async () => {
    const s = await start();
    const answer = await create(
      s,
      anEvent({
        deprecatedCount: 1,
        deprecatedFirstTimestamp: '2026-11-30T12:00:00Z',
        deprecatedLastTimestamp: '2026-11-30T12:00:00Z',
        deprecatedSource: { component: 'image-refresh' },
      }),
    );
    expect(answer).toEqual({
      code: 422,
      body: expect.objectContaining(
        invalid(
          'firstTimestamp: Invalid value: "": needs to be unset',
          'lastTimestamp: Invalid value: "": needs to be unset',
          'count: Invalid value: "": needs to be unset',
          'source: Invalid value: "": needs to be unset',
        ),
      ),
    });
    expect(s.events.all()).toEqual([]);
  });

  it('an eventTime with milliseconds (JavaScript’s toISOString) cannot be decoded: 400, as MicroTime parses exactly six digits', async () => {
    const s = await start();
    const answer = await create(s, anEvent({ eventTime: '2026-11-30T12:00:00.000Z' }));
    expect(answer.code).toBe(400);
    expect(answer.body).toMatchObject({ kind: 'Status', reason: 'BadRequest' });
    expect(answer.body.message).toContain(
      'eventTime: parsing time "2026-11-30T12:00:00.000Z" as "2006-01-02T15:04:05.000000Z07:00"',
    );
  });

  it('the port’s old repeat — a merge patch of type, note, deprecatedLastTimestamp — is a 422 "field is immutable"', async () => {
    const s = await start();
    expect((await create(s, anEvent())).code).toBe(201);
    const answer = await patch(s, {
      type: 'Warning',
      note: 'IMAGE REFRESH IS FROZEN (9/8)',
      deprecatedLastTimestamp: '2026-11-30T12:15:00.000Z',
    });
    expect(answer).toEqual({
      code: 422,
      body: expect.objectContaining(
        invalid(
          'message: Invalid value: "IMAGE REFRESH IS FROZEN (9/8)": field is immutable',
          'lastTimestamp: Invalid value: "2026-11-30T12:15:00.000Z": field is immutable',
        ),
      ),
    });
    expect(s.events.allEventsV1()[0]?.note).toBe('IMAGE REFRESH IS FROZEN (8/8)');
  });

  it('the port’s old count patch — deprecatedCount beside the series — is a 422 too, and a type change is refused alike', async () => {
    const s = await start();
    await create(s, anEvent());
    expect(await patch(s, { deprecatedCount: 2, series: { count: 2, lastObservedTime: LATER } })).toEqual({
      code: 422,
      body: expect.objectContaining(invalid('count: Invalid value: 2: field is immutable')),
    });
    expect((await patch(s, { type: 'Normal' })).body.message).toContain(
      'type: Invalid value: "Normal": field is immutable',
    );
    for (const field of ['reason', 'action', 'reportingController', 'reportingInstance', 'eventTime']) {
      const changed = field === 'eventTime' ? LATER : 'Changed';
      expect((await patch(s, { [field]: changed })).body.message, field).toContain(`${field}: Invalid value:`);
    }
    expect((await patch(s, { regarding: { name: 'other' } })).body.message).toContain('involvedObject: Invalid value:');
  });

  it('a series must count at least 2 and say when it was last observed', async () => {
    const s = await start();
    await create(s, anEvent());
    expect((await patch(s, { series: { count: 1, lastObservedTime: LATER } })).body).toMatchObject(
      invalid('series.count: Invalid value: "": should be at least 2'),
    );
    expect((await patch(s, { series: { count: 2 } })).body).toMatchObject(
      invalid('series.lastObservedTime: Required value'),
    );
    expect(
      (await create(s, anEvent({ metadata: { name: 'b' }, series: { count: 1, lastObservedTime: MICRO } }))).code,
    ).toBe(422);
  });

  it('what it accepts: a v1 create, an empty merge patch (the Event back, nothing written), a series patch', async () => {
    const s = await start();
    expect((await create(s, anEvent())).code).toBe(201);
    expect((await create(s, anEvent())).body).toMatchObject({ code: 409, reason: 'AlreadyExists' });
    const read = await patch(s, {});
    expect(read).toMatchObject({
      code: 200,
      body: { note: 'IMAGE REFRESH IS FROZEN (8/8)', metadata: { resourceVersion: '1' } },
    });
    const counted = await patch(s, { series: { count: 2, lastObservedTime: LATER }, metadata: { labels: { a: 'b' } } });
    expect(counted).toMatchObject({
      code: 200,
      body: { series: { count: 2, lastObservedTime: LATER }, metadata: { resourceVersion: '2' } },
    });
    expect(await patch(s, { series: { count: 3, lastObservedTime: LATER } })).toMatchObject({ code: 200 });
  });

  it('the note is at most 1024 UTF-8 bytes (Go’s len), not 1024 characters', async () => {
    const s = await start();
    const arrows = '→'.repeat(341); // 341 characters, 1023 bytes
    expect((await create(s, anEvent({ metadata: { name: 'fits' }, note: `${arrows}x` }))).code).toBe(201);
    expect(await create(s, anEvent({ metadata: { name: 'over' }, note: `${arrows}xy` }))).toEqual({
      code: 422,
      body: expect.objectContaining({
        message: 'Event.events.k8s.io "over" is invalid: message: Invalid value: "": can have at most 1024 characters',
      }),
    });
  });

  it.each([
    ['no action', { action: '' }, 'action: Required value'],
    ['no reason', { reason: undefined }, 'reason: Required value'],
    ['a reason over 128', { reason: 'R'.repeat(129) }, 'reason: Invalid value: "": can have at most 128 characters'],
    ['no reportingInstance', { reportingInstance: '' }, 'reportingInstance: Required value'],
    ['a reportingInstance over 128', { reportingInstance: 'p'.repeat(129) }, 'can have at most 128 characters'],
    [
      'a reportingController that is no qualified name',
      { reportingController: 'image refresh' },
      'reportingController: Invalid value: "image refresh": name part must consist of',
    ],
    ['no reportingController', { reportingController: undefined }, 'reportingController: Required value'],
    [
      'a type that is neither Normal nor Warning',
      { type: 'Error' },
      'type: Invalid value: "": has invalid value: Error',
    ],
    ['no eventTime', { eventTime: undefined }, 'eventTime: Required value'],
    [
      'a name that is no DNS subdomain',
      { metadata: { name: 'Stg.RefreshFrozen' } },
      'metadata.name: Invalid value: "Stg.RefreshFrozen": a lowercase RFC 1123 subdomain',
    ],
    [
      'a regarding without namespace',
      { regarding: { kind: 'Deployment', name: 'x' } },
      'involvedObject.namespace: Invalid value: "": does not match event.namespace',
    ],
  ])('a create with %s is a 422', async (_what, overrides, error) => {
    const s = await start();
    const answer = await create(s, anEvent(overrides as JsonObject));
    expect(answer.code).toBe(422);
    expect(answer.body).toMatchObject({ kind: 'Status', reason: 'Invalid', code: 422 });
    expect(answer.body.message).toContain(error);
  });
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
