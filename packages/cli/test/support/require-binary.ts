import { existsSync, statSync } from 'node:fs';
import { delimiter, join } from 'node:path';

// A test that needs a real binary skips, saying what to install, where the
// binary is missing — except in CI (IMAGE_REFRESH_CI=1, set by .ci/run), where
// a skip would hide exactly what the test exists to prove, so it fails.

const find = (name: string): string | undefined => {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    const candidate = join(dir, name);
    if (existsSync(candidate) && (statSync(candidate).mode & 0o111) !== 0) return candidate;
  }
  return undefined;
};

export const requireBinary = (name: string, install: string): { path: string; skip: boolean } => {
  const path = find(name);
  if (path !== undefined) return { path, skip: false };
  if (process.env.IMAGE_REFRESH_CI === '1') throw new Error(`CI requires ${name}: ${install}`);
  console.warn(`SKIPPED: needs ${name} on PATH: ${install}`);
  return { path: name, skip: true };
};
