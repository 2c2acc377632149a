import {
  describePortError,
  describeWorkload,
  flapStateRemoved,
  quarantinesRemoved,
  type TickConfig,
} from '@image-refresh/core';
import * as E from 'fp-ts/lib/Either.js';
import type { Connect } from '../connection.js';
import { PREFIX } from '../render/log-lines.js';
import type { CommandResult, Output } from './command.js';

export const REARM_HELP = `Usage: image-refresh rearm

The human action the flap lockout asks for: removes <prefix>/refresh-attempt
and <prefix>/refresh-flap-detected from the gate (the chart's jobs-manager
Deployment, tracebloc.io/ its prefix), in one write, and says what it
removed. The next tick with drift re-images again, as attempt 1. The same
write lifts every quarantine (<prefix>/quarantined-<image>-digest, written by
ON_ROLLOUT_FAILURE=revert) and says which digests it lets back in.
`;

export const rearm = async (config: TickConfig, connect: Connect, out: Output): Promise<CommandResult> => {
  const connection = connect(config);
  const { gate, keys, images } = config.topology;
  const target = `${describeWorkload(gate)} in ${gate.namespace}`;
  const inspected = await connection.inspect(gate);
  if (E.isLeft(inspected)) {
    out.stderr(`${PREFIX} ERROR: cannot read ${target} (${describePortError(inspected.left)}); nothing was changed`);
    return { exitCode: 1 };
  }
  const present = [keys.refreshAttempt, keys.flapDetected].filter(
    (key) => inspected.right.annotations[key] !== undefined,
  );
  // The quarantines a rollback wrote are lifted by the same human action (docs/behaviour.md §3.6).
  const quarantined = images.filter((image) => inspected.right.annotations[image.quarantineKey] !== undefined);
  if (present.length === 0 && quarantined.length === 0) {
    out.stdout(`nothing to re-arm: neither ${keys.refreshAttempt} nor ${keys.flapDetected} is set on ${target}`);
    return { exitCode: 0 };
  }
  const changes = {
    ...(present.length === 0 ? {} : flapStateRemoved(config.topology)),
    ...quarantinesRemoved(
      config.topology,
      quarantined.map((image) => image.name),
    ),
  };
  const cleared = await connection
    .ports({ onProgress: () => undefined, onRateLimit: () => undefined })
    .cluster.patchBookkeeping(changes)();
  if (E.isLeft(cleared)) {
    const keys = [...present, ...quarantined.map((image) => image.quarantineKey)];
    out.stderr(
      `${PREFIX} ERROR: could not clear ${keys.join(' and ')} on ${target} (${describePortError(cleared.left)})`,
    );
    return { exitCode: 1 };
  }
  if (present.length > 0) {
    const removed = present.map((key) => `${key}=${inspected.right.annotations[key]}`).join(' and ');
    out.stdout(
      `re-armed ${target}: removed ${removed}. The next tick with drift re-images again (attempt 1/${config.maxRefreshAttempts}).`,
    );
  }
  for (const image of quarantined) {
    out.stdout(
      `lifted the quarantine of ${image.repo}@${inspected.right.annotations[image.quarantineKey]} on ${target} (removed ${image.quarantineKey}): the next tick may roll that build out again.`,
    );
  }
  return { exitCode: 0 };
};
