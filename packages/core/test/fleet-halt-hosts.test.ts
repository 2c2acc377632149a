import * as E from 'fp-ts/lib/Either.js';
import { describe, expect, it } from 'vitest';
import { haltKeyOf, isHaltedDigest, parseFleetHalt } from '../src/domain/fleet-halt.js';

// A halt names each repository as a pull names it (docs/behaviour.md §3.4b):
// a short name is Docker Hub's, as every halt published before other
// registries could be followed; any other registry's repository by its full
// name. An image is looked up under the same key.

const NOW = Date.parse('2026-12-05T12:00:00Z');
const D1 = `sha256:${'1'.repeat(64)}`;
const haltOf = (repositories: Record<string, unknown>) => {
  const parsed = parseFleetHalt(
    JSON.stringify({ version: 1, reason: 'bad build', expires: '2026-12-06T12:00:00Z', repositories }),
    NOW,
  );
  if (E.isLeft(parsed)) throw new Error(parsed.left);
  return parsed.right;
};

describe('a halt document across registries', () => {
  it('an image is looked up by its short name on Docker Hub, by its full name elsewhere', () => {
    expect(haltKeyOf({ host: 'docker.io', repo: 'shop/web' })).toBe('shop/web');
    expect(haltKeyOf({ host: 'ghcr.io', repo: 'org/app' })).toBe('ghcr.io/org/app');
  });

  it('a short name holds the Docker Hub image only; a full name the image on its host only', () => {
    const halt = haltOf({ 'org/app': { digests: [D1] }, 'ghcr.io/org/tool': { digests: '*' } });
    expect(isHaltedDigest(halt, haltKeyOf({ host: 'docker.io', repo: 'org/app' }), D1)).toBe(true);
    expect(isHaltedDigest(halt, haltKeyOf({ host: 'ghcr.io', repo: 'org/app' }), D1)).toBe(false);
    expect(isHaltedDigest(halt, haltKeyOf({ host: 'ghcr.io', repo: 'org/tool' }), D1)).toBe(true);
    expect(isHaltedDigest(halt, haltKeyOf({ host: 'docker.io', repo: 'org/tool' }), D1)).toBe(false);
  });

  it('docker.io/… and index.docker.io/… in a document are the short name', () => {
    const halt = haltOf({ 'docker.io/shop/web': { digests: [D1] }, 'index.docker.io/shop/log': { digests: '*' } });
    expect(Object.keys(halt.repositories).sort()).toEqual(['shop/log', 'shop/web']);
  });

  it('a key that names no repository is refused, naming it; another registry takes any path', () => {
    const parsed = (key: string) =>
      parseFleetHalt(
        JSON.stringify({
          version: 1,
          reason: 'r',
          expires: '2026-12-06T12:00:00Z',
          repositories: { [key]: { digests: '*' } },
        }),
        NOW,
      );
    expect(parsed('docker.io/Shop/web')).toEqual(
      E.left('"docker.io/Shop/web" is not a repository path (namespace/name on Docker Hub, or host[:port]/path)'),
    );
    expect(E.isRight(parsed('registry:5000/app'))).toBe(true);
  });
});
