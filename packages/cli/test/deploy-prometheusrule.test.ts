import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runTick } from '@image-refresh/core';
import { SIM_HALT_REPO, SIM_HALT_TAG, SimWorld, simConfig, simDigest, simPorts } from '@image-refresh/core/sim';
import { loadAllYaml } from '@kubernetes/client-node';
import { afterAll, describe, expect, it } from 'vitest';
import { IMAGES } from '../../core/test/support/chart.js';
import { emptyObservations, observePorts } from '../src/metrics/observations.js';
import { tickMetrics } from '../src/metrics/tick-metrics.js';
import { requireBinary } from './support/require-binary.js';

// deploy/prometheusrule.yaml, the example alerts: its expressions name only
// metrics a tick really pushes, and Prometheus' own promtool accepts the
// rules and fires each alert on the series it is for — and on nothing else.

const RULE_FILE = new URL('../deploy/prometheusrule.yaml', import.meta.url);
const promtool = requireBinary('promtool', 'apt-get install -y prometheus (Debian ships promtool in it)');

interface AlertRule {
  readonly alert: string;
  readonly expr: string;
  readonly for?: string;
  readonly labels?: Record<string, string>;
}
interface RuleManifest {
  readonly kind: string;
  readonly spec: { readonly groups: { readonly name: string; readonly rules: AlertRule[] }[] };
}

const manifest = (): RuleManifest => {
  const [only, ...rest] = loadAllYaml(readFileSync(RULE_FILE, 'utf8')) as RuleManifest[];
  if (only === undefined || rest.length > 0) throw new Error(`${RULE_FILE.pathname} must hold exactly one object`);
  return only;
};
const rules = (): AlertRule[] => manifest().spec.groups.flatMap((g) => g.rules);

/**
 * Every metric name a tick pushes, from the metrics of a real (simulated)
 * re-image tick, a FROZEN one and one that watches a fleet halt
 * (FLEET_HALT_REF; the key file is only named, the simulator verifies).
 */
const pushedNames = async (): Promise<Set<string>> => {
  const names = new Set<string>();
  for (const stage of ['reimage', 'frozen', 'watchingHalt'] as const) {
    const config = simConfig({
      MAX_SKIP_TICKS: '1',
      ...(stage === 'watchingHalt'
        ? {
            FLEET_HALT_REF: `docker.io/${SIM_HALT_REPO}:${SIM_HALT_TAG}`,
            SIGNATURE_PUBLIC_KEYS: '/etc/image-refresh/fleet.pub',
          }
        : {}),
    });
    const world = new SimWorld(config);
    for (const image of IMAGES) world.setAnnotation(image.recordKey, simDigest(`${image.repo}#1`));
    if (stage !== 'frozen') world.publish('tracebloc/jobs-manager', simDigest('tracebloc/jobs-manager#2'));
    else world.setBehaviour('jobs-manager', 'neverReady');
    const observed = emptyObservations();
    const outcome = await runTick(config, observePorts(simPorts(world), observed, config.topology));
    const requests = { kubernetes: 1, events: 0, registry: 0, token: 0 };
    for (const gauge of tickMetrics({ outcome, observed, requests, startedAtMs: 0, endedAtMs: 1 }, config)) {
      if (gauge.samples.length > 0) names.add(gauge.name);
    }
  }
  return names;
};

