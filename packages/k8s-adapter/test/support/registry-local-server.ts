import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';

// A node:http server on 127.0.0.1 with an ephemeral port that records every
// request it sees, for the token server, the counting proxy and the scripted
// fault servers. close() also drops connections a hanging handler keeps open.

export interface SeenRequest {
  readonly method: string;
  /** Path and query, as sent. */
  readonly url: string;
  readonly authorization: string | undefined;
  readonly accept: string | undefined;
}

export interface LocalServer {
  readonly url: string;
  readonly port: number;
  readonly seen: SeenRequest[];
  close(): Promise<void>;
}

export type Handler = (request: IncomingMessage, response: ServerResponse) => void;

/** A certificate and its key (PEM) to serve https with; the test makes its CA. */
export interface LocalTls {
  readonly cert: string;
  readonly key: string;
}

export const listenLocal = async (handler: Handler, tls?: LocalTls): Promise<LocalServer> => {
  const seen: SeenRequest[] = [];
  const listener = (request: IncomingMessage, response: ServerResponse): void => {
    seen.push({
      method: request.method ?? '',
      url: request.url ?? '',
      authorization: request.headers.authorization,
      accept: request.headers.accept,
    });
    handler(request, response);
  };
  const server: Server = tls === undefined ? createServer(listener) : createHttpsServer(tls, listener);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `${tls === undefined ? 'http' : 'https'}://127.0.0.1:${port}`,
    port,
    seen,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error === undefined ? resolve() : reject(error)));
      }),
  };
};

/** A port nothing listens on (just freed): a registry that is down. */
export const freePort = async (): Promise<number> => {
  const server = await listenLocal(() => undefined);
  await server.close();
  return server.port;
};
