import {
  CONFIG_VARIABLES,
  ENV,
  REGISTRY_ACCESS_ENV,
  SIGNATURE_ENV,
  STAGING_ENV,
  WINDOW_ENV,
} from '@image-refresh/core';
import { describe, expect, it } from 'vitest';
import { HELP } from '../src/main.js';
import { METRICS_ENV } from '../src/metrics/metrics-config.js';
import { aWorld, runCli } from './support/sim-connection.js';

// `image-refresh help tick` must print tick's own help, and no help may send
// operators to a README the image does not contain.

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

  it('help tick names every variable a tick reads, each once, with its default: the config table, whole', async () => {
    const run = await runCli(['help', 'tick'], aWorld());
    const text = run.stdout.join('\n');
    const read = [
      ...Object.values(ENV),
      ...Object.values(SIGNATURE_ENV),
      ...Object.values(STAGING_ENV),
      ...Object.values(WINDOW_ENV),
      ...Object.values(REGISTRY_ACCESS_ENV),
      ...Object.values(METRICS_ENV),
    ];
    expect(CONFIG_VARIABLES.map((v) => v.name).sort()).toEqual([...read].sort());
    for (const variable of CONFIG_VARIABLES) {
      const line = new RegExp(`^  ${variable.name} \\((.*)\\)$`, 'gm');
      expect(
        [...text.matchAll(line)].map((m) => m[1]),
        variable.name,
      ).toEqual([variable.default.replaceAll('`', '')]);
    }
  });
});
