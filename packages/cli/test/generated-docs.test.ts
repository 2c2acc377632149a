import { describe, expect, it } from 'vitest';
import { currentContent, GENERATED_BLOCKS, writeContent } from './support/generated-docs.js';

// Every list the documentation copies from a table of the code — the
// variables (docs/configuration.md, SWAP.md; `help tick` prints the same
// table), the scenarios (README.md; `simulate --list`), the Event reasons and
// the metrics — is a generated block, held to what the code says now. With
// IMAGE_REFRESH_UPDATE_DOCS=1 (`npx -y pnpm@10.34.9 docs:update`) the blocks
// are rewritten instead; run `npx biome format --write` on them after.

const UPDATE = process.env.IMAGE_REFRESH_UPDATE_DOCS === '1';

describe('the generated lists in the documentation', () => {
  it.each(GENERATED_BLOCKS.map((block) => [`${block.file} (${block.name})`, block] as const))(
    '%s is what the code says',
    async (_, block) => {
      const expected = `\n${await block.render()}\n\n`;
      if (UPDATE) writeContent(block, expected);
      expect(currentContent(block), `${block.file} is stale: run npx -y pnpm@10.34.9 docs:update`).toBe(expected);
    },
  );
});
