import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// An architecture test, read from the source as text on purpose: imports
// inside core point one way, down this list (packages/core/README.md,
// "Layers"). A module may import its own layer and the ones below it, never
// one above — so a type lives in the lowest layer that uses it.

const SRC = resolve(dirname(fileURLToPath(import.meta.url)), '../src');
const LAYERS = ['config', 'domain', 'ports', 'machine', 'shell', 'sim'] as const;

/** `config/duration.ts` → config; a file at the root of src (run-tick, dry-run, index) is the shell. */
const layerOf = (file: string): number => {
  const [top, rest] = relative(SRC, file).split(/[\\/]/, 2);
  return LAYERS.indexOf((rest === undefined ? 'shell' : top) as (typeof LAYERS)[number]);
};

const sources = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );

const upwardImports = (): string[] =>
  sources(SRC).flatMap((file) =>
    [...readFileSync(file, 'utf8').matchAll(/from '(\.{1,2}\/[^']+)\.js'/g)].flatMap(([, spec]) => {
      const target = resolve(dirname(file), `${spec}.ts`);
      return layerOf(target) > layerOf(file) ? [`${relative(SRC, file)} → ${relative(SRC, target)}`] : [];
    }),
  );

describe("core's layers", () => {
  it('every import inside core points down: config, domain, ports, machine, shell, sim', () => {
    expect(upwardImports()).toEqual([]);
  });
});
