import type { Connect } from './connection.js';
import { main } from './main.js';

// The process boundary: argv, environment and streams in, exit code out.
// Everything else is testable through main(). The Kubernetes client is
// imported only by the commands that talk to a cluster: evaluating it costs
// most of the start-up time and memory, which `--version`, `simulate` and
// `diagram` need not pay (the bundle keeps it behind a lazy initialiser).
const CLUSTER_COMMANDS = new Set(['tick', 'status', 'rearm']);

const noCluster: Connect = () => {
  throw new Error('this command does not talk to a cluster');
};

const connect = CLUSTER_COMMANDS.has(process.argv[2] ?? '')
  ? (await import('./wiring/connect.js')).connectToCluster(process.env)
  : noCluster;

const result = await main(
  process.argv.slice(2),
  {
    stdout: (line) => process.stdout.write(`${line}\n`),
    stderr: (line) => process.stderr.write(`${line}\n`),
  },
  { env: process.env, connect },
);
process.exitCode = result.exitCode;
