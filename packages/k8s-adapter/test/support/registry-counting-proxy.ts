import { request as forward } from 'node:http';
import { type LocalServer, listenLocal } from './registry-local-server.js';

// Counts what actually reaches the registry: the request budget is asserted
// on the wire, not on the adapter's intentions. Forwards verbatim to one
// 127.0.0.1 target.

export const startCountingProxy = async (target: string): Promise<LocalServer> =>
  listenLocal((incoming, outgoing) => {
    const upstream = forward(
      new URL(incoming.url ?? '/', target),
      { method: incoming.method, headers: { ...incoming.headers, host: new URL(target).host } },
      (answer) => {
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(outgoing);
      },
    );
    upstream.on('error', (error) => {
      outgoing.writeHead(502, { 'content-type': 'text/plain' });
      outgoing.end(`proxy: ${error.message}`);
    });
    incoming.pipe(upstream);
  });
