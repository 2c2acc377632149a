import * as E from 'fp-ts/lib/Either.js';
import type { TaskEither } from 'fp-ts/lib/TaskEither.js';
import { describe, expect, it } from 'vitest';
import { bounded } from '../src/shell/backstop.js';
import type { Timers } from '../src/shell/tick-ports.js';

// A port call that never answers ends at the tick's own bound (I17), and the
// line names the step in an operator's words, not the function behind it.

/** Timers whose every timeout fires at once: the bound has always passed. */
const expired: Timers = {
  setTimeout: (callback) => {
    queueMicrotask(callback);
    return 0 as unknown as ReturnType<Timers['setTimeout']>;
  },
  clearTimeout: () => undefined,
};

const never: TaskEither<unknown, never> = () => new Promise(() => undefined);

const hungCall = async (operation: string): Promise<string> => {
  const answer = await bounded(expired, 17_000, operation, never);
  if (E.isRight(answer)) throw new Error('a call that never answers answered');
  return (answer.left as { message: string }).message;
};

describe("the backstop's words for a call that never answers", () => {
  it.each([
    ['readGate', 'reading the gate'],
    ['patchBookkeeping', "writing the gate's bookkeeping annotations"],
    ['resolveDigests', 'asking the registry for the tags'],
    ['setImages', 'setting an image'],
    ['waitForRollout', 'waiting for a rollout'],
    ['watchStability', 'watching a rollout stay complete'],
    ['observeWorkload', 'reading a workload'],
    ['observeOwnedWorkloads', 'reading the workloads the ownership check needs'],
    ['verifySignatures', 'checking signatures'],
    ['readFleetHalt', "reading the fleet halt's document"],
    ['readClock', 'reading the clock'],
    ['waitStartJitter', 'waiting START_JITTER'],
    ['readPlatforms', 'reading manifests for their platforms'],
    ['recordStagingEvent', 'recording the RefreshStaging Event'],
    ['stageImages', 'staging images on the nodes'],
    ['recordEvent', 'recording a Kubernetes Event'],
  ])('%s: "%s got no answer within 17s"', async (operation, words) => {
    expect(await hungCall(operation)).toBe(`${words} got no answer within 17s, the tick's own bound on it`);
  });

  it('an operation without words of its own is named as it is', async () => {
    expect(await hungCall('somethingNew')).toBe("somethingNew got no answer within 17s, the tick's own bound on it");
  });
});
