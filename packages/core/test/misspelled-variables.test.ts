import { describe, expect, it } from 'vitest';
import { misspelledVariables } from '../src/config/misspelled-variables.js';
import type { Profile } from '../src/config/profile/profile.js';
import { SHOP_PROFILE, simConfig } from '../src/sim/index.js';

// docs/behaviour.md §2: a variable that is not one image-refresh reads but is
// within two edits of one it does is said (`ON_ROLOUT_FAILURE=revert` would
// otherwise silently mean the default), with the name it was likely meant to
// be; the environment's other variables are left alone.

/** The shop of docs/profiles.md, its agent DaemonSet pinned by a variable of its own besides the web image's. */
const PINNED_SHOP: Profile = {
  ...SHOP_PROFILE,
  workloads: SHOP_PROFILE.workloads.map((w) => (w.id === 'agent' ? { ...w, pinnedBy: 'AGENT_PINNED' } : w)),
};

describe('misspelledVariables', () => {
  it("names each likely typo with the variable it was meant to be, in the environment's order", () => {
    expect(
      misspelledVariables({
        MAX_SKIP_TICK: '8',
        PATH: '/usr/local/bin:/usr/bin',
        IMAGE_TAG: 'prod',
        ON_ROLOUT_FAILURE: 'revert',
        HOSTNAME: 'image-refresh-29170',
      }),
    ).toEqual([
      { variable: 'MAX_SKIP_TICK', meant: 'MAX_SKIP_TICKS' },
      { variable: 'ON_ROLOUT_FAILURE', meant: 'ON_ROLLOUT_FAILURE' },
    ]);
  });

  it('says nothing of an environment of our own variables and unrelated ones', () => {
    expect(
      misspelledVariables({
        IMAGE_TAG: 'prod',
        ON_ROLLOUT_FAILURE: 'revert',
        MAX_SKIP_TICKS: '8',
        PATH: '/usr/bin',
        HOME: '/root',
        TZ: 'UTC',
        KUBERNETES_SERVICE_HOST: '10.0.0.1',
      }),
    ).toEqual([]);
  });

  it('reaches two edits and no further', () => {
    expect(misspelledVariables({ IMAGE_TA: 'prod' })).toEqual([{ variable: 'IMAGE_TA', meant: 'IMAGE_TAG' }]);
    expect(misspelledVariables({ IMAG_TA: 'prod' })).toEqual([{ variable: 'IMAG_TA', meant: 'IMAGE_TAG' }]);
    expect(misspelledVariables({ IMA_TA: 'prod' })).toEqual([]);
    // Two edits, both substitutions, still reach it.
    expect(misspelledVariables({ ON_ROLLOUT_FAILURX: 'revert', ON_ROLLOUT_FAILXRX: 'revert' })).toEqual([
      { variable: 'ON_ROLLOUT_FAILURX', meant: 'ON_ROLLOUT_FAILURE' },
      { variable: 'ON_ROLLOUT_FAILXRX', meant: 'ON_ROLLOUT_FAILURE' },
    ]);
  });

  it('judges only names shaped like ours: an upper-case letter, then upper-case letters, digits and "_"', () => {
    // Each within two edits of ON_ROLLOUT_FAILURE or IMAGE_TAG, but not shaped like a name of ours.
    expect(
      misspelledVariables({
        oN_ROLLOUT_FAILURE: 'revert',
        ON_ROLLOUT_FAILURe: 'revert',
        'ON_ROLLOUT-FAILURE': 'revert',
        _ON_ROLLOUT_FAILURE: 'revert',
        '1MAGE_TAG': 'prod',
        'IMAGE TAG': 'prod',
      }),
    ).toEqual([]);
    // A digit or "_" past the first letter is still a name of ours' shape.
    expect(misspelledVariables({ IMAGE_TAG2: 'prod', IMAGE__TAG: 'prod' })).toEqual([
      { variable: 'IMAGE_TAG2', meant: 'IMAGE_TAG' },
      { variable: 'IMAGE__TAG', meant: 'IMAGE_TAG' },
    ]);
  });

  it('counts the pins a profile names as ours, on its images and on its workloads', () => {
    const config = simConfig({}, PINNED_SHOP);
    const env = { WEB_PINNED: '1', AGENT_PINNED: '0', WEB_PINED: '1', AGENT_PINNNED: '1', IMAGE_TAGG: 'prod' };
    expect(misspelledVariables(env, config)).toEqual([
      { variable: 'WEB_PINED', meant: 'WEB_PINNED' },
      { variable: 'AGENT_PINNNED', meant: 'AGENT_PINNED' },
      { variable: 'IMAGE_TAGG', meant: 'IMAGE_TAG' },
    ]);
    // Without the config the pins are nobody's: their typos are near nothing of ours.
    expect(misspelledVariables(env)).toEqual([{ variable: 'IMAGE_TAGG', meant: 'IMAGE_TAG' }]);
  });

  it("the chart's pins are the config's own variables, whichever topology the tick follows", () => {
    const env = { JOBS_MANAGER_PINNED: '0', JOBS_MANAGER_PINED: '1' };
    const said = [{ variable: 'JOBS_MANAGER_PINED', meant: 'JOBS_MANAGER_PINNED' }];
    expect(misspelledVariables(env, simConfig())).toEqual(said);
    expect(misspelledVariables(env, simConfig({}, PINNED_SHOP))).toEqual(said);
    expect(misspelledVariables(env)).toEqual(said);
  });
});
