import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './registry-local-server.js';

// A Debian-packaged daemon the tests run for real (docker-registry,
// prometheus-pushgateway) on a free 127.0.0.1 port: a temp dir of its own, a
// clean environment (PATH only: a REGISTRY_* variable of the caller's would
// override the registry's config file), polled until it answers. A daemon
// that exits or never answers is stopped, and the error carries its last
// output. stop() ends it and removes its dir.

export interface LocalDaemon {
  readonly url: string;
  stop(): Promise<void>;
}

export interface DaemonSpec {
  readonly binary: string;
  /** How errors name it. */
  readonly name: string;
  readonly dirPrefix: string;
  /** Its arguments for this port and dir; may write files (a config) into dir first. */
  args(port: number, dir: string): Promise<readonly string[]>;
  /** Polled until it answers one of `readyStatuses`. */
  readonly readyPath: string;
  readonly readyStatuses: readonly number[];
  readonly readyWithinMs: number;
  readonly pollEveryMs: number;
}

const exited = (child: ChildProcess): Promise<void> =>
  new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once('exit', () => resolve());
  });

const waitUntilServing = async (spec: DaemonSpec, url: string, child: ChildProcess, output: () => string) => {
  const deadline = Date.now() + spec.readyWithinMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`${spec.name} exited with ${child.exitCode}: ${output()}`);
    const answered = await fetch(`${url}${spec.readyPath}`, { signal: AbortSignal.timeout(500) }).then(
      (response) => spec.readyStatuses.includes(response.status),
      // Not listening yet: poll again.
      () => false,
    );
    if (answered) return;
    await new Promise((resolve) => setTimeout(resolve, spec.pollEveryMs));
  }
  throw new Error(`${spec.name} did not serve ${url}${spec.readyPath} within ${spec.readyWithinMs} ms: ${output()}`);
};

export const startLocalDaemon = async (spec: DaemonSpec): Promise<LocalDaemon> => {
  const dir = await mkdtemp(join(tmpdir(), spec.dirPrefix));
  const port = await freePort();
  let args: readonly string[];
  try {
    args = await spec.args(port, dir);
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
  const child = spawn(spec.binary, args, {
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const keep = (chunk: Buffer): void => {
    output = (output + chunk.toString()).slice(-4_000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);

  const url = `http://127.0.0.1:${port}`;
  const stop = async (): Promise<void> => {
    child.kill('SIGTERM');
    await exited(child);
    await rm(dir, { recursive: true, force: true });
  };
  try {
    await waitUntilServing(spec, url, child, () => output);
  } catch (error) {
    await stop();
    throw error;
  }
  return { url, stop };
};
