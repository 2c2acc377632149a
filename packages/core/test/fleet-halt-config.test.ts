import * as E from 'fp-ts/lib/Either.js';
import { describe, expect, it } from 'vitest';
import { parseFleetHaltReference } from '../src/config/fleet-halt-config.js';
import { parseTickConfig } from '../src/config/parse-config.js';
import { describeConfigError } from '../src/config/tick-config.js';
import { portBounds } from '../src/machine/port-bounds.js';
import { worstCaseTickMs } from '../src/machine/tick-deadline.js';
import { SIM_ENVIRONMENT, simConfig } from '../src/sim/index.js';

// FLEET_HALT_REF and FLEET_HALT_EXIT as the configuration reads them
// (docs/behaviour.md §3.4b, §3 "Exit codes"): a tag of a repository on
// Docker Hub or on any host, verified with VERIFY_SIGNATURES's trust whatever
// VERIFY_SIGNATURES says — and every problem named at once, exit 2.

const REF = 'docker.io/tracebloc/fleet-control:stg-halt';
const KEYS = '/etc/image-refresh/keys/fleet.pub';
const KEYLESS = {
  SIGNATURE_IDENTITY: 'https://github.com/tracebloc/client/.github/workflows/halt.yml@refs/heads/main',
  SIGNATURE_ISSUER: 'https://token.actions.githubusercontent.com',
  SIGSTORE_TRUSTED_ROOT: '/etc/sigstore/trusted_root.json',
};

const problems = (env: Record<string, string>): string[] => {
  const parsed = parseTickConfig({ ...SIM_ENVIRONMENT, ...env });
  return E.isLeft(parsed) ? parsed.left.map(describeConfigError) : [];
};

