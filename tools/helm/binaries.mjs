// Where the helm binary the chart tests use lives, and how it is built.
//
// helm is built from the helm.sh/helm/v4 module this folder's go.mod pins
// into a cache OUTSIDE the repository (../go-cache.mjs), keyed by go.mod,
// go.sum, the build flags, the Go toolchain and the platform: nothing is
// downloaded but Go modules, and a second build with the same key does
// nothing. IMAGE_REFRESH_HELM_BIN names an already-built helm instead.

import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { goCache, goVersion } from '../go-cache.mjs';

export { goVersion };

export const MODULE_DIR = dirname(fileURLToPath(import.meta.url));

/** The pinned helm.sh/helm/v4 version, e.g. v4.3.2. */
export const helmVersion = () =>
  /^\s*helm\.sh\/helm\/v4 (v\S+)/m.exec(readFileSync(join(MODULE_DIR, 'go.mod'), 'utf8'))?.[1] ?? 'unknown';

/**
 * A stripped binary that reports the version it was built from: a module
 * build has no git tree, so without these `helm version` says v4.3 and no
 * tree state (the variables of helm's own Makefile, internal/version).
 */
const ldflags = () =>
  [
    '-s',
    '-w',
    `-X helm.sh/helm/v4/internal/version.version=${helmVersion()}`,
    '-X helm.sh/helm/v4/internal/version.gitTreeState=clean',
  ].join(' ');

const cache = goCache({
  name: 'helm',
  moduleDir: MODULE_DIR,
  packages: [['helm.sh/helm/v4/cmd/helm', 'helm']],
  // This file: the ldflags are in it.
  keyFiles: ['binaries.mjs'],
  ldflags: ldflags(),
  label: helmVersion(),
  folder: 'helm',
  cacheVariable: 'IMAGE_REFRESH_HELM_CACHE',
});

/** The cache root: IMAGE_REFRESH_HELM_CACHE, else $XDG_CACHE_HOME or ~/.cache, /image-refresh/helm. */
export const cacheRoot = cache.cacheRoot;

/** The directory the helm of this tree's pin is (or would be) in. */
export const binDir = cache.binDir;

/** True when dir holds a finished build. */
export const isBuilt = cache.isBuilt;

/** The helm to run: IMAGE_REFRESH_HELM_BIN, else the binary in binDir. */
export const helmPath = (env = process.env) => env.IMAGE_REFRESH_HELM_BIN ?? join(binDir(env), 'helm');

/**
 * Builds helm into binDir unless a finished build is there already, or
 * IMAGE_REFRESH_HELM_BIN names one. Returns the directory, the binary and
 * whether it built. `log` gets one line per step.
 */
export const buildHelm = ({ log = () => undefined, env = process.env } = {}) => {
  if (env.IMAGE_REFRESH_HELM_BIN !== undefined) {
    log(`helm: IMAGE_REFRESH_HELM_BIN is ${env.IMAGE_REFRESH_HELM_BIN}, nothing to build`);
    return { dir: dirname(env.IMAGE_REFRESH_HELM_BIN), path: env.IMAGE_REFRESH_HELM_BIN, built: false };
  }
  const { dir, built } = cache.build({ log, env });
  return { dir, path: join(dir, 'helm'), built };
};
