import { describe, expect, it } from 'vitest';
import { closestName, editDistance } from '../src/config/did-you-mean.js';

// docs/behaviour.md §2: a misspelled name is said with the known name it is
// closest to, within two edits. The distance and the choice among known
// names, at their edges.

describe('editDistance', () => {
  it('counts each insertion, deletion and substitution as one, case-sensitively', () => {
    expect(editDistance('', '')).toBe(0);
    expect(editDistance('', 'ab')).toBe(2);
    expect(editDistance('ab', '')).toBe(2);
    expect(editDistance('gate', 'gate')).toBe(0);
    expect(editDistance('gate', 'Gate')).toBe(1);
    expect(editDistance('gate', 'gates')).toBe(1);
    expect(editDistance('gates', 'gate')).toBe(1);
    expect(editDistance('gaet', 'gate')).toBe(2);
    expect(editDistance('kitten', 'sitting')).toBe(3);
    expect(editDistance('x', 'abc')).toBe(3);
  });
});

describe('editDistance with a ceiling', () => {
  it('is exact up to the ceiling', () => {
    expect(editDistance('gaet', 'gate', 2)).toBe(2);
    expect(editDistance('gate', 'gates', 1)).toBe(1);
    expect(editDistance('kitten', 'sitting', 3)).toBe(3);
  });

  it('answers a distance above the ceiling once every cell of a row is above it, without counting on', () => {
    expect(editDistance('ab', 'cd', 1)).toBe(2);
    // Exactly 6 apart; the third row is all above 2, and the count stops there.
    expect(editDistance('abcdef', 'uvwxyz', 2)).toBe(3);
    expect(editDistance('abcdef', 'uvwxyz')).toBe(6);
  });
});

describe('closestName', () => {
  it('offers the nearest known name, not merely the first or the last within reach', () => {
    expect(closestName('gate', ['gates', 'gate', 'gat'])).toBe('gate');
    expect(closestName('gate', ['gat', 'gaet'])).toBe('gat');
    expect(closestName('gate', ['gaet', 'gat'])).toBe('gat');
  });

  it('offers the first of names equally near', () => {
    expect(closestName('gate', ['gale', 'game'])).toBe('gale');
    expect(closestName('gate', ['game', 'gale'])).toBe('game');
  });

  it('reaches two edits by default, or as many as asked, and no further', () => {
    expect(closestName('gate', ['images', 'ga'])).toBe('ga');
    expect(closestName('gate', ['images', 'g'])).toBeUndefined();
    expect(closestName('gate', ['g'], 3)).toBe('g');
    expect(closestName('gate', ['ga'], 1)).toBeUndefined();
    expect(closestName('gate', [])).toBeUndefined();
    // Lengths two apart are still within reach; three apart never are.
    expect(closestName('gate', ['gateway'])).toBeUndefined();
    expect(closestName('gate', ['gatewa'])).toBe('gatewa');
  });
});