describe('FLEET_HALT_REF', () => {
  it.each([
    [REF, { host: 'docker.io', repo: 'tracebloc/fleet-control', tag: 'stg-halt' }],
    ['tracebloc/fleet-control:stg-halt', { host: 'docker.io', repo: 'tracebloc/fleet-control', tag: 'stg-halt' }],
    [
      'index.docker.io/tracebloc/fleet-control:v1.2',
      { host: 'docker.io', repo: 'tracebloc/fleet-control', tag: 'v1.2' },
    ],
    ['registry-1.docker.io/acme/halts/prod:p_1', { host: 'docker.io', repo: 'acme/halts/prod', tag: 'p_1' }],
    ['acme/docker.io/halt:t', { host: 'docker.io', repo: 'acme/docker.io/halt', tag: 't' }],
    ['acme/fleet.control/halt:t', { host: 'docker.io', repo: 'acme/fleet.control/halt', tag: 't' }],
    ['a__b/c--d/e.f:t', { host: 'docker.io', repo: 'a__b/c--d/e.f', tag: 't' }],
    ['ab_cd/e:t', { host: 'docker.io', repo: 'ab_cd/e', tag: 't' }],
    ['a--b/c:t', { host: 'docker.io', repo: 'a--b/c', tag: 't' }],
    ['ghcr.io/acme/halt:stg', { host: 'ghcr.io', repo: 'acme/halt', tag: 'stg' }],
    ['localhost/acme/halt:stg', { host: 'localhost', repo: 'acme/halt', tag: 'stg' }],
    ['registry.local:5000/acme/halt:stg', { host: 'registry.local:5000', repo: 'acme/halt', tag: 'stg' }],
    ['127.0.0.1:5000/acme/halts/prod:p_1', { host: '127.0.0.1:5000', repo: 'acme/halts/prod', tag: 'p_1' }],
  ])('%s is a tag of a repository on its host', (reference, expected) => {
    expect(parseFleetHaltReference(reference)).toEqual(expected);
  });

  it.each([
    ['ghcr.io/acme:stg', 'names no repository of the form namespace/name'],
    ['registry.local:5000/:stg', 'names no repository of the form namespace/name'],
    ['docker.io/tracebloc/fleet-control', 'has no tag'],
    [`docker.io/tracebloc/fleet-control@sha256:${'a'.repeat(64)}`, 'names a digest'],
    [`docker.io/tracebloc/fleet-control:stg@sha256:${'a'.repeat(64)}`, 'names a digest'],
    ['docker.io/fleet-control:stg', 'names no repository of the form namespace/name'],
    ['docker.io/Tracebloc/Fleet:stg', 'names no repository of the form namespace/name'],
    ['docker.io/tracebloc/fleet-control:-bad', 'has a tag that is not a valid image tag'],
    [':stg', 'names no repository of the form namespace/name'],
    ['docker.io/a/b.:stg', 'names no repository of the form namespace/name'],
    ['docker.io/_a/b:stg', 'names no repository of the form namespace/name'],
    ['docker.io/a//b:stg', 'names no repository of the form namespace/name'],
    ['docker.io/a/b-:stg', 'names no repository of the form namespace/name'],
    ['docker.io/ab/c_:stg', 'names no repository of the form namespace/name'],
    ['docker.io/a/b/:stg', 'names no repository of the form namespace/name'],
    [`docker.io/tracebloc/fleet-control:${'t'.repeat(129)}`, 'has a tag that is not a valid image tag'],
  ])('%s is refused: it %s', (reference, problem) => {
    const parsed = parseFleetHaltReference(reference);
    expect(
      'problem' in parsed &&
        parsed.problem.startsWith(`${problem}; must be a tag of a repository, on Docker Hub or host[:port]/`),
    ).toBe(true);
  });

  it('unset: no fleet halt in the config, and no trust read with VERIFY_SIGNATURES off (the script’s config)', () => {
    const config = simConfig({ SIGNATURE_PUBLIC_KEYS: KEYS });
    expect(config.fleetHalt).toBeUndefined();
    expect(config.signatures).toBeUndefined();
    expect(simConfig({ FLEET_HALT_REF: '  ' }).fleetHalt).toBeUndefined();
  });

  it('set, with keys: the halt and its trust, VERIFY_SIGNATURES still off', () => {
    const config = simConfig({ FLEET_HALT_REF: ` ${REF} `, SIGNATURE_PUBLIC_KEYS: KEYS });
    expect(config.fleetHalt).toEqual({
      reference: REF,
      host: 'docker.io',
      repo: 'tracebloc/fleet-control',
      tag: 'stg-halt',
      exitOnHold: false,
    });
    expect(config.signatures).toEqual({ mode: 'off', publicKeyFiles: [KEYS] });
  });

  it('set, with the keyless trio alone: trusted', () => {
    const config = simConfig({ FLEET_HALT_REF: REF, ...KEYLESS });
    expect(config.signatures?.keyless?.issuer).toBe(KEYLESS.SIGNATURE_ISSUER);
    expect(config.signatures?.publicKeyFiles).toEqual([]);
  });

  it('set without any trust: exit 2 naming FLEET_HALT_REF and SIGNATURE_PUBLIC_KEYS', () => {
    expect(problems({ FLEET_HALT_REF: REF })).toEqual([
      `FLEET_HALT_REF="${REF}": a halt is obeyed only once its signature verifies, and no trust is configured to verify it with: set SIGNATURE_PUBLIC_KEYS (PEM public-key files) and/or SIGNATURE_IDENTITY, SIGNATURE_ISSUER and SIGSTORE_TRUSTED_ROOT (keyless)`,
    ]);
  });

  it('with VERIFY_SIGNATURES on and no trust, both variables are named, every problem at once', () => {
    expect(problems({ FLEET_HALT_REF: 'ghcr.io/x:z', VERIFY_SIGNATURES: 'enforce', FLEET_HALT_EXIT: '2' })).toEqual([
      expect.stringMatching(/^VERIFY_SIGNATURES="enforce": verifies with nothing: set SIGNATURE_PUBLIC_KEYS/),
      expect.stringMatching(/^FLEET_HALT_REF="ghcr\.io\/x:z": a halt is obeyed only once its signature verifies/),
      'FLEET_HALT_EXIT="2": must be "1" (a halt that holds a change back exits 1) or "0" (it exits 0, a decision, not a fault)',
      expect.stringMatching(
        /^FLEET_HALT_REF="ghcr\.io\/x:z": names no repository of the form namespace\/name; must be a tag/,
      ),
    ]);
  });

  it('a partial keyless setup is named as under VERIFY_SIGNATURES', () => {
    expect(problems({ FLEET_HALT_REF: REF, SIGNATURE_ISSUER: KEYLESS.SIGNATURE_ISSUER })).toEqual([
      expect.stringMatching(/^SIGNATURE_IDENTITY: is required with the other keyless variables/),
      expect.stringMatching(/^SIGSTORE_TRUSTED_ROOT: is required with the other keyless variables/),
    ]);
  });

  it('FLEET_HALT_EXIT empty or blank is unset, like every variable', () => {
    expect(problems({ FLEET_HALT_EXIT: '' })).toEqual([]);
    expect(problems({ FLEET_HALT_EXIT: '  ' })).toEqual([]);
  });

  it('FLEET_HALT_EXIT: 1 makes a held change a finding, 0 or unset does not', () => {
    const withKeys = { FLEET_HALT_REF: REF, SIGNATURE_PUBLIC_KEYS: KEYS };
    expect(simConfig({ ...withKeys, FLEET_HALT_EXIT: '1' }).fleetHalt?.exitOnHold).toBe(true);
    expect(simConfig({ ...withKeys, FLEET_HALT_EXIT: '0' }).fleetHalt?.exitOnHold).toBe(false);
    expect(problems({ FLEET_HALT_EXIT: 'yes' })).toEqual([
      'FLEET_HALT_EXIT="yes": must be "1" (a halt that holds a change back exits 1) or "0" (it exits 0, a decision, not a fault)',
    ]);
  });
});

describe('worstCaseTickMs with FLEET_HALT_REF (docs/behaviour.md §3 "Bounds")', () => {
  it('adds the halt’s HEAD, its document read, its signature check, the pins’ with VERIFY_SIGNATURES off, and 4 API bounds', () => {
    const off = simConfig({ SIGNATURE_PUBLIC_KEYS: KEYS });
    const on = simConfig({ FLEET_HALT_REF: REF, SIGNATURE_PUBLIC_KEYS: KEYS });
    const b = portBounds(on);
    const expected = 3 * on.registryTimeoutMs + b.haltReadMs + b.verifyMs(1) + b.verifyMs(3) + 4 * b.apiMs;
    expect(worstCaseTickMs(on) - worstCaseTickMs(off)).toBe(expected);
    expect(b.haltReadMs).toBe(6 * on.registryTimeoutMs + 2_000);
  });

  it('with VERIFY_SIGNATURES on, the pins’ checks are the images’ own, already counted', () => {
    const env = { SIGNATURE_PUBLIC_KEYS: KEYS, VERIFY_SIGNATURES: 'enforce' };
    const off = simConfig(env);
    const on = simConfig({ ...env, FLEET_HALT_REF: REF });
    const b = portBounds(on);
    expect(worstCaseTickMs(on) - worstCaseTickMs(off)).toBe(
      3 * on.registryTimeoutMs + b.haltReadMs + b.verifyMs(1) + 4 * b.apiMs,
    );
  });
});
