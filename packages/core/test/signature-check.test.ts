import * as E from 'fp-ts/lib/Either.js';
import { describe, expect, it } from 'vitest';
import { parseTickConfig } from '../src/config/parse-config.js';
import { interruptedBy } from '../src/machine/interrupted.js';
import { kubernetesEventsFor } from '../src/machine/kubernetes-events.js';
import { runTick } from '../src/run-tick.js';
import { SIM_ENVIRONMENT, SIM_SIGNING_KEY, SimWorld, simConfig, simDigest, simPorts } from '../src/sim/index.js';
import { aSteadyEdge, JM, PM, RM } from './support/edge.js';

// VERIFY_SIGNATURES (docs/behaviour.md §3.4a step 3): each new
// digest is checked once, before the flap back-off persists an attempt.

const KEYS = { SIGNATURE_PUBLIC_KEYS: '/etc/image-refresh/keys/sim.pub' };
const ENFORCE = { VERIFY_SIGNATURES: 'enforce', ...KEYS };
const WARN = { VERIFY_SIGNATURES: 'warn', ...KEYS };
const JM2 = simDigest(`${JM}#2`);
const RM2 = simDigest(`${RM}#2`);

const problemsOf = (env: Record<string, string>) => {
  const parsed = parseTickConfig({ ...SIM_ENVIRONMENT, ...env });
  return E.isLeft(parsed) ? parsed.left.map((e) => `${e.variable}: ${e.problem}`) : [];
};

describe('VERIFY_SIGNATURES configuration', () => {
  it('anything but off, warn or enforce is a configuration error naming the variable', () => {
    expect(problemsOf({ VERIFY_SIGNATURES: 'on' })).toEqual([
      expect.stringMatching(/^VERIFY_SIGNATURES: must be "off" .*"warn" .*"enforce"/),
    ]);
  });

  it('warn or enforce with nothing to verify with fails closed: exit 2, not "verify nothing"', () => {
    for (const mode of ['warn', 'enforce']) {
      expect(problemsOf({ VERIFY_SIGNATURES: mode })).toEqual([
        expect.stringMatching(/^VERIFY_SIGNATURES: verifies with nothing: set SIGNATURE_PUBLIC_KEYS/),
      ]);
    }
  });

  it('a partial keyless setup names each variable that is missing', () => {
    expect(problemsOf({ VERIFY_SIGNATURES: 'enforce', SIGNATURE_IDENTITY: 'ci@example.com' })).toEqual([
      expect.stringMatching(/^SIGNATURE_ISSUER: is required with the other keyless variables/),
      expect.stringMatching(/^SIGSTORE_TRUSTED_ROOT: is required with the other keyless variables/),
    ]);
  });

  it('an empty key path and a regex that does not compile are errors', () => {
    expect(problemsOf({ ...ENFORCE, SIGNATURE_PUBLIC_KEYS: 'a.pub,,b.pub' })).toEqual([
      'SIGNATURE_PUBLIC_KEYS: has an empty entry: give comma-separated paths of PEM public-key files',
    ]);
    expect(
      problemsOf({
        VERIFY_SIGNATURES: 'warn',
        SIGNATURE_IDENTITY: '/^https://github.com/(acme/',
        SIGNATURE_ISSUER: 'https://token.actions.githubusercontent.com',
        SIGSTORE_TRUSTED_ROOT: '/etc/trusted_root.json',
      }),
    ).toEqual([
      expect.stringMatching(/^SIGNATURE_IDENTITY: is written \/…\/ \(a regular expression\) but does not compile/),
    ]);
  });

  it('tells a regular expression (/…/) from an exact identity, and keeps every key path', () => {
    const keyless = (identity: string) =>
      simConfig({
        VERIFY_SIGNATURES: 'enforce',
        SIGNATURE_PUBLIC_KEYS: ' old.pub , new.pub ',
        SIGNATURE_IDENTITY: identity,
        SIGNATURE_ISSUER: 'https://issuer.example',
        SIGSTORE_TRUSTED_ROOT: '/root.json',
      }).signatures;
    expect(keyless('/^ci@acme\\.dev$/')).toEqual({
      mode: 'enforce',
      publicKeyFiles: ['old.pub', 'new.pub'],
      keyless: {
        identity: { pattern: '^ci@acme\\.dev$' },
        issuer: 'https://issuer.example',
        trustedRootFile: '/root.json',
      },
    });
    expect(keyless('ci@acme.dev')?.keyless?.identity).toEqual({ exact: 'ci@acme.dev' });
  });
});

