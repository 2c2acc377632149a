import { type ConfigError, ENV } from '@image-refresh/core';
import * as E from 'fp-ts/lib/Either.js';

// IMAGE_REFRESH_PROFILE (docs/profiles.md): the file a ConfigMap mounts,
// read and parsed here — YAML or JSON, JSON being YAML — and handed to core,
// which checks it whole. A file that is missing, unreadable, too large or not
// YAML is a configuration error naming the variable, the file and where in it
// (exit 2, before any request), like every other problem of the environment.
// The YAML parser (profile-yaml.ts, a file of its own in the build) and
// node:fs/promises are loaded only when a profile is given: a tick on the
// chart's topology reads no file and loads neither (loaded at start, they
// cost every steady tick: README.md, Benchmarks).

/** A profile is a few dozen lines; anything this large is not one (and is not read whole into memory). */
export const MAX_PROFILE_BYTES = 256 * 1024;

type Env = Readonly<Record<string, string | undefined>>;

const problem = (file: string, why: string): readonly ConfigError[] => [
  { variable: ENV.profile, value: file, problem: why },
];

/** The reason a file could not be read, in an operator's words. */
const unreadable = (error: unknown): string => {
  const code = (error as { code?: unknown } | null)?.code;
  if (code === 'ENOENT') return 'no such file (mount the profile, e.g. from a ConfigMap, at this path)';
  if (code === 'EACCES') return 'cannot be read: permission denied';
  if (code === 'EISDIR') return 'is a directory, not a profile file';
  return `cannot be read: ${error instanceof Error ? error.message : String(error)}`;
};

/**
 * The profile document IMAGE_REFRESH_PROFILE names, as a YAML parser made
 * it; `Right(undefined)` when the variable is unset (the chart's topology).
 */
export const readProfileDocument = async (env: Env): Promise<E.Either<readonly ConfigError[], unknown>> => {
  const file = env[ENV.profile];
  if (file === undefined || file === '') return E.right(undefined);
  const { readFile, stat } = await import('node:fs/promises');
  let text: string;
  try {
    const { size } = await stat(file);
    if (size > MAX_PROFILE_BYTES) {
      return E.left(problem(file, `is ${size} bytes, more than a profile's ${MAX_PROFILE_BYTES}: not read`));
    }
    text = await readFile(file, 'utf8');
  } catch (error) {
    return E.left(problem(file, unreadable(error)));
  }
  return (await import('./profile-yaml.js')).parseProfileYaml(file, text);
};
