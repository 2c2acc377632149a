import { AbortError, ApiException, FetchError } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { classifyApiError } from '../../src/cluster/classify-api-error.js';
import { redactSecrets } from '../../src/cluster/redact-secrets.js';

// The failures the fake API server cannot produce without leaving
// 127.0.0.1 (a DNS failure) or that client-node raises on its own, fed to the
// classifier as client-node would throw them.

const facts = {
  what: 'GET deployment/stg-jobs-manager in tracebloc',
  timeoutMs: 15_000,
  secrets: ['s3cr3t-token-value'],
};

describe('classifyApiError', () => {
  it('a DNS failure is Transport, naming the code', () => {
    const e = new FetchError(
      'request to https://kubernetes.invalid/apis/apps/v1 failed, reason: getaddrinfo ENOTFOUND kubernetes.invalid',
      'system',
      Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' }),
    );
    const error = classifyApiError(e, facts);
    expect(error._tag).toBe('Transport');
    expect(error.message).toContain('ENOTFOUND kubernetes.invalid');
  });

  it('node-fetch’s AbortError is a Timeout that names the bound', () => {
    expect(classifyApiError(new AbortError('The operation was aborted.'), facts)).toEqual({
      _tag: 'Timeout',
      message: `${facts.what}: no answer within 15000 ms (API_TIMEOUT); the request was aborted`,
    });
  });

  it("a 403 is Forbidden with the server's Status message: RBAC knew who asked and refused", () => {
    const body = JSON.stringify({ kind: 'Status', message: 'deployments.apps "x" is forbidden: User "y" cannot get' });
    expect(classifyApiError(new ApiException(403, 'Forbidden', body, {}), facts)).toEqual({
      _tag: 'Forbidden',
      status: 403,
      message: `${facts.what}: deployments.apps "x" is forbidden: User "y" cannot get`,
    });
  });

  it('a 401, whose body client-node drops, is Unauthorized, not Forbidden: a credential fixes it, not a Role', () => {
    expect(classifyApiError(new ApiException(401, 'Unauthorized', undefined, {}), facts)).toEqual({
      _tag: 'Unauthorized',
      status: 401,
      message: `${facts.what}: Unauthorized`,
    });
  });

  it('a Status body arriving as a Buffer still yields its message', () => {
    const body = Buffer.from(JSON.stringify({ kind: 'Status', message: 'quota exceeded', code: 409 }));
    expect(classifyApiError(new ApiException(409, 'Unknown API Status Code!', body, {}), facts)).toEqual({
      _tag: 'Transport',
      status: 409,
      message: `${facts.what}: quota exceeded`,
    });
  });

  it('a thrown non-Error is still a failure, with its text', () => {
    expect(classifyApiError('something odd', facts)).toEqual({
      _tag: 'Transport',
      message: `${facts.what}: something odd`,
    });
  });

  it('removes the known secret from whatever it reports', () => {
    const error = classifyApiError(new Error('token file said s3cr3t-token-value'), facts);
    expect(error.message).not.toContain('s3cr3t-token-value');
  });
});

describe('redactSecrets', () => {
  it.each([
    ['Authorization: Bearer abc.def-ghi', 'Authorization: Bearer [REDACTED]'],
    ['"token": "abcdefghijkl"', '"token": "[REDACTED]"'],
    ['    token: plain-yaml-token', '    token: [REDACTED]'],
    ['client-key-data=LS0tLS1CRUdJTg==', 'client-key-data=[REDACTED]'],
    ['deployments.apps "x" not found', 'deployments.apps "x" not found'],
    ['Unauthorized: token has expired', 'Unauthorized: token has expired'],
  ])('%s → %s', (text, redacted) => {
    expect(redactSecrets(text)).toBe(redacted);
  });
});
