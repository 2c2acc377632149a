#!/usr/bin/env node
// Starts a test control plane on 127.0.0.1 (cluster.mjs) from the binaries
// build.mjs made, prints its admin kubeconfig's path, and runs until SIGINT,
// SIGTERM or — with --until-stdin-closes, as the test suites start it — until
// its standard input closes (so a test runner that dies takes it along).
// Every process it started is stopped, by pid, before it exits.
//   node tools/control-plane/start.mjs            # then: export KUBECONFIG=<the path printed>
import { binDir, isBuilt } from './binaries.mjs';
import { startControlPlane } from './cluster.mjs';

const binaries = process.env.IMAGE_REFRESH_CONTROL_PLANE_BIN ?? binDir();
if (!isBuilt(binaries) && process.env.IMAGE_REFRESH_CONTROL_PLANE_BIN === undefined) {
  console.error(`control plane: ${binaries} is not built; run node tools/control-plane/build.mjs first`);
  process.exit(1);
}
const cluster = await startControlPlane({ binaries, log: (line) => console.error(line) });
let stopping = false;
const stop = async (why) => {
  if (stopping) return;
  stopping = true;
  const pids = Object.entries(cluster.pids).map(([name, pid]) => `${name} ${pid}`);
  console.error(`control plane: stopping (${why}): ${pids.join(', ')}`);
  await cluster.stop();
  process.exit(0);
};
process.on('SIGINT', () => stop('SIGINT'));
process.on('SIGTERM', () => stop('SIGTERM'));
if (process.argv.includes('--until-stdin-closes')) {
  process.stdin.on('end', () => stop('stdin closed'));
  process.stdin.on('close', () => stop('stdin closed'));
  process.stdin.resume();
}
// One JSON line on stdout for programs, the path alone for people.
console.log(
  JSON.stringify({
    kubeconfig: cluster.kubeconfig,
    server: cluster.server,
    caFile: cluster.caFile,
    dir: cluster.dir,
    startedInMs: cluster.startedInMs,
    pids: cluster.pids,
  }),
);
console.error(`control plane: export KUBECONFIG=${cluster.kubeconfig}`);
