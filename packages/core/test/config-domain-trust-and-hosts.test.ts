import * as E from 'fp-ts/lib/Either.js';
import { describe, expect, it } from 'vitest';
import { parseFleetHaltConfig } from '../src/config/fleet-halt-config.js';
import { misspelledVariables } from '../src/config/misspelled-variables.js';
import { parseTickConfig } from '../src/config/parse-config.js';
import { accepted, problemsOf, shopWith } from './support/profile-document.js';

// Where a fleet document lives and who must verify it (docs/behaviour.md
// §3.4b, docs/fleet-promotion.md), the profile's mirror host (§3.3), and the
// registry access variables known by name (§2).

const CHART = { RELEASE_NAME: 'stg', RELEASE_NAMESPACE: 'tracebloc', IMAGE_TAG: 'stg' };
const NO_TRUST =
  'set SIGNATURE_PUBLIC_KEYS (PEM public-key files) and/or SIGNATURE_IDENTITY, SIGNATURE_ISSUER and SIGSTORE_TRUSTED_ROOT (keyless)';

describe('FLEET_HALT_REF', () => {
  it('a digest is refused in the words of a halt', () => {
    expect(parseFleetHaltConfig({ FLEET_HALT_REF: 'docker.io/acme/fleet-control@sha256:abc' })).toEqual({
      config: undefined,
      problems: [
        {
          variable: 'FLEET_HALT_REF',
          value: 'docker.io/acme/fleet-control@sha256:abc',
          problem:
            'names a digest; must be a tag of a repository, on Docker Hub or host[:port]/, e.g. docker.io/acme/fleet-control:stg-halt or registry.example:5000/acme/fleet-control:stg-halt (the tag is what a halt is published under)',
        },
      ],
    });
  });
});

describe('FLEET_PROMOTION_REF needs a trust to verify with', () => {
  it('named with the reference as it is used, without the blanks around it', () => {
    expect(parseTickConfig({ ...CHART, FLEET_PROMOTION_REF: '  docker.io/acme/fleet-control:stg-promotion ' })).toEqual(
      E.left([
        {
          variable: 'FLEET_PROMOTION_REF',
          value: 'docker.io/acme/fleet-control:stg-promotion',
          problem: `a promotion opens a ring only once its signature verifies, and no trust is configured to verify it with: ${NO_TRUST}`,
        },
      ]),
    );
  });

  it('blank, it is unset: no trust is needed', () => {
    const parsed = parseTickConfig({ ...CHART, FLEET_PROMOTION_REF: '   ' });
    expect(E.isRight(parsed) && parsed.right.fleetPromotion).toBeUndefined();
    expect(E.isRight(parsed) && parsed.right.signatures).toBeUndefined();
  });
});

describe("a profile's mirror", () => {
  const mirrorProblems = (mirror: string) => problemsOf(shopWith((d) => Object.assign(d, { mirror })));
  const NOT_A_HOST = (mirror: string) =>
    `mirror: "${mirror}" is not a registry host (host[:port], no scheme or path, e.g. mirror.local:5000)`;

  it.each([
    'm',
    'a.local:5000',
    '10.0.0.1:5000',
    'registry.mirror.local',
    'registry.mirror.local:5000',
    'mirror-1.example:65535',
    '[::1]:5000',
    '[fd00::1]',
  ])('%s is a registry host', (mirror) => {
    expect(accepted(shopWith((d) => Object.assign(d, { mirror }))).mirror).toBe(mirror);
  });

  it.each([
    'https://mirror.local',
    'mirror.local/path',
    'mirror.local:123456',
    '-mirror.local',
    'mirror-.local',
    'mirror.local:',
    '[]:5000',
  ])('%s is not', (mirror) => {
    expect(mirrorProblems(mirror)).toEqual([NOT_A_HOST(mirror)]);
  });

  it.each(['docker.io', 'index.docker.io', 'registry-1.docker.io'])('%s is Docker Hub, an upstream', (mirror) => {
    expect(mirrorProblems(mirror)).toEqual([
      `mirror: "${mirror}" is Docker Hub, an upstream: a mirror is the registry the pods pull through`,
    ]);
  });
});

describe('the registry access variables are ours', () => {
  it('a misspelling of REGISTRY_AUTH_FILE, REGISTRY_CA_FILE or REGISTRY_PLAIN_HTTP is said with the name meant', () => {
    expect(
      misspelledVariables({ REGISTRY_AUTH_FIL: '/auth', REGISTRY_CA_FLE: '/ca', REGISTRY_PLAIN_HTP: 'mirror:5000' }),
    ).toEqual([
      { variable: 'REGISTRY_AUTH_FIL', meant: 'REGISTRY_AUTH_FILE' },
      { variable: 'REGISTRY_CA_FLE', meant: 'REGISTRY_CA_FILE' },
      { variable: 'REGISTRY_PLAIN_HTP', meant: 'REGISTRY_PLAIN_HTTP' },
    ]);
  });
});
