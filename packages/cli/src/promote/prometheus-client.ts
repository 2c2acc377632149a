import { boundedCall } from '@image-refresh/k8s-adapter';
import * as E from 'fp-ts/lib/Either.js';

// The one HTTP call `image-refresh promote` makes, to Prometheus's instant
// query API (docs/fleet-promotion.md, "The verdict"): POST /api/v1/query with
// the PromQL and the evaluation time, bounded by --timeout and aborted by
// SIGTERM / SIGINT. A failure is a value, classified, carrying the real cause
// into the line that says it; nothing is thrown past this module and no
// credential of the URL reaches any line.

/** Why Prometheus gave no evidence. */
export type PrometheusErrorKind = 'NotFound' | 'Forbidden' | 'Timeout' | 'Transport' | 'Malformed' | 'Interrupted';

export interface PrometheusError {
  readonly kind: PrometheusErrorKind;
  /** What happened, in an operator's words; never a credential. */
  readonly message: string;
  /** Interrupted: the signal's reason (core's interruptedBy), for the exit code. */
  readonly reason?: unknown;
}

/** One series of an instant vector: its labels and its value at the evaluation time. */
export interface PromSample {
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

/** Where Prometheus is: its URL (no userinfo), and the Authorization a credentials file gives. */
export interface PrometheusEndpoint {
  /** Printable: no userinfo. */
  readonly url: string;
  /** Never printed. */
  readonly authorization: string | undefined;
}

/**
 * The endpoint of a --prometheus URL, or why it is not one. A URL with
 * `user:pass@` is refused (docs/fleet-promotion.md, "The verdict"): a
 * credential in argv is in `ps` and in CI logs; it comes from a file
 * (--bearer-token-file, --basic-auth-file). The userinfo is never decoded
 * nor repeated.
 */
export const endpointOf = (text: string): E.Either<string, PrometheusEndpoint> => {
  let url: URL;
  try {
    url = new URL(text);
  } catch (error) {
    // The text may hold a password: the message names the rule and the parser's word, not the text.
    return E.left(`--prometheus is not a URL (http://host:9090): ${(error as Error).message}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return E.left('--prometheus must be an http(s) URL');
  if (url.username !== '' || url.password !== '')
    return E.left(
      '--prometheus carries credentials (user:password@): credentials never ride in argv (ps, CI logs); give --bearer-token-file FILE or --basic-auth-file FILE',
    );
  url.search = '';
  url.hash = '';
  return E.right({ url: url.toString().replace(/\/+$/, ''), authorization: undefined });
};

/** A text with every userinfo of an http(s) URL in it removed: the last guard on every printed line. */
export const withoutCredentials = (text: string): string => text.replace(/(https?:\/\/)[^/@\s]*@/gi, '$1');

/** At most this much answer is read: far more than 1,000 edges' evidence, far less than a runaway answer. */
const MAX_ANSWER_BYTES = 64 * 1_024 * 1_024;

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The samples of a Prometheus answer's JSON, or what about it is not an instant vector. */
export const samplesOf = (body: unknown): E.Either<string, PromSample[]> => {
  if (!isObject(body)) return E.left('the answer is not a JSON object');
  if (body.status !== 'success') return E.left(`status ${JSON.stringify(body.status)}: ${String(body.error ?? '')}`);
  const data = body.data;
  if (!isObject(data) || data.resultType !== 'vector' || !Array.isArray(data.result))
    return E.left('data is not an instant vector');
  const samples: PromSample[] = [];
  for (const series of data.result) {
    if (!isObject(series) || !isObject(series.metric) || !Array.isArray(series.value) || series.value.length !== 2)
      return E.left('a series is not {metric, value: [time, "value"]}');
    const labels = series.metric;
    if (!Object.values(labels).every((v) => typeof v === 'string')) return E.left('a label value is not a string');
    const value = Number(series.value[1]);
    if (typeof series.value[1] !== 'string' || Number.isNaN(value)) return E.left('a value is not a number');
    samples.push({ labels: labels as Record<string, string>, value });
  }
  return E.right(samples);
};

export interface QueryOptions {
  readonly timeoutMs: number;
  /** Aborted on SIGTERM / SIGINT: the call ends at once. */
  readonly interrupt: AbortSignal | undefined;
  /** The evaluation time, Unix seconds: every query of one verdict reads the same instant. */
  readonly timeSeconds: number;
}

const errorChain = (error: unknown): string => {
  const parts: string[] = [];
  for (let e: unknown = error; e instanceof Error && parts.length < 4; e = e.cause) parts.push(e.message);
  return parts.length === 0 ? String(error) : parts.join(': ');
};

const classifyStatus = (status: number, body: string): PrometheusError => {
  const said = (() => {
    try {
      const parsed: unknown = JSON.parse(body);
      return isObject(parsed) && typeof parsed.error === 'string' ? `: ${parsed.error}` : '';
    } catch (error) {
      // Not JSON (a proxy's HTML page): the status alone says it.
      return error instanceof SyntaxError ? '' : `: ${errorChain(error)}`;
    }
  })();
  if (status === 404) return { kind: 'NotFound', message: `answered 404 (no Prometheus API at this URL?)${said}` };
  if (status === 401 || status === 403) return { kind: 'Forbidden', message: `answered ${status}${said}` };
  return { kind: 'Transport', message: `answered ${status}${said}` };
};

/**
 * The answer's text, read chunk by chunk; undefined once it passes
 * MAX_ANSWER_BYTES, the rest cancelled. A chunked answer has no
 * content-length to check first: it is counted as it arrives.
 */
const readCapped = async (response: Response): Promise<string | undefined> => {
  if (response.body === null) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let bytes = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    bytes += value.byteLength;
    if (bytes > MAX_ANSWER_BYTES) {
      await reader.cancel();
      return undefined;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
};

/** One instant query: its samples, or the classified reason there are none. */
export const queryPrometheus = async (
  endpoint: PrometheusEndpoint,
  promql: string,
  options: QueryOptions,
): Promise<E.Either<PrometheusError, PromSample[]>> => {
  // boundedCall holds the signal until the call settles (Node 20 may collect an
  // unreferenced AbortSignal.any) and ends it at the bound or on a signal.
  return boundedCall({ timeoutMs: options.timeoutMs, parents: [options.interrupt] }, (signal) =>
    ask(endpoint, promql, options, signal),
  );
};

const ask = async (
  endpoint: PrometheusEndpoint,
  promql: string,
  options: QueryOptions,
  signal: AbortSignal,
): Promise<E.Either<PrometheusError, PromSample[]>> => {
  const failed = (error: unknown): PrometheusError => {
    if (options.interrupt?.aborted === true)
      return { kind: 'Interrupted', message: 'interrupted by a signal', reason: options.interrupt.reason };
    if (signal.aborted) return { kind: 'Timeout', message: `no answer within ${options.timeoutMs / 1_000}s` };
    return { kind: 'Transport', message: withoutCredentials(errorChain(error)) };
  };
  try {
    const response = await fetch(`${endpoint.url}/api/v1/query`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        accept: 'application/json',
        ...(endpoint.authorization === undefined ? {} : { authorization: endpoint.authorization }),
      },
      body: new URLSearchParams({ query: promql, time: options.timeSeconds.toFixed(3) }).toString(),
      signal,
      redirect: 'error',
    });
    const length = Number(response.headers.get('content-length') ?? 0);
    if (length > MAX_ANSWER_BYTES) {
      await response.body?.cancel();
      return E.left({ kind: 'Malformed', message: `an answer of ${length} bytes, more than ${MAX_ANSWER_BYTES}` });
    }
    const text = await readCapped(response);
    if (text === undefined)
      return E.left({ kind: 'Malformed', message: `an answer of more than ${MAX_ANSWER_BYTES} bytes` });
    if (!response.ok) return E.left(classifyStatus(response.status, text.slice(0, 2_000)));
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch (error) {
      return E.left({ kind: 'Malformed', message: `the answer is not JSON (${errorChain(error)})` });
    }
    const samples = samplesOf(body);
    return E.isLeft(samples) ? E.left({ kind: 'Malformed', message: samples.left }) : samples;
  } catch (error) {
    return E.left(failed(error));
  }
};
