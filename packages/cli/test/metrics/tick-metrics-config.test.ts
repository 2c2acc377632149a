import { describe, expect, it } from 'vitest';
import { aWorld, runCli, theLine } from '../support/sim-connection.js';

// The push's variables are part of the tick's configuration: malformed is
// exit 2 naming the variable, before the cluster is even connected (I18).

describe('image-refresh tick with PUSHGATEWAY_URL set', () => {
  it('a malformed METRICS_GROUPING is exit 2, names the variable, and never connects', async () => {
    const world = aWorld();
    const { exitCode, stderr, connected } = await runCli(['tick'], world, {
      PUSHGATEWAY_URL: 'http://127.0.0.1:9',
      METRICS_GROUPING: 'edge',
    });
    expect(exitCode).toBe(2);
    expect(theLine(stderr, 'METRICS_GROUPING')).toBe(
      '[image-refresh] ERROR: configuration: METRICS_GROUPING="edge": "edge" is not label=value (k=v,… with a value)',
    );
    expect(connected).toBe(0);
    expect(world.calls).toEqual([]);
  });

  it('the same METRICS_GROUPING without PUSHGATEWAY_URL changes nothing: the push is off', async () => {
    const world = aWorld();
    const { exitCode } = await runCli(['tick'], world, { METRICS_GROUPING: 'edge' });
    expect(exitCode).toBe(0);
  });
});
