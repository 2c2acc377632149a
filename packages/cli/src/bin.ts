import type { Connect } from './connection.js';
import { guardedOutput } from './process-output.js';

// The process boundary: argv, environment and streams in, exit code out.
// Everything else is testable through main(). Modules are loaded only as a
// command needs them: `--version` evaluates nothing else, and only the
// commands that talk to a cluster evaluate the Kubernetes client — which
// costs most of the start-up time and memory (the bundle keeps every
// dynamically imported module behind a lazy initialiser).
declare const IMAGE_REFRESH_VERSION: string;

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
  // A closed pipe (`| head -1`) ends output quietly, never the command (issue 13).
  const out = guardedOutput(process.stdout, process.stderr, '[image-refresh]');
  const result = await main(process.argv.slice(2), out, { env: process.env, connect });
  process.exitCode = result.exitCode;
}
