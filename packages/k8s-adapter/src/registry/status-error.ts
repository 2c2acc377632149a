import { forbidden, notFound, type RegistryError, transport, unauthorized } from '@image-refresh/core';
import * as O from 'fp-ts/lib/Option.js';
import type { HeaderReader } from './http-transport.js';
import { describeBudget, type RateLimitBudget } from './rate-limit.js';

// The classification, one place: 429 RateLimited, 401 Unauthorized (the
// credentials, or their absence), 403 Forbidden (the permission),
// 404 NotFound, anything else Transport (5xx: the registry failed; an
// unexpected 4xx or 3xx: the exchange failed). Each message keeps what the
// server said (`detail`) for the operator (#571).

export interface StatusContext {
  /** `HEAD https://host/v2/repo/manifests/tag`, already free of secrets. */
  readonly what: string;
  readonly status: number;
  readonly headers: HeaderReader;
  /** The server's own message, when it sent one. */
  readonly detail: string | undefined;
  readonly budget: O.Option<RateLimitBudget>;
}

const retryAfter = (headers: HeaderReader): string | undefined => {
  const value = headers.get('retry-after')?.trim();
  if (value === undefined || value === '') return undefined;
  return /^\d+$/.test(value) ? `retry after ${value} s` : `retry after ${value}`;
};

export const statusError = (c: StatusContext): RegistryError => {
  const said = c.detail === undefined ? '' : `: ${c.detail}`;
  const message = `${c.what} answered HTTP ${c.status}${said}`;
  if (c.status === 429) {
    const hints = [retryAfter(c.headers), O.isSome(c.budget) ? describeBudget(c.budget.value) : undefined].filter(
      (h): h is string => h !== undefined,
    );
    return {
      _tag: 'RateLimited',
      message: `${message} (the pull budget of this IP is spent${hints.length > 0 ? `; ${hints.join('; ')}` : ''})`,
    };
  }
  if (c.status === 401) return unauthorized(message, c.status);
  if (c.status === 403) return forbidden(message, c.status);
  if (c.status === 404) return notFound(message, c.status);
  return transport(message, c.status);
};
