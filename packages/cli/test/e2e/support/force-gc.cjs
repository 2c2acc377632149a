// Preloaded into the bundle's process (`node --expose-gc --require force-gc.cjs`):
// a full garbage collection every 100 ms, so whatever a request or wait holds
// only weakly is gone long before its bound. Node 20 lets a composite
// AbortSignal (AbortSignal.any) and the timeout signal inside it be collected
// while a request still waits on them (nodejs/node#55428, nodejs/undici#4068);
// without a collection inside the hang a test never sees it. Unref'd: it never
// keeps the process alive.
if (typeof globalThis.gc !== 'function') {
  throw new Error('force-gc.cjs needs node --expose-gc: without it the collection it promises never happens');
}
setInterval(() => globalThis.gc(), 100).unref();
