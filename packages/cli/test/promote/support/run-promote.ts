import type { Output } from '../../../src/commands/command.js';
import type { Connect } from '../../../src/connection.js';
import { main } from '../../../src/main.js';

// `image-refresh promote …` through main(), as bin.ts runs it: its lines and
// exit code captured. promote talks to no cluster; a connect would fail the test.

export interface PromoteRun {
  readonly exitCode: number;
  readonly stdout: readonly string[];
  readonly stderr: readonly string[];
}

const noCluster: Connect = () => {
  throw new Error('promote must not talk to a cluster');
};

export const runPromote = async (args: readonly string[], interrupt?: AbortSignal): Promise<PromoteRun> => {
  const stdout: string[] = [];
  const stderr: string[] = [];
  const out: Output = { stdout: (line) => stdout.push(line), stderr: (line) => stderr.push(line) };
  const { exitCode } = await main(['promote', ...args], out, {
    env: {},
    connect: noCluster,
    ...(interrupt === undefined ? {} : { interrupt }),
  });
  return { exitCode, stdout, stderr };
};

/** The one line containing `phrase`; fails naming all lines when there is none or several. */
export const theLine = (lines: readonly string[], phrase: string): string => {
  const found = lines.filter((line) => line.includes(phrase));
  if (found.length !== 1)
    throw new Error(`expected one line with ${JSON.stringify(phrase)}, got ${found.length}:\n${lines.join('\n')}`);
  return found[0] as string;
};

export const D = `sha256:${'d'.repeat(64)}`;
export const D2 = `sha256:${'e'.repeat(64)}`;
export const OLD = `sha256:${'0'.repeat(64)}`;
