// A cache of Go binaries built from a pinned module, outside the repository.
//
// The test tools (tools/control-plane, tools/helm) build their binaries from
// Go modules instead of downloading them. Each build lands in a directory
// keyed by everything that decides its bits: the module's go.mod and go.sum,
// any source files the caller names, the build flags (this file and the
// caller's), the Go toolchain and the platform. A second build with the same
// key finds the finished directory and does nothing; a changed pin builds a
// new one and leaves the old alone.

import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** This file: the go build flags below are part of every key. */
const SELF = fileURLToPath(import.meta.url);

/** Marks a finished build: binaries are written to a temp dir and renamed into place, so a half build is never found. */
const COMPLETE = '.complete';

/** `go version`, or undefined where Go is not installed (callers then skip or fail, saying so). */
export const goVersion = () => {
  const go = spawnSync('go', ['version'], { encoding: 'utf8' });
  return go.status === 0 ? go.stdout.trim() : undefined;
};

/**
 * The cache of one module's binaries.
 *
 * - `name`: how log lines begin ('control plane', 'helm').
 * - `moduleDir`: the directory of the go.mod that pins the versions.
 * - `packages`: [package path, binary name] pairs, built in one `go build`.
 * - `keyFiles`: files besides go.mod and go.sum whose bytes decide the binaries, relative to
 *   moduleDir; the caller's own file belongs here when it holds the ldflags.
 * - `ldflags`: passed to the linker (a module build has no git tree to stamp versions from).
 * - `label`: the key's readable prefix, the pinned version.
 * - `folder`: the cache's sub-folder of ~/.cache/image-refresh.
 * - `cacheVariable`: the environment variable that names another cache root.
 */
export const goCache = ({ name, moduleDir, packages, keyFiles, ldflags, label, folder, cacheVariable }) => {
  /** The cache root: $cacheVariable, else $XDG_CACHE_HOME or ~/.cache, /image-refresh/<folder>. */
  const cacheRoot = (env = process.env) =>
    env[cacheVariable] ?? join(env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'image-refresh', folder);

  /** The cache key: the label, then a hash of the key files, the toolchain and the platform. */
  const buildKey = (go = goVersion()) => {
    const hash = createHash('sha256');
    for (const file of ['go.mod', 'go.sum', ...keyFiles]) hash.update(readFileSync(join(moduleDir, file)));
    hash.update(readFileSync(SELF));
    hash.update(`${go}\n${process.platform}/${process.arch}\n`);
    return `${label}-${hash.digest('hex').slice(0, 16)}`;
  };

  /** The directory the binaries of this tree's pins are (or would be) in. */
  const binDir = (env = process.env) => join(cacheRoot(env), buildKey());

  /** True when dir holds a finished build. */
  const isBuilt = (dir = binDir()) => existsSync(join(dir, COMPLETE));

  /** Builds into binDir unless a finished build is there; returns the directory and whether it built. */
  const build = ({ log = () => undefined, env = process.env } = {}) => {
    const dir = binDir(env);
    if (isBuilt(dir)) {
      log(`${name}: ${dir} is built already`);
      return { dir, built: false };
    }
    // The pid keeps two builds at once (two shells, CI and a test run) out of each other's staging dir.
    const staging = `${dir}.partial-${process.pid}`;
    rmSync(staging, { recursive: true, force: true });
    mkdirSync(staging, { recursive: true });
    const began = Date.now();
    log(`${name}: building ${packages.map(([, binary]) => binary).join(', ')} into ${dir}`);
    execFileSync(
      'go',
      ['build', '-trimpath', `-ldflags=${ldflags}`, '-o', `${staging}/`, ...packages.map(([pkg]) => pkg)],
      {
        cwd: moduleDir,
        stdio: ['ignore', 'inherit', 'inherit'],
        // -mod=readonly: go.sum is committed; a missing entry fails the build rather than editing the tree.
        // GOTOOLCHAIN=local: build with this machine's Go, never switch toolchains behind the cache key's back.
        // -buildvcs=false: the binaries do not depend on the state of this repository's work tree.
        env: { ...env, GOTOOLCHAIN: 'local', GOFLAGS: '-mod=readonly -buildvcs=false' },
      },
    );
    for (const [, binary] of packages) {
      if (!existsSync(join(staging, binary))) throw new Error(`go build wrote no ${binary} into ${staging}`);
    }
    writeFileSync(join(staging, COMPLETE), `${new Date().toISOString()} ${goVersion()}\n`);
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dirname(dir), { recursive: true });
    renameSync(staging, dir);
    log(`${name}: built in ${Math.round((Date.now() - began) / 1000)} s`);
    return { dir, built: true };
  };

  return { cacheRoot, buildKey, binDir, isBuilt, build };
};
