import { INTERRUPTED_EXIT, interruptedBy } from '@image-refresh/core';

// SIGTERM is what Kubernetes sends at the Job's activeDeadlineSeconds, on a
// node drain or an eviction; SIGINT is a terminal's Ctrl-C. Node's default
// for both ended the process in milliseconds with no line, no summary and no
// Event (docs/behaviour.md §3, Signals). The first signal aborts the tick's
// interrupt signal: the tick starts no further call, its waits and reads end,
// it says where it was, records RefreshInterrupted and prints its summary, exit
// 143 / 130. A second signal exits at once — whoever sends it does not want to
// wait.

const SIGNALS = ['SIGTERM', 'SIGINT'] as const;

/** Installs the handlers; the signal a tick stops at. */
export const stopOnSignal = (): AbortSignal => {
  const stop = new AbortController();
  for (const name of SIGNALS) {
    process.on(name, () => {
      if (stop.signal.aborted) process.exit(INTERRUPTED_EXIT[name]);
      stop.abort(interruptedBy(name));
    });
  }
  return stop.signal;
};
