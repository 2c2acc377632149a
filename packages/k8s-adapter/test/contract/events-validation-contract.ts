import { afterEach, describe, expect, it } from 'vitest';
import type { JsonObject } from '../support/fake-api-patch.js';

// What a kube-apiserver refuses of events.k8s.io/v1 Events
// (pkg/apis/core/validation/events.go, and MicroTime's six-digit decoding):
// each case states one request and the answer a real apiserver gives it; the
// first ones are the exact shapes the Events port once sent and production
// refused every tick. The same cases run on the fake API server
// (events/fake-api-events.test.ts), so the Events port's tests cannot pass
// there on writes a cluster refuses, and on the real apiserver
// (test/real-cluster/), which is what says the fake tells the truth.

export interface ValidationServer {
  /** The namespace the Events are written in. */
  readonly namespace: string;
  /** One request to events.k8s.io/v1 in that namespace: the status and the parsed body. */
  send(method: 'POST' | 'PATCH', body: unknown, name?: string): Promise<{ code: number; body: JsonObject }>;
  /** The Events the server holds in that namespace (events.k8s.io/v1), written by these cases. */
  stored(): Promise<JsonObject[]>;
  close(): Promise<void>;
}

export const EVENT_NAME = 'stg-jobs-manager.image-refresh.refreshfrozen';
const NAME = EVENT_NAME;
const MICRO = '2026-11-30T12:00:00.000000Z';
const LATER = '2026-11-30T12:15:00.000000Z';

/** A valid events.k8s.io/v1 Event, as client-go's recorder creates one. */
const anEvent = (s: ValidationServer, overrides: JsonObject = {}): JsonObject => ({
  metadata: { name: NAME, namespace: s.namespace },
  regarding: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'stg-jobs-manager', namespace: s.namespace },
  type: 'Warning',
  reason: 'RefreshFrozen',
  action: 'Refresh',
  note: 'IMAGE REFRESH IS FROZEN (8/8)',
  eventTime: MICRO,
  reportingController: 'tracebloc.io/image-refresh',
  reportingInstance: 'refresh-29xyz',
  ...overrides,
});

/** A table case's metadata override keeps the server's namespace, as its request path names it. */
const withNamespace = (s: ValidationServer, overrides: JsonObject): JsonObject =>
  overrides.metadata === undefined
    ? overrides
    : { ...overrides, metadata: { ...(overrides.metadata as JsonObject), namespace: s.namespace } };

const create = (s: ValidationServer, body: JsonObject) => s.send('POST', body);
const patch = (s: ValidationServer, body: JsonObject) => s.send('PATCH', body, NAME);

/** The Status a real apiserver sends with a 422. */
const invalid = (...errors: string[]) => ({
  kind: 'Status',
  status: 'Failure',
  reason: 'Invalid',
  code: 422,
  message: `Event "${NAME}" is invalid: ${errors.length === 1 ? errors[0] : `[${errors.join(', ')}]`}`,
});

