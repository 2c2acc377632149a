import { type HttpFetch, nodeHttpFetch } from '../../src/registry/http-transport.js';

// The adapter's fetch in tests: anything but 127.0.0.1 is refused loudly
// (as the chart's bats suite's stub does: a fake that fails on what it does not model), so no test can
// reach Docker Hub or any other host, whatever the code under test does.

export const localOnlyFetch: typeof fetch = (input, init) => {
  const url = new URL(input instanceof Request ? input.url : input);
  if (url.hostname !== '127.0.0.1') {
    return Promise.reject(new Error(`test refused a request to ${url.origin}: tests only reach 127.0.0.1`));
  }
  return fetch(input, init);
};

/** The same guard on the transport the adapter ships with (node:http/https, http-transport.ts). */
export const localOnlyHttp: HttpFetch = (url, init) =>
  url.hostname === '127.0.0.1'
    ? nodeHttpFetch(url, init)
    : Promise.reject(new Error(`test refused a request to ${url.origin}: tests only reach 127.0.0.1`));
