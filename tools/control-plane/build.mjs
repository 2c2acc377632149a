#!/usr/bin/env node
// Builds the test control plane into its cache (binaries.mjs); a no-op when
// this tree's pins are built already. Prints the binaries' directory last.
//   node tools/control-plane/build.mjs
import { buildControlPlane, goVersion } from './binaries.mjs';

if (goVersion() === undefined) {
  console.error(
    'control plane: no Go on PATH; the real-cluster suites need Go 1.26 to build kube-apiserver and friends',
  );
  process.exit(1);
}
const { dir } = buildControlPlane({ log: (line) => console.error(line) });
console.log(dir);
