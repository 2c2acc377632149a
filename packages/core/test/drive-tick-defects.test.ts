import { describe, expect, it } from 'vitest';
import { driveTick } from '../src/machine/drive-tick.js';
import { simConfig } from '../src/sim/index.js';

// driveTick feeds the machine the answers of a handler the shell provides (run-tick.ts); that
// handler turns every port failure into an answer. Should it reject all the same (a defect of the
// shell), the tick ends on that error at once: it neither hangs until the Job's deadline nor goes
// on as if the call had answered.

describe('a handler that rejects instead of answering', () => {
  it('ends the tick with its error, after the one call it was asked', async () => {
    const asked: string[] = [];
    const defect = new Error('the handler broke');
    await expect(
      driveTick(simConfig(), async (src) => {
        asked.push(src);
        throw defect;
      }),
    ).rejects.toBe(defect);
    expect(asked).toEqual(['readGate']);
  });
});
