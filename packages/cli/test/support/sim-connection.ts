import { notFound } from '@image-refresh/core';
import { SimWorld, simConfig, simPorts } from '@image-refresh/core/sim';
import * as E from 'fp-ts/lib/Either.js';
import type { Output } from '../../src/commands/command.js';
import type { Connect } from '../../src/connection.js';
import { main } from '../../src/main.js';

// The CLI's commands on the core's simulated cluster: what a command prints
// and exits with, and what the world received, without any real API.

export const simConnection =
  (world: SimWorld): Connect =>
  () => ({
    source: 'simulated cluster',
    ports: (hooks) => simPorts(world, { dryRun: hooks.dryRun === true }),
    inspect: async (ref) => {
      const workload = world.workload(ref.id);
      if (!workload.exists) return E.left(notFound(`deployments.apps "${ref.name}" not found`, 404));
      return E.right({
        settledness: world.settlednessOf(ref.id, 'top-of-tick'),
        images: { ...workload.images },
        annotations: ref.id === world.gateId ? { ...world.annotations } : {},
      });
    },
  });

export const ENV = {
  RELEASE_NAME: 'stg',
  RELEASE_NAMESPACE: 'tracebloc',
  IMAGE_TAG: 'stg',
  NODE_AGENTS_NAMESPACE: 'tracebloc-node-agents',
  IMAGE_REGISTRY: 'docker.io',
};

export const aWorld = (env: Record<string, string> = {}) => new SimWorld(simConfig({ ...ENV, ...env }));

/** Run the CLI on `world` under the chart's {@link ENV} with `env` on top, or under `base` alone. */
export const runCli = async (
  argv: string[],
  world: SimWorld,
  env: Record<string, string> = {},
  base: Record<string, string> = ENV,
) => {
  const stdout: string[] = [];
  const stderr: string[] = [];
  let connected = 0;
  const out: Output = { stdout: (l) => stdout.push(l), stderr: (l) => stderr.push(l) };
  const connect: Connect = (config) => {
    connected += 1;
    return simConnection(world)(config);
  };
  const { exitCode } = await main(argv, out, { env: { ...base, ...env }, connect });
  return { exitCode, stdout, stderr, connected };
};

/** The one line containing `phrase`; fails when there is none or several. */
export const theLine = (lines: readonly string[], phrase: string): string => {
  const found = lines.filter((l) => l.includes(phrase));
  if (found.length !== 1)
    throw new Error(`expected one line with ${JSON.stringify(phrase)}, got ${found.length}:\n${lines.join('\n')}`);
  return found[0] as string;
};
