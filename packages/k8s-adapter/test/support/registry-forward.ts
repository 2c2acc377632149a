import { request as forward, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';

// The one forwarding step every registry proxy of the tests shares: the
// request goes verbatim to one 127.0.0.1 target, the answer comes back
// verbatim unless the proxy restamps its headers (the budget proxy adds
// Docker Hub's ratelimit headers). A dead target is a 502 naming the cause.

/** Headers to send back for an upstream answer of `status`; the upstream's own by default. */
export type RestampHeaders = (status: number, headers: IncomingHttpHeaders) => IncomingHttpHeaders;

export const forwardTo = (
  target: string,
  incoming: IncomingMessage,
  outgoing: ServerResponse,
  restamp: RestampHeaders = (_status, headers) => headers,
): void => {
  const upstream = forward(
    new URL(incoming.url ?? '/', target),
    { method: incoming.method, headers: { ...incoming.headers, host: new URL(target).host } },
    (answer) => {
      const status = answer.statusCode ?? 502;
      outgoing.writeHead(status, restamp(status, answer.headers));
      answer.pipe(outgoing);
    },
  );
  upstream.on('error', (error) => {
    outgoing.writeHead(502, { 'content-type': 'text/plain' });
    outgoing.end(`proxy: ${error.message}`);
  });
  incoming.pipe(upstream);
};

const MANIFEST_PATH = /^\/v2\/(.+)\/manifests\/[^/]+$/;

/** The repository a manifest request names, or undefined for any other request. */
export const manifestRepo = (incoming: IncomingMessage): string | undefined =>
  MANIFEST_PATH.exec(new URL(incoming.url ?? '/', 'http://127.0.0.1').pathname)?.[1];
