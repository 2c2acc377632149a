// Where the test control plane's binaries live, and how they are built.
//
// The binaries are built from the Go modules this folder's go.mod pins
// (k8s.io/kubernetes with its staging modules replaced by their published
// versions, etcd's server, kwok) into a cache OUTSIDE the repository
// (../go-cache.mjs), keyed by everything that decides their bits: go.mod,
// go.sum, the etcd entry point, the build flags, the Go toolchain and the
// platform. A second build with the same key finds the finished directory and
// does nothing; a changed pin builds a new one.

import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { goCache, goVersion } from '../go-cache.mjs';

export { goVersion };

export const MODULE_DIR = dirname(fileURLToPath(import.meta.url));

/** Package path → binary name, in the order they start. */
export const PACKAGES = [
  ['./cmd/etcd', 'etcd'],
  ['k8s.io/kubernetes/cmd/kube-apiserver', 'kube-apiserver'],
  ['k8s.io/kubernetes/cmd/kube-controller-manager', 'kube-controller-manager'],
  ['k8s.io/kubernetes/cmd/kube-scheduler', 'kube-scheduler'],
  ['sigs.k8s.io/kwok/cmd/kwok', 'kwok'],
];

/** The pinned k8s.io/kubernetes version, e.g. v1.37.2. */
export const kubernetesVersion = () =>
  /^\s*k8s\.io\/kubernetes (v\S+)/m.exec(readFileSync(join(MODULE_DIR, 'go.mod'), 'utf8'))?.[1] ?? 'unknown';

/**
 * Stripped binaries that report the version they were built from: a module
 * build has no git tree, so without these the apiserver says v0.0.0-master
 * (the variables Kubernetes' own release build sets, hack/lib/version.sh).
 */
const ldflags = () => {
  const version = kubernetesVersion();
  const [major, minor] = version.replace(/^v/, '').split('.');
  return [
    '-s',
    '-w',
    ...['k8s.io/component-base/version', 'k8s.io/client-go/pkg/version'].flatMap((pkg) => [
      `-X ${pkg}.gitVersion=${version}`,
      `-X ${pkg}.gitMajor=${major}`,
      `-X ${pkg}.gitMinor=${minor}`,
      `-X ${pkg}.gitTreeState=clean`,
    ]),
  ].join(' ');
};

const cache = goCache({
  name: 'control plane',
  moduleDir: MODULE_DIR,
  packages: PACKAGES,
  // This file too: the ldflags are in it.
  keyFiles: ['cmd/etcd/main.go', 'binaries.mjs'],
  ldflags: ldflags(),
  label: kubernetesVersion(),
  folder: 'control-plane',
  cacheVariable: 'IMAGE_REFRESH_CONTROL_PLANE_CACHE',
});

/** The cache root: IMAGE_REFRESH_CONTROL_PLANE_CACHE, else $XDG_CACHE_HOME or ~/.cache, /image-refresh/control-plane. */
export const cacheRoot = cache.cacheRoot;

/** The cache key: the pinned Kubernetes version, then a hash of the pins, the entry point, the flags, the toolchain and the platform. */
export const buildKey = cache.buildKey;

/** The directory the binaries of this tree's pins are (or would be) in. */
export const binDir = cache.binDir;

/** True when binDir holds a finished build. */
export const isBuilt = cache.isBuilt;

/**
 * Builds the binaries into binDir unless a finished build is there already.
 * Returns the directory and whether it built. `log` gets one line per step.
 */
export const buildControlPlane = cache.build;
