// Bundled in place of the `whatwg-url` package (the `alias` option of
// build/bundle.mjs). node-fetch 2, which @kubernetes/client-node 1.4 brings, loads it
// only as a fallback for `require('url').URL`, which every supported Node
// has; loading it anyway pulled in tr46, whose `require("punycode")` makes
// Node >= 21 print a DEP0040 DeprecationWarning on stderr at every run of the
// image (Node 24) — after the summary line an operator's grep expects last —
// and added ~280 kB of Unicode tables to the bundle.
module.exports = { URL: globalThis.URL, URLSearchParams: globalThis.URLSearchParams };
