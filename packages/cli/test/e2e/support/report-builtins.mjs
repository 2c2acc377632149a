// Preloaded (NODE_OPTIONS=--import) into a bundle run by bundle-process.test.ts:
// at exit, which of Node's own public modules the process loaded, on stderr.
process.on('exit', () => {
  const loaded = process.moduleLoadList
    .filter((entry) => entry.startsWith('NativeModule ') && !entry.includes('internal/'))
    .map((entry) => entry.slice('NativeModule '.length));
  process.stderr.write(`builtins-loaded ${JSON.stringify(loaded)}\n`);
});
