#!/usr/bin/env node
// Builds helm into its cache (binaries.mjs); a no-op when this tree's pin is
// built already. Logs to stderr, prints the helm binary's path last.
//   node tools/helm/build.mjs
import { buildHelm, goVersion } from './binaries.mjs';

if (process.env.IMAGE_REFRESH_HELM_BIN === undefined && goVersion() === undefined) {
  console.error('helm: no Go on PATH; the chart tests need Go 1.26 to build helm from helm.sh/helm/v4');
  process.exit(1);
}
const { path } = buildHelm({ log: (line) => console.error(line) });
console.log(path);
