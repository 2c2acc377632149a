import { SHOP_PROFILE, simConfig } from '@image-refresh/core/sim';
import { describe, expect, it } from 'vitest';
import { profileLines } from '../../src/render/profile-lines.js';

// What `tick --dry-run` says of a mirror (docs/behaviour.md §3.3): where the
// pods pull through, and whether the tick follows the upstream through it.

describe('the profile as --dry-run shows it, behind a mirror', () => {
  const mirrored = { ...SHOP_PROFILE, mirror: 'mirror.local:5000' };
  const mirrorLine = (env: Record<string, string>) =>
    profileLines(simConfig(env, mirrored), '/etc/profile.yaml').filter((l) => l.startsWith('  mirror '));

  it('followed upstream', () => {
    expect(mirrorLine({ MIRROR_MODE: 'follow-upstream' })).toEqual([
      '  mirror mirror.local:5000: tags resolved upstream, pinned through it (MIRROR_MODE=follow-upstream)',
    ]);
  });

  it('inert', () => {
    expect(mirrorLine({})).toEqual(['  mirror mirror.local:5000: inert behind it (MIRROR_MODE unset)']);
  });

  it('no mirror, no line', () => {
    expect(profileLines(simConfig({}, SHOP_PROFILE), undefined).some((l) => l.startsWith('  mirror '))).toBe(false);
  });
});
