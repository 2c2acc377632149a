// Where the test control plane's binaries live, and how they are built.
//
// The binaries are built from the Go modules this folder's go.mod pins
// (k8s.io/kubernetes with its staging modules replaced by their published
// versions, etcd's server, kwok) into a cache OUTSIDE the repository, keyed by
// everything that decides their bits: go.mod, go.sum, the etcd entry point,
// the Go toolchain and the platform. A second build with the same key finds
// the finished directory and does nothing; a changed pin builds a new one.

import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

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

/** Marks a finished build: binaries are written to a temp dir and renamed into place, so a half build is never found. */
const COMPLETE = '.complete';

/** The cache root: IMAGE_REFRESH_CONTROL_PLANE_CACHE, else $XDG_CACHE_HOME or ~/.cache, /image-refresh/control-plane. */
export const cacheRoot = (env = process.env) =>
  env.IMAGE_REFRESH_CONTROL_PLANE_CACHE ??
  join(env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'image-refresh', 'control-plane');

/** `go version`, or undefined where Go is not installed (the suites then skip, saying so). */
export const goVersion = () => {
  const go = spawnSync('go', ['version'], { encoding: 'utf8' });
  return go.status === 0 ? go.stdout.trim() : undefined;
};

/** The cache key: the pinned versions, the entry point's source, the toolchain and the platform. */
export const buildKey = (go = goVersion()) => {
  const hash = createHash('sha256');
  // This file too: the build flags are in it.
  for (const file of ['go.mod', 'go.sum', 'cmd/etcd/main.go', 'binaries.mjs'])
    hash.update(readFileSync(join(MODULE_DIR, file)));
  hash.update(`${go}\n${process.platform}/${process.arch}\n`);
  return `${kubernetesVersion()}-${hash.digest('hex').slice(0, 16)}`;
};

/** The directory the binaries of this tree's pins are (or would be) in. */
export const binDir = (env = process.env) => join(cacheRoot(env), buildKey());

/** True when binDir holds a finished build. */
export const isBuilt = (dir = binDir()) => existsSync(join(dir, COMPLETE));

/**
 * Builds the binaries into binDir unless a finished build is there already.
 * Returns the directory and whether it built. `log` gets one line per step.
 */
export const buildControlPlane = ({ log = () => undefined, env = process.env } = {}) => {
  const dir = binDir(env);
  if (isBuilt(dir)) {
    log(`control plane: ${dir} is built already`);
    return { dir, built: false };
  }
  const staging = `${dir}.partial-${process.pid}`;
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging, { recursive: true });
  const began = Date.now();
  log(`control plane: building ${PACKAGES.map(([, name]) => name).join(', ')} into ${dir}`);
  execFileSync(
    'go',
    ['build', '-trimpath', `-ldflags=${ldflags()}`, '-o', `${staging}/`, ...PACKAGES.map(([pkg]) => pkg)],
    // -mod=readonly: go.sum is committed; a missing entry fails the build rather than editing the tree.
    // GOTOOLCHAIN=local: build with this machine's Go, never switch toolchains behind the cache key's back.
    // -buildvcs=false: the binaries do not depend on the state of this repository's work tree.
    {
      cwd: MODULE_DIR,
      stdio: ['ignore', 'inherit', 'inherit'],
      env: { ...env, GOTOOLCHAIN: 'local', GOFLAGS: '-mod=readonly -buildvcs=false' },
    },
  );
  for (const [, name] of PACKAGES) {
    if (!existsSync(join(staging, name))) throw new Error(`go build wrote no ${name} into ${staging}`);
  }
  writeFileSync(join(staging, COMPLETE), `${new Date().toISOString()} ${goVersion()}\n`);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dirname(dir), { recursive: true });
  renameSync(staging, dir);
  log(`control plane: built in ${Math.round((Date.now() - began) / 1000)} s`);
  return { dir, built: true };
};
