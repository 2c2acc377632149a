import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { rootCertificates } from 'node:tls';

// The registry's HTTP, on node:http/https rather than the global fetch. The
// Kubernetes client already loaded node:https; Node's fetch (undici and its
// WebAssembly parser) costs another ~8 MB of RSS at first use, measured here —
// a tick's peak RSS is what the pod's memory request is sized by (README, Benchmarks).
// TLS verification is asked for explicitly (rejectUnauthorized: true): an
// explicit option wins over NODE_TLS_REJECT_UNAUTHORIZED=0, so a stray
// environment variable in the pod cannot turn digest resolution into a
// man-in-the-middle's answer: TLS verification is always on. Under Node 24,
// NODE_USE_ENV_PROXY=1 routes these requests through HTTPS_PROXY as it does
// fetch's.

/** The headers of an answer, read by name (case-insensitive), as fetch's Headers.get. */
export interface HeaderReader {
  get(name: string): string | null;
}

/** An HTTP answer as the registry client reads it: the part of fetch's Response it uses. */
export interface HttpAnswer {
  readonly status: number;
  readonly headers: HeaderReader;
  /** The body; read only for errors and token answers. */
  text(): Promise<string>;
}

/** One request as the registry client makes it: the part of fetch's RequestInit it uses. */
export interface HttpInit {
  readonly method: 'HEAD' | 'GET';
  readonly headers: Readonly<Record<string, string>>;
  /** Aborts connecting, the headers and the body alike, at the request bound. */
  readonly signal: AbortSignal;
  /**
   * Stop reading the body once it is longer than this (the answer is then cut
   * after at least `maxBodyBytes + 1` bytes, so the caller can tell): what a
   * signature fetch reads is bounded (signature-limits.ts). A fetch that ignores it is
   * still bounded by the caller's own length check.
   */
  readonly maxBodyBytes?: number;
}

/** The part of fetch the registry client uses; the global fetch fits it too (tests inject one). */
export type HttpFetch = (url: URL, init: HttpInit) => Promise<HttpAnswer>;

const headerReader = (raw: NodeJS.Dict<string | string[]>): HeaderReader => ({
  get: (name) => {
    const value = raw[name.toLowerCase()];
    if (value === undefined) return null;
    return Array.isArray(value) ? value.join(', ') : value;
  },
});

/** One request; the signal bounds connecting, the headers and the body alike. */
export const nodeHttpFetch: HttpFetch = (url, init) => send(url, init, undefined);

/**
 * As {@link nodeHttpFetch}, trusting `ca` (PEM, REGISTRY_CA_FILE) beside the
 * system's roots: Node's `ca` option replaces the roots, so they are passed too.
 */
export const nodeHttpFetchTrusting = (ca: string): HttpFetch => {
  const trusted = [...rootCertificates, ca];
  return (url, init) => send(url, init, trusted);
};

const send = (url: URL, init: HttpInit, ca: readonly string[] | undefined): Promise<HttpAnswer> =>
  new Promise((resolve, reject) => {
    const onAnswer = (res: IncomingMessage): void => {
      const chunks: Buffer[] = [];
      const body = new Promise<string>((done, failed) => {
        // Cut off by the bound: fail with the bound's own reason (a
        // TimeoutError), as fetch does, so the caller says "did not answer".
        const cutOff = (cause: unknown) => failed(init.signal.aborted ? init.signal.reason : cause);
        let read = 0;
        res.on('data', (chunk: Buffer) => {
          chunks.push(chunk);
          read += chunk.length;
          // Past the cap: keep what arrived (longer than the cap, so the
          // caller sees it was cut) and drop the rest unread.
          if (init.maxBodyBytes !== undefined && read > init.maxBodyBytes) {
            done(Buffer.concat(chunks).toString('utf8'));
            res.destroy();
          }
        });
        res.on('end', () => done(Buffer.concat(chunks).toString('utf8')));
        res.on('error', cutOff);
        res.on('aborted', () => cutOff(new Error('the answer was cut off')));
        res.on('close', () => {
          if (!res.complete) cutOff(new Error('the answer was cut off'));
        });
      });
      // A HEAD (or an unread body) must still be drained for the socket to close.
      body.catch(() => undefined);
      resolve({ status: res.statusCode ?? 0, headers: headerReader(res.headers), text: () => body });
    };
    const options = { method: init.method, headers: init.headers, signal: init.signal };
    const req =
      url.protocol === 'https:'
        ? httpsRequest(
            url,
            { ...options, rejectUnauthorized: true, ...(ca === undefined ? {} : { ca: [...ca] }) },
            onAnswer,
          )
        : httpRequest(url, options, onAnswer);
    req.on('error', (cause) => reject(init.signal.aborted ? init.signal.reason : cause));
    req.end();
  });
