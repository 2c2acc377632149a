import { readFileSync } from 'node:fs';
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { createServer, request as httpsRequest, type RequestOptions, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { classifyRequest } from '../api-routes.js';
import { type ArmedFault, type Fault, type FaultMatch, matches, statusBody } from '../fake-api-faults.js';
import type { RecordedRequest } from '../fake-api-server.js';

// A proxy in front of the real kube-apiserver, for what a real server cannot
// be told to do: hang, drop a connection, answer a 500 to one request. It
// serves TLS with the apiserver's own certificate (the control plane's CA
// signs it for 127.0.0.1, whatever the port), forwards every request as it
// came — the bearer token included, so the apiserver authenticates and
// authorizes the caller itself — and records each one in the fake API
// server's shape (route, kind, name, body, status), so a test asserts the
// same wire facts on either server. A fault armed for a route answers the
// next matching request instead of the apiserver, exactly as the fake does.

export interface ApiProxy {
  /** `https://127.0.0.1:<port>`: what a kubeconfig for this proxy names. */
  readonly url: string;
  readonly requests: readonly RecordedRequest[];
  inject(match: FaultMatch, fault: Fault, times?: number): void;
  clearFaults(): void;
  resetLog(): void;
  close(): Promise<void>;
}

export interface ApiProxyOptions {
  /** The apiserver, `https://127.0.0.1:<port>`. */
  readonly upstream: string;
  /** The control plane's CA: the proxy verifies the apiserver with it. */
  readonly caFile: string;
  /** The certificate and key the proxy serves (the apiserver's own). */
  readonly certFile: string;
  readonly keyFile: string;
}

/** Hop-by-hop headers (RFC 9110 §7.6.1) are the proxy's own business, never forwarded. */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'upgrade', 'proxy-connection', 'te']);

const forwardable = (headers: IncomingHttpHeaders): Record<string, string | string[]> =>
  Object.fromEntries(
    Object.entries(headers).flatMap(([name, value]): [string, string | string[]][] =>
      value === undefined || HOP_BY_HOP.has(name) || name === 'host' ? [] : [[name, value]],
    ),
  );

const readBody = (req: IncomingMessage): Promise<Buffer> =>
  new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });

export const startApiProxy = async (options: ApiProxyOptions): Promise<ApiProxy> => {
  const upstream = new URL(options.upstream);
  const ca = readFileSync(options.caFile);
  const requests: RecordedRequest[] = [];
  let faults: ArmedFault[] = [];
  const timers = new Set<ReturnType<typeof setTimeout>>();

  const takeFault = (facts: Parameters<typeof matches>[1]): Fault | undefined => {
    const armed = faults.find((f) => f.remaining > 0 && matches(f.match, facts));
    if (armed === undefined) return undefined;
    armed.remaining -= 1;
    return armed.fault;
  };

  const forward = (req: IncomingMessage, body: Buffer, res: ServerResponse, record: RecordedRequest): void => {
    const target: RequestOptions = {
      protocol: upstream.protocol,
      hostname: upstream.hostname,
      port: upstream.port,
      path: req.url,
      method: req.method,
      headers: { ...forwardable(req.headers), 'content-length': String(body.length) },
      ca,
    };
    const upstreamRequest = httpsRequest(target, (answer) => {
      record.status = answer.statusCode;
      res.writeHead(answer.statusCode ?? 502, forwardable(answer.headers));
      answer.pipe(res);
    });
    upstreamRequest.on('error', (error) => {
      if (res.headersSent) res.destroy();
      else answerStatus(res, 502, `api proxy: the apiserver could not be reached: ${error.message}`);
    });
    // A client that gives up (its timeout) ends the forwarded request too: nothing stays in flight.
    res.on('close', () => upstreamRequest.destroy());
    upstreamRequest.end(body);
  };

  const answerStatus = (res: ServerResponse, code: number, message: string, reason?: string): void => {
    const text = statusBody(code, message, reason);
    res.writeHead(code, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
    res.end(text);
  };

  const answerFault = (fault: Fault, res: ServerResponse, record: RecordedRequest, serve: () => void): void => {
    record.fault = fault.kind;
    switch (fault.kind) {
      case 'status':
        record.status = fault.code;
        answerStatus(res, fault.code, fault.message ?? `injected ${fault.code}`, fault.reason);
        return;
      case 'raw':
        record.status = fault.code;
        res.writeHead(fault.code, { 'content-type': fault.contentType });
        res.end(fault.body);
        return;
      case 'hang':
        return;
      case 'hangBody':
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write('{"kind":"Deployment","apiVersion":"apps/v1","metadata":{');
        return;
      case 'malformed':
      case 'wrongShape': {
        const text = fault.kind === 'malformed' ? '{"kind":"Deployment","metadata":{"name":' : fault.body;
        record.status = 200;
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
        res.end(text);
        return;
      }
      case 'reset':
        record.status = 0;
        res.socket?.destroy();
        return;
      case 'delay': {
        const timer = setTimeout(() => {
          timers.delete(timer);
          serve();
        }, fault.ms);
        timers.add(timer);
        return;
      }
    }
  };

  const server: Server = createServer(
    { cert: readFileSync(options.certFile), key: readFileSync(options.keyFile) },
    (req, res) => {
      readBody(req).then(
        (body) => {
          const url = new URL(req.url ?? '/', 'https://127.0.0.1');
          const query = Object.fromEntries(url.searchParams);
          const method = req.method ?? 'GET';
          const { route, kind, namespace, name } = classifyRequest(method, url.pathname, query);
          const text = body.toString('utf8');
          const record: RecordedRequest = {
            method,
            path: url.pathname,
            query,
            route: route ?? 'unexpected',
            kind,
            namespace,
            name,
            contentType: req.headers['content-type'],
            userAgent: req.headers['user-agent'],
            body: text,
            // The apiserver, not the proxy, judges credentials: a request with one is "token" here.
            auth: req.headers.authorization === undefined ? 'anonymous' : 'token',
          };
          requests.push(record);
          const serve = () => forward(req, body, res, record);
          const fault = route === undefined ? undefined : takeFault({ route, method, kind, name, body: text });
          if (fault === undefined) serve();
          else answerFault(fault, res, record, serve);
        },
        (error: Error) => res.destroy(error),
      );
    },
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `https://127.0.0.1:${port}`,
    requests,
    inject: (match, fault, times = 1) => {
      faults.push({ match, fault, remaining: times });
    },
    clearFaults: () => {
      faults = [];
    },
    resetLog: () => {
      requests.length = 0;
    },
    close: async () => {
      for (const timer of timers) clearTimeout(timer);
      server.closeAllConnections();
      await new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));
    },
  };
};