describe('deploy/prometheusrule.yaml', () => {
  it('is a PrometheusRule with its alerts: frozen, flap lockout, no success, never a success, an unreachable registry, rejection, rollback, quarantine, soak, the fleet halt, the fleet promotion, platforms, staging', () => {
    expect(manifest().kind).toBe('PrometheusRule');
    expect(rules().map((r) => r.alert)).toEqual([
      'ImageRefreshFrozen',
      'ImageRefreshFlapLockout',
      'ImageRefreshNoSuccess',
      'ImageRefreshNeverSucceeded',
      'ImageRefreshRegistryUnreachable',
      'ImageRefreshSignatureRejected',
      'ImageRefreshRolledBack',
      'ImageRefreshQuarantineHeld',
      'ImageRefreshSoakingLong',
      'ImageRefreshHaltUnverified',
      'ImageRefreshPromotionUnverified',
      'ImageRefreshFleetHaltLong',
      'ImageRefreshPlatformMismatch',
      'ImageRefreshNotStaged',
    ]);
  });

  it('names in its expressions only metrics a tick pushes', async () => {
    const pushed = await pushedNames();
    const named = rules().flatMap((r) => r.expr.match(/\bimage_refresh_[a-z_]+/g) ?? []);
    expect(named.length).toBeGreaterThanOrEqual(rules().length);
    expect(named.filter((name) => !pushed.has(name))).toEqual([]);
  });

  it('is not among the kustomize base’s resources: the CRD exists only where prometheus-operator runs', () => {
    const kustomization = readFileSync(new URL('../deploy/kustomization.yaml', import.meta.url), 'utf8');
    expect(kustomization).not.toContain('prometheusrule.yaml');
  });
});

