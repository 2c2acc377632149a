// Bundled in place of node-fetch 2's `Url.parse` (the `node-fetch-whatwg-parse`
// plugin of build/bundle.mjs). node-fetch, which @kubernetes/client-node 1.4
// sends every request through, turns each request URL into the legacy
// url.parse() object it hands to http.request; on Node 24 (the image) that
// call prints a DEP0169 DeprecationWarning on stderr at every run, in the log
// an operator greps. The same fields, read off the WHATWG URL instead. Every
// URL client-node builds is absolute; a relative one throws a TypeError here,
// as node-fetch's own "Only absolute URLs are supported" check would.
module.exports = function parseWithWhatwgUrl(input) {
  const url = new URL(input);
  const user = decodeURIComponent(url.username);
  const auth = url.username === '' ? null : url.password === '' ? user : `${user}:${decodeURIComponent(url.password)}`;
  return {
    protocol: url.protocol,
    slashes: true,
    auth,
    host: url.host,
    port: url.port === '' ? null : url.port,
    // url.parse() gives an IPv6 hostname without its brackets, as http.request wants it.
    hostname: url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname,
    hash: url.hash === '' ? null : url.hash,
    search: url.search === '' ? null : url.search,
    query: url.search === '' ? null : url.search.slice(1),
    pathname: url.pathname,
    path: `${url.pathname}${url.search}`,
    href: url.href,
  };
};
