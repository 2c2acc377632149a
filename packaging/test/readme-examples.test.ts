import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from './support/libraries.js';

// Each package README shows its smallest program. The code block is the very
// file the consumer test compiles against the packed tarballs and runs, so an
// example that no longer builds or no longer does what it says fails there —
// provided the copy here is the file: this test holds the two together.

const EXAMPLE = /<!-- example: (\S+) [^\n]*-->\n```ts\n([\s\S]*?)```/g;

const READMES = ['packages/core/README.md', 'packages/k8s-adapter/README.md'];

describe('the README examples', () => {
  for (const readme of READMES) {
    it(`of ${readme} are copies of programs the consumer test runs`, () => {
      const text = readFileSync(join(ROOT, readme), 'utf8');
      const examples = [...text.matchAll(EXAMPLE)].map((m) => ({ path: m[1] as string, code: m[2] as string }));
      expect(examples.map((e) => e.path)).toEqual([expect.stringMatching(/^packaging\/consumer\/src\/[a-z-]+\.ts$/)]);
      for (const { path, code } of examples) {
        expect(code, `${readme}: the example differs from ${path}; copy the file into the README`).toBe(
          readFileSync(join(ROOT, path), 'utf8'),
        );
      }
    });
  }
});
