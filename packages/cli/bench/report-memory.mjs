// Preloaded into each benchmarked process (node --import): its own peak RSS
// (getrusage maxRSS) and heap at exit, on stderr, for bench/steady-tick.ts.
process.on('exit', () => {
  const m = process.memoryUsage();
  const mib = (n) => (n / 1048576).toFixed(1);
  process.stderr.write(`maxrss-kb ${process.resourceUsage().maxRSS}\n`);
  process.stderr.write(`at exit: heap ${mib(m.heapUsed)}/${mib(m.heapTotal)} MiB, external ${mib(m.external)} MiB\n`);
});
