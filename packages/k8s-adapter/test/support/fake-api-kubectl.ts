import { execFile } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';
import type { FakeKubeconfig } from './fake-api-kubeconfig.js';

// Runs the real kubectl against a fake API server, hermetically: its own
// kubeconfig (passed as a flag, so no token is ever in argv), its own HOME
// and cache dir (discovery is never served from an earlier run's cache), no
// proxy, and no way to reach any host but 127.0.0.1.

const candidates = (): string[] => [
  '/usr/bin/kubectl',
  ...(process.env.PATH ?? '').split(delimiter).map((dir) => join(dir, 'kubectl')),
];

const executable = (path: string): boolean => {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch (_absent) {
    return false;
  }
};

/** The kubectl binary to drive, or undefined when none is installed. */
export const KUBECTL: string | undefined = candidates().find(executable);

export const KUBECTL_MISSING =
  'real kubectl is not installed (looked for /usr/bin/kubectl and kubectl on PATH): install kubectl >= 1.27 (e.g. `apt-get install kubectl` from the Kubernetes apt repository) to run the tests that prove the fake API server trustworthy';

export interface KubectlResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

export const kubectl = (kubeconfig: FakeKubeconfig, args: readonly string[]): Promise<KubectlResult> => {
  const binary = KUBECTL;
  if (binary === undefined) return Promise.reject(new Error(KUBECTL_MISSING));
  return new Promise((resolve) => {
    execFile(
      binary,
      ['--kubeconfig', kubeconfig.path, '--cache-dir', join(kubeconfig.dir, 'cache'), ...args],
      {
        env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: kubeconfig.dir, NO_PROXY: '127.0.0.1' },
        timeout: 30_000,
      },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === 'number' ? error.code : -1;
        resolve({ code, stdout, stderr });
      },
    );
  });
};
