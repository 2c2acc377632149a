import {
  ApiException,
  type Configuration,
  HttpMethod,
  type ObservableMiddleware,
  type RequestContext,
  type ResponseContext,
} from '@kubernetes/client-node';
import type { CallOptions } from '../cluster/bounded-client.js';

// The four pod requests staging makes (list, create, get, delete), on
// client-node's own request pipeline — its Configuration (server, auth, the
// bounded client's HTTP library that refuses an unbounded request), its
// middleware order (configured, then per-call `append`ed; post in reverse)
// and its ApiException for any answer that is not 2xx — without its generated
// core/v1 client: that adds some 570 KB to the bundle every tick would load
// (README, Benchmarks), for four URLs. Bodies stay plain JSON: the callers
// read pods as unchecked data (staging-state.ts), never as model classes.

const JSON_ACCEPT = 'application/json, */*;q=0.8';

/** A pod list, as far as staging reads it. */
export interface PodList {
  readonly items: readonly unknown[];
}

const encoded = (value: string): string => encodeURIComponent(value);

export class PodsApi {
  constructor(private readonly configuration: Configuration) {}

  /** client-node's mergeConfiguration for middleware: per-call middleware replaces, appends or prepends. */
  private middlewareFor(options: CallOptions | undefined): ObservableMiddleware[] {
    const configured = this.configuration.middleware;
    const calltime = options?.middleware;
    if (calltime === undefined) return [...configured];
    switch (options?.middlewareMergeStrategy ?? 'replace') {
      case 'append':
        return [...configured, ...calltime];
      case 'prepend':
        return [...calltime, ...configured];
      default:
        return [...calltime];
    }
  }

  private async send(
    method: HttpMethod,
    path: string,
    query: Readonly<Record<string, string>>,
    body: unknown,
    options: CallOptions | undefined,
  ): Promise<unknown> {
    const baseServer = options?.baseServer ?? this.configuration.baseServer;
    const httpApi = options?.httpApi ?? this.configuration.httpApi;
    const authMethods = options?.authMethods ?? this.configuration.authMethods;
    let context: RequestContext = baseServer.makeRequestContext(path, method);
    context.setHeaderParam('Accept', JSON_ACCEPT);
    for (const [key, value] of Object.entries(query)) context.setQueryParam(key, value);
    if (body !== undefined) {
      context.setHeaderParam('Content-Type', 'application/json');
      context.setBody(JSON.stringify(body));
    }
    const auth = authMethods.default;
    if (auth?.applySecurityAuthentication !== undefined) await auth.applySecurityAuthentication(context);
    const middleware = this.middlewareFor(options);
    for (const m of middleware) context = await m.pre(context).toPromise();
    let response: ResponseContext = await httpApi.send(context).toPromise();
    for (const m of [...middleware].reverse()) response = await m.post(response).toPromise();
    const code = response.httpStatusCode;
    if (code === 401) throw new ApiException(code, 'Unauthorized', undefined, response.headers);
    if (code < 200 || code > 299) {
      throw new ApiException(code, 'Unknown API Status Code!', await response.getBodyAsAny(), response.headers);
    }
    const text = await response.body.text();
    return text === '' ? {} : (JSON.parse(text) as unknown);
  }

  /** GET /api/v1/namespaces/{namespace}/pods?labelSelector=… */
  async listNamespacedPod(
    params: { readonly namespace: string; readonly labelSelector: string },
    options?: CallOptions,
  ): Promise<PodList> {
    const answer = await this.send(
      HttpMethod.GET,
      `/api/v1/namespaces/${encoded(params.namespace)}/pods`,
      { labelSelector: params.labelSelector },
      undefined,
      options,
    );
    const items = (answer as { items?: unknown } | null)?.items;
    return { items: Array.isArray(items) ? items : [] };
  }

  /** POST /api/v1/namespaces/{namespace}/pods */
  createNamespacedPod(params: { readonly namespace: string; readonly body: unknown }, options?: CallOptions) {
    return this.send(HttpMethod.POST, `/api/v1/namespaces/${encoded(params.namespace)}/pods`, {}, params.body, options);
  }

  /** GET /api/v1/namespaces/{namespace}/pods/{name} */
  readNamespacedPod(params: { readonly name: string; readonly namespace: string }, options?: CallOptions) {
    return this.send(
      HttpMethod.GET,
      `/api/v1/namespaces/${encoded(params.namespace)}/pods/${encoded(params.name)}`,
      {},
      undefined,
      options,
    );
  }

  /** DELETE /api/v1/namespaces/{namespace}/pods/{name}?gracePeriodSeconds=… */
  deleteNamespacedPod(
    params: { readonly name: string; readonly namespace: string; readonly gracePeriodSeconds: number },
    options?: CallOptions,
  ) {
    return this.send(
      HttpMethod.DELETE,
      `/api/v1/namespaces/${encoded(params.namespace)}/pods/${encoded(params.name)}`,
      { gracePeriodSeconds: String(params.gracePeriodSeconds) },
      undefined,
      options,
    );
  }
}