describe.skipIf(promtool.skip)('deploy/prometheusrule.yaml under promtool', () => {
  const dir = mkdtempSync(join(tmpdir(), 'image-refresh-promtool-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const edge = 'namespace="tracebloc",release="stg"';
  const labels = { namespace: 'tracebloc', release: 'stg' };
  const promtoolRun = (args: string[]) => execFileSync(promtool.path, args, { cwd: dir, encoding: 'utf8' });

  const writeRules = () => writeFileSync(join(dir, 'rules.yml'), JSON.stringify(manifest().spec));

  it('promtool check rules accepts the rules', () => {
    writeRules();
    expect(promtoolRun(['check', 'rules', 'rules.yml'])).toContain(`SUCCESS: ${rules().length} rules found`);
  });

  it('each alert fires on its series and not on a healthy edge (promtool test rules)', () => {
    writeRules();
    const test = {
      rule_files: ['rules.yml'],
      evaluation_interval: '1m',
      tests: [
        {
          interval: '1m',
          input_series: [
            { series: `image_refresh_tick_outcome{outcome="frozen",${edge}}`, values: '1x10' },
            { series: `image_refresh_flap_locked_out{${edge}}`, values: '1x10' },
            // The last success at t=0, never again: 2 h later the alert fires, not before.
            { series: `image_refresh_last_success_timestamp_seconds{${edge}}`, values: '0x200' },
            // A healthy edge: complete, not locked out, succeeded just now.
            { series: 'image_refresh_tick_outcome{outcome="complete",release="ok"}', values: '1x200' },
            { series: 'image_refresh_flap_locked_out{release="ok"}', values: '0x200' },
            { series: 'image_refresh_last_success_timestamp_seconds{release="ok"}', values: '0+60x200' },
          ],
          alert_rule_test: [
            {
              eval_time: '5m',
              alertname: 'ImageRefreshFrozen',
              exp_alerts: [
                {
                  exp_labels: { ...labels, outcome: 'frozen', severity: 'warning' },
                  exp_annotations: {
                    summary: 'image-refresh is FROZEN on tracebloc/stg',
                    description:
                      'jobs-manager has been unsettled for MAX_SKIP_TICKS ticks in a row; no image is refreshed until it settles. `image-refresh status` says why.',
                  },
                },
              ],
            },
            {
              eval_time: '5m',
              alertname: 'ImageRefreshFlapLockout',
              exp_alerts: [
                {
                  exp_labels: { ...labels, severity: 'warning' },
                  exp_annotations: {
                    summary: 'image-refresh is in flap lockout on tracebloc/stg',
                    description:
                      'refresh-attempt reached MAX_REFRESH_ATTEMPTS; fix the build, then run `image-refresh rearm`.',
                  },
                },
              ],
            },
            { eval_time: '1h59m', alertname: 'ImageRefreshNoSuccess', exp_alerts: [] },
            {
              eval_time: '2h1m',
              alertname: 'ImageRefreshNoSuccess',
              exp_alerts: [
                {
                  exp_labels: { ...labels, severity: 'critical' },
                  exp_annotations: {
                    summary: 'image-refresh has not succeeded for 2 h on tracebloc/stg',
                    description:
                      "The last tick that exited 0 ended 2h 1m 0s ago. Check the CronJob's Jobs and `kubectl logs`; the last tick's outcome is image_refresh_tick_outcome.",
                  },
                },
              ],
            },
          ],
        },
      ],
    };
    writeFileSync(join(dir, 'test.yml'), JSON.stringify(test));
    expect(promtoolRun(['test', 'rules', 'test.yml'])).toContain('SUCCESS');
  });

  /** One promtool unit test: the series, then at each time which alerts of `alertname` fire, with what. */
  const promtoolTest = (
    inputSeries: readonly { series: string; values: string }[],
    cases: readonly { eval_time: string; alertname: string; exp_alerts: unknown[] }[],
  ): string => {
    writeRules();
    const test = {
      rule_files: ['rules.yml'],
      evaluation_interval: '1m',
      tests: [{ interval: '1m', input_series: inputSeries, alert_rule_test: cases }],
    };
    writeFileSync(join(dir, 'test.yml'), JSON.stringify(test));
    return promtoolRun(['test', 'rules', 'test.yml']);
  };
  const fired = (extra: Record<string, string>, summary: string, description: string) => ({
    exp_labels: { ...labels, ...extra },
    exp_annotations: { summary, description },
  });

  it('ImageRefreshNeverSucceeded: an edge that pushes but never pushed a success, after 2 h; not one that succeeded', () => {
    const out = promtoolTest(
      [
        // A new edge whose every tick fails: last run, never a last success.
        { series: `image_refresh_last_run_timestamp_seconds{${edge}}`, values: '0+60x200' },
        // A healthy edge pushes both.
        { series: 'image_refresh_last_run_timestamp_seconds{release="ok"}', values: '0+60x200' },
        { series: 'image_refresh_last_success_timestamp_seconds{release="ok"}', values: '0+60x200' },
      ],
      [
        { eval_time: '1h59m', alertname: 'ImageRefreshNeverSucceeded', exp_alerts: [] },
        {
          eval_time: '2h1m',
          alertname: 'ImageRefreshNeverSucceeded',
          exp_alerts: [
            fired(
              { severity: 'critical' },
              'image-refresh has never succeeded on tracebloc/stg',
              "This edge has pushed ticks for 2 h and not one exited 0. Check the CronJob's Jobs and `kubectl logs`; the last tick's outcome is image_refresh_tick_outcome.",
            ),
          ],
        },
      ],
    );
    expect(out).toContain('SUCCESS');
  });

  it('ImageRefreshRegistryUnreachable fires on that outcome, not on a silent tick below the ceiling', () => {
    const out = promtoolTest(
      [
        { series: `image_refresh_tick_outcome{outcome="registryUnreachable",${edge}}`, values: '1x10' },
        { series: 'image_refresh_tick_outcome{outcome="complete",release="ok"}', values: '1x10' },
      ],
      [
        {
          eval_time: '5m',
          alertname: 'ImageRefreshRegistryUnreachable',
          exp_alerts: [
            fired(
              { outcome: 'registryUnreachable', severity: 'critical' },
              'image-refresh cannot reach the registry from tracebloc/stg',
              'Some image has not been resolved for MAX_RESOLVE_FAILURE_TICKS ticks in a row, so it cannot be refreshed. `kubectl logs` says REGISTRY UNREACHABLE with the images and the last cause; image_refresh_image_resolve_failed names the images.',
            ),
          ],
        },
      ],
    );
    expect(out).toContain('SUCCESS');
  });

  it('ImageRefreshSignatureRejected, ImageRefreshRolledBack, ImageRefreshQuarantineHeld fire on their gauges, not on 0', () => {
    const out = promtoolTest(
      [
        { series: `image_refresh_signatures_rejected{${edge}}`, values: '1x10' },
        { series: `image_refresh_rolled_back{${edge}}`, values: '2x10' },
        { series: `image_refresh_quarantined_digests{${edge}}`, values: '1x10' },
        { series: 'image_refresh_signatures_rejected{release="ok"}', values: '0x10' },
        { series: 'image_refresh_rolled_back{release="ok"}', values: '0x10' },
        { series: 'image_refresh_quarantined_digests{release="ok"}', values: '0x10' },
      ],
      [
        {
          eval_time: '5m',
          alertname: 'ImageRefreshSignatureRejected',
          exp_alerts: [
            fired(
              { severity: 'critical' },
              'image-refresh rejected an unverified build on tracebloc/stg',
              '1 new digest(s) behind the tag did not verify and were not rolled out. `kubectl logs` says SIGNATURE NOT VERIFIED with the reason; sign the build, or find who pushed it.',
            ),
          ],
        },
        {
          eval_time: '5m',
          alertname: 'ImageRefreshRolledBack',
          exp_alerts: [
            fired(
              { severity: 'warning' },
              'image-refresh rolled back a failed build on tracebloc/stg',
              '2 workload(s) went back to the recorded digests after a failed rollout (ROLLED BACK in `kubectl logs`); the failed digest is quarantined until `image-refresh rearm`.',
            ),
          ],
        },
        {
          eval_time: '5m',
          alertname: 'ImageRefreshQuarantineHeld',
          exp_alerts: [
            fired(
              { severity: 'warning' },
              'image-refresh holds a quarantined build back on tracebloc/stg',
              '1 digest(s) failed a rollout here and stay quarantined until `image-refresh rearm`; `image-refresh status` names them.',
            ),
          ],
        },
      ],
    );
    expect(out).toContain('SUCCESS');
  });

  it('ImageRefreshHaltUnverified after two ticks of it, ImageRefreshPlatformMismatch at once; not on another outcome', () => {
    const out = promtoolTest(
      [
        { series: `image_refresh_tick_outcome{outcome="haltUnverified",${edge}}`, values: '1x40' },
        {
          series: `image_refresh_tick_outcome{outcome="platformMismatch",namespace="tracebloc",release="arm"}`,
          values: '1x40',
        },
        // A halt verified and in force is a decision, not these findings.
        { series: 'image_refresh_tick_outcome{outcome="halted",release="ok"}', values: '1x40' },
      ],
      [
        // One tick's registry blip (its outcome stays pushed for the 15 minutes until the next tick) does not page.
        { eval_time: '16m', alertname: 'ImageRefreshHaltUnverified', exp_alerts: [] },
        {
          eval_time: '21m',
          alertname: 'ImageRefreshHaltUnverified',
          exp_alerts: [
            fired(
              { outcome: 'haltUnverified', severity: 'critical' },
              'image-refresh cannot read or verify the fleet halt on tracebloc/stg',
              'The halt at FLEET_HALT_REF could not be read or verified (a registry failure on its tag, a document that does not parse, or no trusted signature), so this edge holds every change back. `kubectl logs` says FLEET HALT UNVERIFIED with the reason.',
            ),
          ],
        },
        {
          eval_time: '1m',
          alertname: 'ImageRefreshPlatformMismatch',
          exp_alerts: [
            {
              exp_labels: { namespace: 'tracebloc', release: 'arm', outcome: 'platformMismatch', severity: 'warning' },
              exp_annotations: {
                summary: 'image-refresh holds back a build missing a platform on tracebloc/arm',
                description:
                  'A new digest behind the tag drops a platform the recorded build provides and was not rolled out. `kubectl logs` says PLATFORM MISMATCH with the platforms; push a multi-platform build.',
              },
            },
          ],
        },
      ],
    );
    expect(out).toContain('SUCCESS');
  });

  it('ImageRefreshPromotionUnverified after two ticks of it; not while a change only waits for its promotion', () => {
    const out = promtoolTest(
      [
        { series: `image_refresh_tick_outcome{outcome="promotionUnverified",${edge}}`, values: '1x40' },
        // Waiting for a promotion is the gate working, not this finding.
        { series: 'image_refresh_tick_outcome{outcome="awaitingPromotion",release="ok"}', values: '1x40' },
      ],
      [
        { eval_time: '16m', alertname: 'ImageRefreshPromotionUnverified', exp_alerts: [] },
        {
          eval_time: '21m',
          alertname: 'ImageRefreshPromotionUnverified',
          exp_alerts: [
            fired(
              { outcome: 'promotionUnverified', severity: 'critical' },
              'image-refresh cannot read or verify the fleet promotion on tracebloc/stg',
              'The promotion at FLEET_PROMOTION_REF could not be read or verified (a registry failure on its tag, a document that does not parse, or no trusted signature), so this edge acts on no changed digest. `kubectl logs` says PROMOTION UNVERIFIED with the reason.',
            ),
          ],
        },
      ],
    );
    expect(out).toContain('SUCCESS');
  });

  it('ImageRefreshFleetHaltLong after a day of a halt in force; ImageRefreshNotStaged after 2 h of notStaged ticks', () => {
    const out = promtoolTest(
      [
        { series: `image_refresh_fleet_halt{${edge}}`, values: '1x1600' },
        { series: `image_refresh_tick_outcome{outcome="notStaged",${edge}}`, values: '1x1600' },
        // An edge with FLEET_HALT_REF set and no halt in force pushes 0; its ticks are complete.
        { series: 'image_refresh_fleet_halt{release="ok"}', values: '0x1600' },
        { series: 'image_refresh_tick_outcome{outcome="complete",release="ok"}', values: '1x1600' },
      ],
      [
        { eval_time: '23h59m', alertname: 'ImageRefreshFleetHaltLong', exp_alerts: [] },
        {
          eval_time: '24h1m',
          alertname: 'ImageRefreshFleetHaltLong',
          exp_alerts: [
            fired(
              { severity: 'warning' },
              'a fleet halt has held tracebloc/stg for a day',
              'A verified fleet halt (FLEET_HALT_REF) has been in force here for 24 h; `image-refresh status` shows its reason and expiry. Lift it as docs/fleet-halt.md says once the incident is over.',
            ),
          ],
        },
        { eval_time: '1h59m', alertname: 'ImageRefreshNotStaged', exp_alerts: [] },
        {
          eval_time: '2h1m',
          alertname: 'ImageRefreshNotStaged',
          exp_alerts: [
            fired(
              { outcome: 'notStaged', severity: 'warning' },
              'image-refresh has not staged new images for 2 h on tracebloc/stg',
              'The new images could not be staged on every node of their workloads (a pull that failed or outlasted PREPULL_TIMEOUT, or staging pods the API refused), tick after tick; the old pods still serve. `kubectl logs` says "could not stage" with each node and why.',
            ),
          ],
        },
      ],
    );
    expect(out).toContain('SUCCESS');
  });

  it('ImageRefreshSoakingLong: digests soaking for a whole day, not for less, not none', () => {
    const out = promtoolTest(
      [
        { series: `image_refresh_digests_soaking{${edge}}`, values: '1x1600' },
        { series: 'image_refresh_digests_soaking{release="ok"}', values: '0x1600' },
      ],
      [
        { eval_time: '23h59m', alertname: 'ImageRefreshSoakingLong', exp_alerts: [] },
        {
          eval_time: '24h1m',
          alertname: 'ImageRefreshSoakingLong',
          exp_alerts: [
            fired(
              { severity: 'warning' },
              'image-refresh has held new builds back for a day on tracebloc/stg',
              '1 digest(s) still soak (MIN_DIGEST_AGE, ROLLOUT_RING); `image-refresh status` says when each is due. A tag that moves more often than the required age never gets a build through.',
            ),
          ],
        },
      ],
    );
    expect(out).toContain('SUCCESS');
  });
});
