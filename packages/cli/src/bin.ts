import type { Connect } from './connection.js';
import { guardedOutput } from './process-output.js';
import { stopOnSignal } from './stop-on-signal.js';

// The process boundary: argv, environment and streams in, exit code out.
// Everything else is testable through main(). Modules are loaded only as a
// command needs them: `--version` evaluates nothing else, and only the
// commands that talk to a cluster evaluate the Kubernetes client — which
// costs most of the start-up time and memory (the bundle keeps every
// dynamically imported module behind a lazy initialiser).
declare const IMAGE_REFRESH_VERSION: string;

/** How long a finished command may take to let go of its last socket. */
const EXIT_GRACE_MS = 500;

const CLUSTER_COMMANDS = new Set(['tick', 'status', 'rearm']);
const [command] = process.argv.slice(2);

if (command === '--version') {
  process.stdout.write(`${typeof IMAGE_REFRESH_VERSION === 'string' ? IMAGE_REFRESH_VERSION : '0.0.0-dev'}\n`);
} else {
  const noCluster: Connect = () => {
    throw new Error('this command does not talk to a cluster');
  };
  const connect = CLUSTER_COMMANDS.has(command ?? '')
    ? (await import('./wiring/connect.js')).connectToCluster(process.env)
    : noCluster;
  const { main } = await import('./main.js');
  // A closed pipe (`| head -1`) ends output quietly, never the command (docs/behaviour.md §3, Bounds).
  const out = guardedOutput(process.stdout, process.stderr, '[image-refresh]');
  // promote's Prometheus queries end at a signal too (docs/fleet-promotion.md).
  const interrupt = command === 'tick' || command === 'promote' ? stopOnSignal() : undefined;
  const result = await main(process.argv.slice(2), out, {
    env: process.env,
    connect,
    ...(interrupt === undefined ? {} : { interrupt }),
  });
  process.exitCode = result.exitCode;
  // The command is over and has said so (a tick: its summary line). Its own
  // signal aborted every request it made; should anything still hold the
  // event loop (a socket a library keeps alive), the process ends anyway,
  // well within a second of that line (docs/behaviour.md §3, Bounds).
  setTimeout(() => process.exit(result.exitCode), EXIT_GRACE_MS).unref();
}
