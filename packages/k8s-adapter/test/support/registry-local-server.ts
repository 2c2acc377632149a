import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
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

export const listenLocal = async (handler: Handler): Promise<LocalServer> => {
  const seen: SeenRequest[] = [];
  const server: Server = createServer((request, response) => {
    seen.push({
      method: request.method ?? '',
      url: request.url ?? '',
      authorization: request.headers.authorization,
      accept: request.headers.accept,
    });
    handler(request, response);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
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
