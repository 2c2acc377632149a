import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { type PortError, timeout, transport } from '@image-refresh/core';
import { boundedCall } from '@image-refresh/k8s-adapter';
import * as E from 'fp-ts/lib/Either.js';
import { EXPOSITION_CONTENT_TYPE } from './exposition.js';

// One POST of a tick's metrics: the Pushgateway replaces only the metric
// names a POST carries, so what this tick does not push (the last success,
// after a failing tick) keeps its value. Bounded by the caller's bound
// (API_TIMEOUT, or less for an interrupted tick) and its signal (the tick's
// own abort), with boundedCall; node:http rather than fetch, which
// would load undici (~8 MB of RSS) for one request. Any answer but 2xx is a
// failure whose message names the gateway's status and first words.

/** How much of a gateway's answer is kept for the WARN line (it says its first 200 characters). */
const REPLY_KEPT_BYTES = 4 * 1024;

const describeUrl = (url: URL): string => `${url.origin}${url.pathname}`;

export const pushMetrics = (
  url: string,
  body: string,
  options: {
    readonly timeoutMs: number;
    readonly signal?: AbortSignal | undefined;
    /** SIGTERM / SIGINT: a push in flight is cut short at once (the tick then ends interrupted). */
    readonly interrupt?: AbortSignal | undefined;
  },
): Promise<E.Either<PortError, void>> => {
  const target = new URL(url);
  const what = `POST ${describeUrl(target)}`;
  return boundedCall({ timeoutMs: options.timeoutMs, parents: [options.signal, options.interrupt] }, (signal) => {
    const failure = (cause: unknown): PortError =>
      options.signal?.aborted === true
        ? transport(`${what} was aborted: the tick was told to stop`)
        : options.interrupt?.aborted === true
          ? transport(`${what} was cut short by a signal`)
          : signal.aborted
            ? timeout(`${what} did not answer within ${options.timeoutMs} ms`)
            : transport(`${what} failed: ${cause instanceof Error ? cause.message : String(cause)}`);
    return new Promise<E.Either<PortError, void>>((resolve) => {
      const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
      const req = send(
        target,
        {
          method: 'POST',
          headers: { 'Content-Type': EXPOSITION_CONTENT_TYPE, 'Content-Length': Buffer.byteLength(body) },
          signal,
          ...(target.protocol === 'https:' ? { rejectUnauthorized: true } : {}),
        },
        (res) => {
          const chunks: Buffer[] = [];
          // Only the first words of an error answer are said: keep no more than that.
          let kept = 0;
          res.on('data', (chunk: Buffer) => {
            if (kept >= REPLY_KEPT_BYTES) return;
            chunks.push(chunk);
            kept += chunk.length;
          });
          res.on('error', (cause) => resolve(E.left(failure(cause))));
          res.on('end', () => {
            const status = res.statusCode ?? 0;
            if (status >= 200 && status < 300) return resolve(E.right(undefined));
            const said = Buffer.concat(chunks).toString('utf8').replace(/\s+/g, ' ').trim().slice(0, 200);
            resolve(E.left(transport(`${what} answered ${status}${said === '' ? '' : `: ${said}`}`)));
          });
        },
      );
      req.on('error', (cause) => resolve(E.left(failure(cause))));
      req.end(body);
    });
  });
};
