import { describe, expect, it } from 'vitest';
import { HELP } from '../src/main.js';
import { aWorld, runCli } from './support/sim-connection.js';

// `image-refresh help tick` printed the top-level help, and that help sent
// operators to a README the image does not contain (issue 13).

describe('help', () => {
  it('help tick prints what tick --help prints', async () => {
    const viaHelp = await runCli(['help', 'tick'], aWorld());
    const viaFlag = await runCli(['tick', '--help'], aWorld());
    expect(viaHelp.exitCode).toBe(0);
    expect(viaHelp.stdout).toEqual(viaFlag.stdout);
    expect(viaHelp.stdout.join('\n')).toMatch(/^Usage: image-refresh tick /);
  });

  it('help of an unknown command is a usage error (exit 2)', async () => {
    const run = await runCli(['help', 'tik'], aWorld());
    expect(run.exitCode).toBe(2);
    expect(run.stderr[0]).toBe("image-refresh: help: unknown command 'tik'");
  });

  it('--help points to what the image holds, not to a README', async () => {
    expect(HELP).not.toMatch(/README/);
    expect(HELP).toContain("'image-refresh help tick' lists every variable");
  });
});
