import {
  ANNOTATION,
  describePortError,
  flapStateRemoved,
  IMAGES,
  quarantinesRemoved,
  type TickConfig,
  workloadRef,
} from '@image-refresh/core';
import * as E from 'fp-ts/lib/Either.js';
import type { Connect } from '../connection.js';
import { PREFIX } from '../render/log-lines.js';
import type { CommandResult, Output } from './command.js';

export const REARM_HELP = `Usage: image-refresh rearm

The human action the flap lockout asks for (the chart's guard, its PR #563): removes
tracebloc.io/refresh-attempt and tracebloc.io/refresh-flap-detected from the
jobs-manager Deployment, in one write, and says what it removed. The next tick
with drift re-images again, as attempt 1. The same write lifts every
quarantine (tracebloc.io/quarantined-<image>-digest, ON_ROLLOUT_FAILURE=revert)
and says which digests it lets back in.
`;

export const rearm = async (config: TickConfig, connect: Connect, out: Output): Promise<CommandResult> => {
  const connection = connect(config);
  const target = `deployment/${config.deploymentName} in ${config.releaseNamespace}`;
  const inspected = await connection.inspect(workloadRef(config, 'jobs-manager'));
  if (E.isLeft(inspected)) {
    out.stderr(`${PREFIX} ERROR: cannot read ${target} (${describePortError(inspected.left)}); nothing was changed`);
    return { exitCode: 1 };
  }
  const present = [ANNOTATION.refreshAttempt, ANNOTATION.flapDetected].filter(
    (key) => inspected.right.annotations[key] !== undefined,
  );
  // Issue 16: the quarantines a rollback wrote are lifted by the same human action.
  const quarantined = IMAGES.filter((image) => inspected.right.annotations[image.quarantineKey] !== undefined);
  if (present.length === 0 && quarantined.length === 0) {
    out.stdout(
      `nothing to re-arm: neither ${ANNOTATION.refreshAttempt} nor ${ANNOTATION.flapDetected} is set on ${target}`,
    );
    return { exitCode: 0 };
  }
  const changes = {
    ...(present.length === 0 ? {} : flapStateRemoved),
    ...quarantinesRemoved(quarantined.map((image) => image.name)),
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
