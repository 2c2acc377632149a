import { existsSync, readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { startLocalDaemon } from './local-daemon.js';
import type { PrivateRegistry } from './private-registry.js';
import { quietFilesystemRegistry, REGISTRY_BINARY, startRegistry } from './registry-process.js';
import { startTokenServer, TOKEN_ISSUER, TOKEN_SERVICE, type TokenServer } from './registry-token-server.js';

// "Follow upstream, pull through the mirror": a fleet that resolves digests
// against its private registry but pulls through a pull-through cache in
// front of it. This is that cache for real: a second Debian docker-registry
// (distribution 2.8) in proxy mode (`proxy: remoteurl:`), its own storage,
// plain http on 127.0.0.1, trusting the upstream's test CA through
// SSL_CERT_FILE (it GETs the upstream's /v2/ while starting, and exits if
// that fails). registry-process.ts's config has no proxy section, so the
// config is written here; the process is run by local-daemon.ts.
//
// Distribution 2.8's proxy answers only Bearer challenges: in front of an
// htpasswd (Basic) upstream such as startPrivateRegistry().url every pull
// fails, 500 UNKNOWN wrapping the upstream's UNAUTHORIZED (Basic came in
// v3.0.0, distribution commit 1e8ea03). startTokenUpstream serves the same
// private registry — its storage, certificate and CA — with token auth, as
// Harbor does, and that upstream the proxy can log in to.

export interface ProxyUpstream {
  readonly url: string;
  readonly caFile?: string;
  readonly username?: string;
  readonly password?: string;
}

export interface ProxyRegistry {
  /** `http://127.0.0.1:<port>`. */
  readonly url: string;
  /** `127.0.0.1:<port>`. */
  readonly host: string;
  /** The cache's own storage root (removed by stop()). */
  readonly storage: string;
  stop(): Promise<void>;
}

const ENV_BINARY = '/usr/bin/env';

const config = (storage: string, port: number, upstream: ProxyUpstream): string =>
  [
    ...quietFilesystemRegistry(storage),
    'http:',
    `  addr: 127.0.0.1:${port}`,
    'proxy:',
    `  remoteurl: ${JSON.stringify(upstream.url)}`,
    ...(upstream.username === undefined ? [] : [`  username: ${JSON.stringify(upstream.username)}`]),
    ...(upstream.password === undefined ? [] : [`  password: ${JSON.stringify(upstream.password)}`]),
    '',
  ].join('\n');

export const startProxyRegistry = async (upstream: ProxyUpstream): Promise<ProxyRegistry> => {
  if (!existsSync(REGISTRY_BINARY)) throw new Error(`the proxy registry needs ${REGISTRY_BINARY}`);
  let storage = '';
  // local-daemon gives the child PATH only; env(1) adds SSL_CERT_FILE and execs the registry (same pid for stop()).
  const daemon = await startLocalDaemon({
    binary: ENV_BINARY,
    name: 'docker-registry (proxy)',
    dirPrefix: 'image-refresh-proxy-registry-',
    args: async (port, dir) => {
      storage = join(dir, 'storage');
      const configFile = join(dir, 'config.yml');
      await writeFile(configFile, config(storage, port, upstream));
      const trust = upstream.caFile === undefined ? [] : [`SSL_CERT_FILE=${upstream.caFile}`];
      return [...trust, REGISTRY_BINARY, 'serve', configFile];
    },
    readyPath: '/v2/',
    readyStatuses: [200],
    readyWithinMs: 10_000,
    pollEveryMs: 20,
  });
  return { url: daemon.url, host: new URL(daemon.url).host, storage, stop: daemon.stop };
};

export interface TokenUpstream extends Required<ProxyUpstream> {
  /** The token server: its `seen` shows the Basic login the proxy sends for a token. */
  readonly tokens: TokenServer;
  /** Safe to call twice. */
  stop(): Promise<void>;
}

/**
 * `registry`'s storage over https (its certificate, same CA) behind bearer
 * tokens from an issuer that serves https with the same certificate and hands
 * tokens only to `registry`'s own login, as a private registry's does.
 */
export const startTokenUpstream = async (registry: PrivateRegistry): Promise<TokenUpstream> => {
  const tokens = await startTokenServer({
    tls: {
      cert: readFileSync(join(registry.dir, 'server.pem'), 'utf8'),
      key: readFileSync(join(registry.dir, 'server.key'), 'utf8'),
    },
    login: { username: registry.username, password: registry.password },
  });
  // private-registry.ts keeps its storage and server key pair in `dir`.
  const served = await startRegistry(
    { realm: tokens.realm, service: TOKEN_SERVICE, issuer: TOKEN_ISSUER, certificatePem: tokens.certificatePem },
    {
      storageRoot: join(registry.dir, 'storage'),
      tls: { certificateFile: join(registry.dir, 'server.pem'), keyFile: join(registry.dir, 'server.key') },
    },
  ).catch(async (error: unknown) => {
    await tokens.close();
    throw error;
  });
  let stopped: Promise<void> | undefined;
  return {
    url: `https://${new URL(served.url).host}`,
    caFile: registry.caFile,
    username: registry.username,
    password: registry.password,
    tokens,
    // Idempotent: a test stops the upstream to prove the cache serves alone, its afterAll again.
    stop: () => {
      stopped ??= served.stop().then(() => tokens.close());
      return stopped;
    },
  };
};
