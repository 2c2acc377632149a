import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

// A fake Prometheus HTTP API on 127.0.0.1 for `promote`'s command tests: it
// answers POST /api/v1/query with the series a test gives per part of the
// queries (the `promote_evidence` label the real queries carry), or misbehaves
// as told — hangs, answers 500, 404 or garbage. It records every request.

export type Mode =
  | 'answer'
  | 'hang'
  | 'status500'
  | 'status404'
  | 'status403'
  | 'notJson'
  | 'notVector'
  /** 200, chunked (no content-length): 80 MiB of a JSON string, then it hangs without ending the answer. */
  | 'endless';

export interface Series {
  readonly part: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

export interface FakePrometheus {
  readonly url: string;
  mode: Mode;
  series: Series[];
  readonly requests: { readonly authorization: string | undefined; readonly query: string; readonly time: string }[];
  close(): Promise<void>;
}

const body = (request: IncomingMessage): Promise<string> =>
  new Promise((resolve, reject) => {
    let text = '';
    request.on('data', (chunk: Buffer) => {
      text += chunk.toString('utf8');
    });
    request.on('end', () => resolve(text));
    request.on('error', reject);
  });

/** Which parts a query asks for: the names in its label_replace(…, "promote_evidence", "<name>", …). */
const partsOf = (query: string): Set<string> =>
  new Set([...query.matchAll(/"promote_evidence", "([a-z_]+)"/g)].map((m) => m[1] ?? ''));

export const startFakePrometheus = async (): Promise<FakePrometheus> => {
  const hanging = new Set<import('node:http').ServerResponse>();
  const fake: FakePrometheus = {
    url: '',
    mode: 'answer',
    series: [],
    requests: [],
    close: async () => undefined,
  };
  const server: Server = createServer(async (request, response) => {
    const form = new URLSearchParams(await body(request));
    fake.requests.push({
      authorization: request.headers.authorization,
      query: form.get('query') ?? '',
      time: form.get('time') ?? '',
    });
    if (request.url !== '/api/v1/query' || request.method !== 'POST') {
      response.writeHead(404).end('404 page not found');
      return;
    }
    switch (fake.mode) {
      case 'hang':
        hanging.add(response);
        return;
      case 'status500':
        response.writeHead(500, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ status: 'error', errorType: 'internal', error: 'query engine exploded' }));
        return;
      case 'status404':
        response.writeHead(404).end('404 page not found');
        return;
      case 'status403':
        response.writeHead(403).end('forbidden');
        return;
      case 'notJson':
        response.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"success","data":');
        return;
      case 'endless': {
        hanging.add(response);
        response.writeHead(200, { 'content-type': 'application/json' });
        response.write('{"status":"success","data":"');
        const chunk = 'x'.repeat(1_024 * 1_024);
        let sent = 0;
        const more = (): void => {
          while (sent < 80 && !response.destroyed) {
            sent += 1;
            if (!response.write(chunk)) {
              response.once('drain', more);
              return;
            }
          }
        };
        more();
        return;
      }
      case 'notVector':
        response
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify({ status: 'success', data: { resultType: 'matrix', result: [] } }));
        return;
      default: {
        const parts = partsOf(form.get('query') ?? '');
        const time = Number(form.get('time'));
        const result = fake.series
          .filter((s) => parts.has(s.part))
          .map((s) => ({ metric: { ...s.labels, promote_evidence: s.part }, value: [time, String(s.value)] }));
        response
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify({ status: 'success', data: { resultType: 'vector', result } }));
      }
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(fake, {
    url: `http://127.0.0.1:${port}`,
    close: async () => {
      for (const response of hanging) response.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  });
};

export interface FakeEdge {
  readonly edge?: string;
  readonly ring?: number;
  readonly pushedAgoS?: number;
  readonly recorded?: { readonly digest: string; readonly agoS: number };
  readonly failedExitCode?: number;
  readonly rolledBack?: number;
  readonly lockedOut?: boolean;
  /** The highest image_refresh_skip_streak within --for, where > 0. */
  readonly skipStreak?: number;
  /** A tick_outcome{outcome="frozen"} within --for. */
  readonly frozen?: boolean;
  readonly ringChanged?: boolean;
  readonly quarantined?: { readonly digest: string; readonly repository: string; readonly agoS: number };
}

/** The series a fleet of edges would answer, one Pushgateway grouping each, for image `web`. */
export const seriesOf = (edges: readonly FakeEdge[], nowS: number): Series[] =>
  edges.flatMap((e, i): Series[] => {
    const labels = {
      job: 'image-refresh',
      instance: '127.0.0.1:9091',
      ...(e.edge === undefined ? { namespace: `orphan-${i}` } : { edge: e.edge }),
    };
    return [
      ...(e.ring === undefined ? [] : [{ part: 'ring', labels, value: e.ring }]),
      ...(e.ringChanged === true ? [{ part: 'ring_changed', labels, value: 1 }] : []),
      { part: 'pushed', labels, value: nowS - (e.pushedAgoS ?? 60) },
      ...(e.failedExitCode === undefined ? [] : [{ part: 'failed_tick', labels, value: e.failedExitCode }]),
      ...(e.rolledBack === undefined ? [] : [{ part: 'rolled_back', labels, value: e.rolledBack }]),
      ...(e.lockedOut === true ? [{ part: 'locked_out', labels, value: 1 }] : []),
      ...(e.skipStreak === undefined ? [] : [{ part: 'unsettled', labels, value: e.skipStreak }]),
      ...(e.frozen === true ? [{ part: 'unsettled', labels: { ...labels, outcome: 'frozen' }, value: 1 }] : []),
      ...(e.recorded === undefined
        ? []
        : [
            {
              part: 'recorded',
              labels: { ...labels, image: 'web', digest: e.recorded.digest },
              value: nowS - e.recorded.agoS,
            },
          ]),
      ...(e.quarantined === undefined
        ? []
        : [
            {
              part: 'quarantined',
              labels: { ...labels, image: 'web', digest: e.quarantined.digest, repository: e.quarantined.repository },
              value: nowS - e.quarantined.agoS,
            },
          ]),
    ];
  });