export const describeEventValidation = (start: () => Promise<ValidationServer>, server: string): void => {
  let current: ValidationServer | undefined;
  afterEach(async () => {
    const s = current;
    current = undefined;
    await s?.close();
  });
  const begin = async (): Promise<ValidationServer> => {
    current = await start();
    return current;
  };

  describe(`${server} refuses what a real apiserver refuses (events.k8s.io/v1)`, () => {
    it('the port’s old create — deprecatedCount, deprecatedFirst/LastTimestamp, deprecatedSource — is a 422 "needs to be unset" per field', async () => {
      const s = await begin();
      const answer = await create(
        s,
        anEvent(s, {
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
      expect(await s.stored()).toEqual([]);
    });

    it('an eventTime with milliseconds (JavaScript’s toISOString) cannot be decoded: 400, as MicroTime parses exactly six digits', async () => {
      const s = await begin();
      const answer = await create(s, anEvent(s, { eventTime: '2026-11-30T12:00:00.000Z' }));
      expect(answer.code).toBe(400);
      expect(answer.body).toMatchObject({ kind: 'Status', reason: 'BadRequest' });
      expect(answer.body.message).toContain(
        'Event in version "v1" cannot be handled as a Event: parsing time "2026-11-30T12:00:00.000Z" as "2006-01-02T15:04:05.000000Z07:00": cannot parse ".000Z" as ".000000"',
      );
    });

    it('the port’s old repeat — a merge patch of type, note, deprecatedLastTimestamp — is a 422 "field is immutable"', async () => {
      const s = await begin();
      expect((await create(s, anEvent(s))).code).toBe(201);
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
            'lastTimestamp: Invalid value: "2026-11-30T12:15:00Z": field is immutable',
          ),
        ),
      });
      expect((await s.stored())[0]?.note).toBe('IMAGE REFRESH IS FROZEN (8/8)');
    });

    it('the port’s old count patch — deprecatedCount beside the series — is a 422 too, and a type change is refused alike', async () => {
      const s = await begin();
      await create(s, anEvent(s));
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
      expect((await patch(s, { regarding: { name: 'other' } })).body.message).toContain(
        'involvedObject: Invalid value:',
      );
    });

    it('a series must count at least 2 and say when it was last observed', async () => {
      const s = await begin();
      await create(s, anEvent(s));
      expect((await patch(s, { series: { count: 1, lastObservedTime: LATER } })).body).toMatchObject(
        invalid('series.count: Invalid value: "": should be at least 2'),
      );
      expect((await patch(s, { series: { count: 2 } })).body).toMatchObject(
        invalid('series.lastObservedTime: Required value'),
      );
      expect(
        (
          await create(
            s,
            anEvent(s, {
              metadata: { name: 'b', namespace: s.namespace },
              series: { count: 1, lastObservedTime: MICRO },
            }),
          )
        ).code,
      ).toBe(422);
    });

    it('what it accepts: a v1 create, an empty merge patch (the Event back, nothing written), a series patch', async () => {
      const s = await begin();
      const first = await create(s, anEvent(s));
      expect(first.code).toBe(201);
      const created = String((first.body.metadata as JsonObject).resourceVersion);
      expect((await create(s, anEvent(s))).body).toMatchObject({ code: 409, reason: 'AlreadyExists' });
      const read = await patch(s, {});
      expect(read).toMatchObject({
        code: 200,
        body: { note: 'IMAGE REFRESH IS FROZEN (8/8)', metadata: { resourceVersion: created } },
      });
      const counted = await patch(s, {
        series: { count: 2, lastObservedTime: LATER },
        metadata: { labels: { a: 'b' } },
      });
      expect(counted).toMatchObject({
        code: 200,
        body: {
          series: { count: 2, lastObservedTime: LATER },
          metadata: { resourceVersion: expect.not.stringMatching(`^${created}$`) },
        },
      });
      expect(await patch(s, { series: { count: 3, lastObservedTime: LATER } })).toMatchObject({ code: 200 });
    });

    it('the note is at most 1024 UTF-8 bytes (Go’s len), not 1024 characters', async () => {
      const s = await begin();
      const arrows = '→'.repeat(341); // 341 characters, 1023 bytes
      expect(
        (await create(s, anEvent(s, { metadata: { name: 'fits', namespace: s.namespace }, note: `${arrows}x` }))).code,
      ).toBe(201);
      expect(
        await create(s, anEvent(s, { metadata: { name: 'over', namespace: s.namespace }, note: `${arrows}xy` })),
      ).toEqual({
        code: 422,
        body: expect.objectContaining({
          message: 'Event "over" is invalid: message: Invalid value: "": can have at most 1024 characters',
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
        { metadata: { name: 'Stg.RefreshFrozen', namespace: '' } },
        'metadata.name: Invalid value: "Stg.RefreshFrozen": a lowercase RFC 1123 subdomain',
      ],
      [
        'a regarding without namespace',
        { regarding: { kind: 'Deployment', name: 'x' } },
        'involvedObject.namespace: Invalid value: "": does not match event.namespace',
      ],
    ])('a create with %s is a 422', async (_what, overrides, error) => {
      const s = await begin();
      const answer = await create(s, anEvent(s, withNamespace(s, overrides as JsonObject)));
      expect(answer.code).toBe(422);
      expect(answer.body).toMatchObject({ kind: 'Status', reason: 'Invalid', code: 422 });
      expect(answer.body.message).toContain(error);
    });
  });
};