describe('VERIFY_SIGNATURES=enforce', () => {
  it('an unsigned new digest is a finding: exit 1, the line, the Event; it does not roll and spends no attempt', async () => {
    const edge = await aSteadyEdge(ENFORCE);
    edge.world.publish(JM, JM2);
    const outcome = await edge.tick();
    expect(outcome.exitCode).toBe(1);
    expect(edge.line('SIGNATURE_REJECTED')).toMatch(
      new RegExp(`^ERROR: SIGNATURE NOT VERIFIED for ${JM}@${JM2}: no signature of ${JM2}`),
    );
    expect(outcome.reimages).toEqual([]);
    expect(edge.writes()).toEqual([]);
    expect(kubernetesEventsFor(outcome)).toContainEqual(
      expect.objectContaining({ type: 'Warning', reason: 'RefreshSignatureRejected' }),
    );
  });

  it('the other images go on (I15): a signed resource-monitor rolls past an unsigned jobs-manager', async () => {
    const edge = await aSteadyEdge(ENFORCE);
    edge.world.publish(JM, JM2);
    edge.world.publish(RM, RM2);
    edge.world.sign(RM, RM2);
    const outcome = await edge.tick();
    expect(outcome.exitCode).toBe(1);
    expect(outcome.reimages.map((r) => r.workload.id)).toEqual(['resource-monitor']);
    expect(edge.line('SIGNATURE_VERIFIED')).toBe(`signature of ${RM}@${RM2} verified by ${SIM_SIGNING_KEY}`);
    const reimaged = kubernetesEventsFor(outcome).find((e) => e.reason === 'RefreshReimaged');
    expect(reimaged?.message).toContain(`(signature verified by ${SIM_SIGNING_KEY})`);
  });

  it('a steady tick checks no signature: nothing changed, nothing first seen, no request (the check costs only new digests)', async () => {
    const edge = await aSteadyEdge(ENFORCE);
    const outcome = await edge.tick();
    expect(outcome.result).toBe('complete');
    expect(edge.world.calls.filter((c) => c.op === 'verifySignature')).toEqual([]);
    expect(outcome.events.filter((e) => e.code.startsWith('SIGNATURE'))).toEqual([]);
  });

  it('checks no signature while the pull budget is low: the re-image is deferred anyway (I7b), the digest checked when it can act', async () => {
    const edge = await aSteadyEdge(ENFORCE);
    edge.world.rateLimitRemaining = 3;
    edge.world.publish(JM, JM2);
    const outcome = await edge.tick();
    expect(edge.ops()).not.toContain('verifySignature');
    expect(edge.codes()).toContain('REGISTRY_BUDGET_LOW');
    expect(outcome.reimages).toEqual([]);
  });

  it('once signed, the next tick re-images it', async () => {
    const edge = await aSteadyEdge(ENFORCE);
    edge.world.publish(JM, JM2);
    expect((await edge.tick()).reimages).toEqual([]);
    edge.world.sign(JM, JM2);
    const outcome = await edge.tick();
    expect(outcome.exitCode).toBe(0);
    expect(outcome.reimages.map((r) => r.workload.id)).toEqual(['jobs-manager', 'requests-proxy']);
  });

  it('a registry failure on the signature fetch is a WARN and a retry, never a rejection, never verified', async () => {
    for (const env of [ENFORCE, WARN]) {
      const edge = await aSteadyEdge(env);
      edge.world.publish(JM, JM2);
      edge.world.sign(JM, JM2);
      edge.world.injectSignatureFault(JM, 'Transport');
      const outcome = await edge.tick();
      expect(outcome.exitCode).toBe(0);
      expect(outcome.reimages).toEqual([]);
      expect(edge.writes()).toEqual([]);
      expect(edge.line('SIGNATURE_CHECK_FAILED')).toMatch(
        /^WARN: could not check the signature of .*Will retry next tick/,
      );
      expect(kubernetesEventsFor(outcome)).toContainEqual(expect.objectContaining({ reason: 'RefreshResolveFailed' }));
      expect((await edge.tick()).reimages).toHaveLength(2);
    }
  });

  it('first observation is report-only: the baseline is recorded, no exit change, no Event (I8)', async () => {
    const edge = anUnsignedFreshInstall();
    const outcome = await runTick(edge.config, simPorts(edge));
    expect(outcome.exitCode).toBe(0);
    expect(outcome.reimages).toEqual([]);
    const lines = outcome.events.filter((e) => e.code === 'SIGNATURE_BASELINE').map((e) => e.message);
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(
      /^WARN: signature of tracebloc\/jobs-manager@sha256:.* not verified \(first observation, nothing rolled\)/,
    );
    expect(kubernetesEventsFor(outcome).map((e) => e.reason)).not.toContain('RefreshSignatureRejected');
    expect(edge.annotations['tracebloc.io/last-refreshed-jobs-manager-digest']).toBe(simDigest(`${JM}#1`));
  });

  it('without a signature port it fails closed: nothing verifies, the image waits, the WARN says why', async () => {
    const world = new SimWorld(simConfig(ENFORCE));
    const { signatures: _, ...withoutSignatures } = simPorts(world);
    await runTick(world.config, withoutSignatures);
    world.publish(PM, simDigest(`${PM}#2`));
    const outcome = await runTick(world.config, withoutSignatures);
    expect(outcome.reimages).toEqual([]);
    expect(outcome.events.find((e) => e.code === 'SIGNATURE_CHECK_FAILED')?.message).toContain(
      'no signature port (TickPorts.signatures)',
    );
  });

  it('a signature port that throws fails the whole check closed: every changed digest waits, the WARN names the defect', async () => {
    const world = new SimWorld(simConfig(ENFORCE));
    const ports = simPorts(world);
    await runTick(world.config, ports);
    world.publish(JM, JM2);
    world.sign(JM, JM2);
    world.publish(RM, RM2);
    world.sign(RM, RM2);
    const outcome = await runTick(world.config, {
      ...ports,
      signatures: {
        verify: () => {
          throw new Error('boom');
        },
      },
    });
    expect(outcome.reimages).toEqual([]);
    expect(world.calls.filter((c) => c.op === 'setImages')).toEqual([]);
    expect(outcome.events.filter((e) => e.code === 'SIGNATURE_CHECK_FAILED').map((e) => e.message)).toEqual([
      expect.stringMatching(/^WARN: .*tracebloc\/jobs-manager@sha256:.*unexpected failure: Error: boom/),
      expect.stringMatching(/^WARN: .*tracebloc\/resource-monitor@sha256:.*unexpected failure: Error: boom/),
    ]);
  });
});

