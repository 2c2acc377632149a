import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import {
  binDir,
  buildControlPlane,
  goVersion,
  isBuilt,
  kubernetesVersion,
  MODULE_DIR,
} from '../../../../../tools/control-plane/binaries.mjs';
import type { ControlPlaneInfo, ProvidedControlPlane } from './control-plane-info.js';

// Once per run of the real-cluster project: build the control plane if this
// tree's pins are not built yet (tools/control-plane, a cache outside the
// tree; `.ci/run` builds it first so its time shows there), start one
// cluster, and hand its kubeconfig to every file. Without Go on the machine
// the files skip, saying why — except in CI (IMAGE_REFRESH_CI=1), where a
// skip would hide exactly what these suites exist to prove.

const START_WITHIN_MS = 180_000;

const unavailable = (): string | undefined => {
  if (process.env.IMAGE_REFRESH_CONTROL_PLANE_BIN !== undefined) return undefined;
  if (goVersion() === undefined) {
    return 'no Go on PATH: the real-cluster suites build kube-apiserver, etcd, the controllers and kwok from Go modules (tools/control-plane/README.md)';
  }
  return undefined;
};

/** The child's one JSON line on stdout (start.mjs), or its stderr when it exits first. */
const started = (child: ChildProcess): Promise<Omit<ControlPlaneInfo, 'kubernetesVersion'>> =>
  new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    const timer = setTimeout(() => {
      child.kill('SIGTERM');
      reject(new Error(`the control plane did not start within ${START_WITHIN_MS} ms: ${err.slice(-3_000)}`));
    }, START_WITHIN_MS);
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString('utf8');
      const line = out.split('\n').find((l) => l.startsWith('{'));
      if (line !== undefined && out.includes('\n')) {
        clearTimeout(timer);
        resolve(JSON.parse(line) as Omit<ControlPlaneInfo, 'kubernetesVersion'>);
      }
    });
    child.stderr?.on('data', (chunk: Buffer) => {
      err = (err + chunk.toString('utf8')).slice(-8_000);
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`the control plane exited (${code ?? signal}) before it was ready: ${err.slice(-3_000)}`));
    });
  });

export default async function setup(project: TestProject): Promise<(() => Promise<void>) | undefined> {
  const missing = unavailable();
  if (missing !== undefined) {
    if (process.env.IMAGE_REFRESH_CI === '1') throw new Error(`CI requires the real control plane: ${missing}`);
    console.warn(`SKIPPED real-cluster: ${missing}`);
    project.provide('controlPlane', { missing } satisfies ProvidedControlPlane);
    return undefined;
  }
  const binaries = process.env.IMAGE_REFRESH_CONTROL_PLANE_BIN ?? binDir();
  if (!isBuilt(binaries) && process.env.IMAGE_REFRESH_CONTROL_PLANE_BIN === undefined) {
    console.warn('real-cluster: building the control plane (once per pin set; minutes from an empty Go cache)');
    buildControlPlane({ log: (line) => console.warn(line) });
  }
  // stdin a pipe: if this runner dies, the pipe closes and start.mjs stops the cluster.
  const child = spawn(process.execPath, [join(MODULE_DIR, 'start.mjs'), '--until-stdin-closes'], {
    env: { ...process.env, IMAGE_REFRESH_CONTROL_PLANE_BIN: binaries },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const info = await started(child);
  console.warn(`real-cluster: Kubernetes ${kubernetesVersion()} ready in ${info.startedInMs} ms at ${info.server}`);
  project.provide('controlPlane', {
    info: { ...info, kubernetesVersion: kubernetesVersion() },
  } satisfies ProvidedControlPlane);
  return async () => {
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.stdin?.end();
    await exited;
  };
}
