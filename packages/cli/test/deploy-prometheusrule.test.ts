import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { IMAGES, runTick } from '@image-refresh/core';
import { SimWorld, simConfig, simDigest, simPorts } from '@image-refresh/core/sim';
import { loadAllYaml } from '@kubernetes/client-node';
import { afterAll, describe, expect, it } from 'vitest';
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

/** Every metric name a tick pushes, from the metrics of a real (simulated) re-image tick and a FROZEN one. */
const pushedNames = async (): Promise<Set<string>> => {
  const names = new Set<string>();
  const config = simConfig({ MAX_SKIP_TICKS: '1' });
  for (const stage of ['reimage', 'frozen'] as const) {
    const world = new SimWorld(config);
    for (const image of IMAGES) world.setAnnotation(image.recordKey, simDigest(`${image.repo}#1`));
    if (stage === 'reimage') world.publish('tracebloc/jobs-manager', simDigest('tracebloc/jobs-manager#2'));
    else world.setBehaviour('jobs-manager', 'neverReady');
    const observed = emptyObservations();
    const outcome = await runTick(config, observePorts(simPorts(world), observed));
    const requests = { kubernetes: 1, events: 0, registry: 0, token: 0 };
    for (const gauge of tickMetrics({ outcome, observed, requests, startedAtMs: 0, endedAtMs: 1 }, config)) {
      if (gauge.samples.length > 0) names.add(gauge.name);
    }
  }
  return names;
};

describe('deploy/prometheusrule.yaml', () => {
  it('is a PrometheusRule with the three alerts: frozen, flap lockout, no success for 2 h', () => {
    expect(manifest().kind).toBe('PrometheusRule');
    expect(rules().map((r) => r.alert)).toEqual([
      'ImageRefreshFrozen',
      'ImageRefreshFlapLockout',
      'ImageRefreshNoSuccess',
    ]);
  });

  it('names in its expressions only metrics a tick pushes', async () => {
    const pushed = await pushedNames();
    const named = rules().flatMap((r) => r.expr.match(/\bimage_refresh_[a-z_]+/g) ?? []);
    expect(named.length).toBeGreaterThanOrEqual(3);
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
    expect(promtoolRun(['check', 'rules', 'rules.yml'])).toContain('SUCCESS: 3 rules found');
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
});
