import { generateKeyPairSync, type KeyObject, randomBytes, sign } from 'node:crypto';
import { type LocalServer, type LocalTls, listenLocal } from './registry-local-server.js';
import { pem, selfSignedCertificate } from './registry-x509.js';

// The token half of distribution's token auth (`auth.token` in the registry
// config): GET /token?service=…&scope=…&scope=… answers an RS256 JWT whose
// `access` claim grants the requested pulls. The header carries the signing
// certificate as `x5c`; the registry checks it against `rootcertbundle`.
// `behaviour` switches the grants to reproduce real token servers' faults.

export const TOKEN_ISSUER = 'image-refresh-test-issuer';
export const TOKEN_SERVICE = 'image-refresh-test-registry';

export type TokenBehaviour =
  /** Every requested scope granted, every requested action. */
  | 'grant'
  /** Docker Hub's multi-scope bug: only the first scope of a batch is granted. */
  | 'grant-first-scope-only'
  /** A 400 with a distribution error body whenever more than one scope is asked for. */
  | 'refuse-batch'
  /** A signed token that grants nothing: the registry answers 401 insufficient_scope. */
  | 'grant-nothing';

/** How the token server fails a request naming one repository (`failFor`). */
export type TokenFault =
  /** Never answers; the connection stays open until close(). */
  | { readonly kind: 'hang' }
  /** An HTTP error with Docker Hub's token-endpoint body (`{"details": …}`). */
  | { readonly kind: 'status'; readonly code: number };

export interface TokenServer extends LocalServer {
  readonly realm: string;
  /** PEM of the signing certificate, for the registry's rootcertbundle. */
  readonly certificatePem: string;
  /** The scopes of each token request, in order. */
  readonly scopeRequests: string[][];
  /** Every token handed out, to prove none leaks into a message. */
  readonly issued: string[];
  behaviour: TokenBehaviour;
  /** A token for pushing in test setup; not counted, not issued over HTTP. */
  mint(scopes: readonly string[]): string;
  /**
   * From now on fail every token request whose scopes name `repo` (after
   * `refuse-batch` has had its say, so with it only that repo's own request).
   */
  failFor(repo: string, fault: TokenFault): void;
  /** Forget every `failFor`. */
  healAll(): void;
}

const base64url = (value: Buffer | string): string => Buffer.from(value).toString('base64url');

interface Grant {
  readonly type: string;
  readonly name: string;
  readonly actions: readonly string[];
}

/** `repository:tracebloc/jobs-manager:pull,push` → a grant (the name may hold ':' for a port). */
const grantOf = (scope: string): Grant | undefined => {
  const first = scope.indexOf(':');
  const last = scope.lastIndexOf(':');
  if (first < 0 || last <= first) return undefined;
  return { type: scope.slice(0, first), name: scope.slice(first + 1, last), actions: scope.slice(last + 1).split(',') };
};

const signJwt = (privateKey: KeyObject, certificate: Buffer, grants: readonly Grant[]): string => {
  const now = Math.floor(Date.now() / 1000);
  const header = { typ: 'JWT', alg: 'RS256', x5c: [certificate.toString('base64')] };
  const claims = {
    iss: TOKEN_ISSUER,
    sub: '',
    aud: TOKEN_SERVICE,
    exp: now + 300,
    nbf: now - 10,
    iat: now,
    jti: randomBytes(12).toString('hex'),
    access: grants,
  };
  const input = `${base64url(JSON.stringify(header))}.${base64url(JSON.stringify(claims))}`;
  return `${input}.${base64url(sign('sha256', Buffer.from(input), privateKey))}`;
};

/** How a token server is reached and whom it serves; by default plain http, tokens for anyone (anonymous pulls). */
export interface TokenServerOptions {
  /** Serve https (the realm a credential may be sent to). */
  readonly tls?: LocalTls;
  /** Hand tokens only to this Basic login, as a private registry's issuer does; others get 401. */
  readonly login?: { readonly username: string; readonly password: string };
}

export const startTokenServer = async (options: TokenServerOptions = {}): Promise<TokenServer> => {
  const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const certificate = selfSignedCertificate(TOKEN_ISSUER, publicKey, privateKey);
  const scopeRequests: string[][] = [];
  const issued: string[] = [];
  const state = { behaviour: 'grant' as TokenBehaviour };
  const faults = new Map<string, TokenFault>();

  const mint = (scopes: readonly string[]): string =>
    signJwt(
      privateKey,
      certificate,
      scopes.map(grantOf).filter((g): g is Grant => g !== undefined),
    );

  const server = await listenLocal((request, response) => {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    const scopes = url.searchParams.getAll('scope');
    scopeRequests.push(scopes);
    const json = (status: number, body: unknown): void => {
      response.writeHead(status, { 'content-type': 'application/json' });
      response.end(JSON.stringify(body));
    };
    const expected =
      options.login === undefined
        ? undefined
        : `Basic ${Buffer.from(`${options.login.username}:${options.login.password}`).toString('base64')}`;
    if (expected !== undefined && request.headers.authorization !== expected) {
      json(401, { errors: [{ code: 'UNAUTHORIZED', message: 'authentication required' }] });
      return;
    }
    if (url.pathname !== '/token' || url.searchParams.get('service') !== TOKEN_SERVICE) {
      json(400, { errors: [{ code: 'UNSUPPORTED', message: `unexpected token request ${request.url}` }] });
      return;
    }
    if (state.behaviour === 'refuse-batch' && scopes.length > 1) {
      json(400, { errors: [{ code: 'DENIED', message: 'multiple scopes are not supported here' }] });
      return;
    }
    const fault = scopes.map((scope) => faults.get(grantOf(scope)?.name ?? '')).find((f) => f !== undefined);
    if (fault?.kind === 'hang') return;
    if (fault?.kind === 'status') {
      json(fault.code, { details: `the token service is unavailable (injected ${fault.code})` });
      return;
    }
    const granted =
      state.behaviour === 'grant-nothing'
        ? []
        : state.behaviour === 'grant-first-scope-only'
          ? scopes.slice(0, 1)
          : scopes;
    const token = mint(granted);
    issued.push(token);
    // Docker Hub's shape: both names, a lifetime, an issue time.
    json(200, { token, access_token: token, expires_in: 300, issued_at: new Date().toISOString() });
  }, options.tls);

  return {
    ...server,
    realm: `${server.url}/token`,
    certificatePem: pem(certificate),
    scopeRequests,
    issued,
    get behaviour() {
      return state.behaviour;
    },
    set behaviour(value: TokenBehaviour) {
      state.behaviour = value;
    },
    mint,
    failFor: (repo, fault) => {
      faults.set(repo, fault);
    },
    healAll: () => {
      faults.clear();
    },
  };
};