const anUnsignedFreshInstall = () => new SimWorld(simConfig(ENFORCE));

describe('SIGTERM during the signature check', () => {
  it('stops there, says where it was, and acted on nothing', async () => {
    const world = new SimWorld(simConfig(ENFORCE));
    const ports = simPorts(world);
    await runTick(world.config, ports);
    world.publish(JM, JM2);
    world.sign(JM, JM2);
    const { signatures } = ports;
    if (signatures === undefined) throw new Error('simPorts gave no signature port');
    const stop = new AbortController();
    const outcome = await runTick(
      world.config,
      {
        ...ports,
        signatures: {
          verify: (target) => {
            stop.abort(interruptedBy('SIGTERM'));
            return signatures.verify(target);
          },
        },
      },
      { signal: stop.signal },
    );
    expect(outcome.exitCode).toBe(143);
    expect(outcome.events.at(-1)?.message).toContain('while checking signatures of new digests');
    expect(outcome.reimages).toEqual([]);
    expect(outcome.writes).toEqual([]);
  });
});

describe('VERIFY_SIGNATURES=warn', () => {
  it('an unsigned new digest is re-imaged anyway, with a WARN line and a Warning Event', async () => {
    const edge = await aSteadyEdge(WARN);
    edge.world.publish(JM, JM2);
    const outcome = await edge.tick();
    expect(outcome.exitCode).toBe(0);
    expect(outcome.reimages).toHaveLength(2);
    expect(edge.line('SIGNATURE_NOT_VERIFIED')).toMatch(/^WARN: SIGNATURE NOT VERIFIED for .* re-imaging anyway/);
    expect(kubernetesEventsFor(outcome)).toContainEqual(
      expect.objectContaining({ type: 'Warning', reason: 'RefreshSignatureNotVerified' }),
    );
  });
});

describe('VERIFY_SIGNATURES=off (the default)', () => {
  it('asks nothing and says nothing about signatures', async () => {
    const edge = await aSteadyEdge({});
    edge.world.publish(JM, JM2);
    const outcome = await edge.tick();
    expect(outcome.reimages).toHaveLength(2);
    expect(edge.ops()).not.toContain('verifySignature');
    expect(outcome.events.filter((e) => e.code.startsWith('SIGNATURE_'))).toEqual([]);
    expect(outcome.signatureChecks).toBeUndefined();
  });
});
