import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { binDir, helmPath, isBuilt } from '../../../../tools/helm/binaries.mjs';
import { CHART_DIR } from './values-schema.js';

// The real helm, built from its Go module into a cache outside the tree
// (tools/helm; `.ci/run` builds it before the tests). Where it is not built
// the chart's suites skip, saying how to build it — except in CI
// (IMAGE_REFRESH_CI=1), where a skip would hide what they exist to prove.
// helm runs with its config, cache and data homes in a temp dir: it never
// reads or writes the user's.

const located = (): { path: string; missing?: string } => {
  const path = helmPath();
  if (process.env.IMAGE_REFRESH_HELM_BIN !== undefined || isBuilt(binDir())) {
    if (existsSync(path)) return { path };
  }
  const missing = `helm is not built: node tools/helm/build.mjs (Go 1.26; builds ${path})`;
  if (process.env.IMAGE_REFRESH_CI === '1') throw new Error(`CI requires helm: ${missing}`);
  return { path, missing };
};

export const HELM = located();
if (HELM.missing !== undefined) console.warn(`SKIPPED: ${HELM.missing}`);

export interface HelmRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

const home = mkdtempSync(join(tmpdir(), 'image-refresh-helm-home-'));
process.once('exit', () => rmSync(home, { recursive: true, force: true }));

/** `helm <args>`, bounded, with its homes in a temp dir and KUBECONFIG from `env`. */
export const helm = (args: readonly string[], env: Readonly<Record<string, string>> = {}): HelmRun => {
  const run = spawnSync(HELM.path, [...args], {
    encoding: 'utf8',
    timeout: 120_000,
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: home,
      HELM_CACHE_HOME: join(home, 'cache'),
      HELM_CONFIG_HOME: join(home, 'config'),
      HELM_DATA_HOME: join(home, 'data'),
      ...env,
    },
  });
  if (run.error !== undefined) throw run.error;
  return { code: run.status ?? -1, stdout: run.stdout, stderr: run.stderr };
};

/** A digest for the image value: the chart requires one. */
export const IMAGE_VALUES = {
  image: { repository: 'registry.example/image-refresh', digest: `sha256:${'a'.repeat(64)}` },
};

/** A values file of `values` in a temp dir, and its path; removed at exit with the helm home. */
export const valuesFile = (values: unknown): string => {
  const dir = mkdtempSync(join(home, 'values-'));
  const path = join(dir, 'values.yaml');
  // JSON is YAML.
  writeFileSync(path, JSON.stringify(values));
  return path;
};

/** One rendered object, as far as the chart's tests read it. */
export interface Rendered {
  readonly apiVersion: string;
  readonly kind: string;
  readonly metadata: { readonly name: string; readonly namespace?: string; readonly labels?: Record<string, string> };
  readonly [field: string]: unknown;
}

/**
 * `helm template <release> charts/image-refresh -n <namespace>` with each
 * values file in order: the objects, or the failed run.
 */
export const template = (
  release: string,
  namespace: string,
  values: readonly (string | unknown)[],
): { objects: Rendered[]; run: HelmRun } => {
  const files = values.map((v) => (typeof v === 'string' ? v : valuesFile(v)));
  const run = helm(['template', release, CHART_DIR, '--namespace', namespace, ...files.flatMap((f) => ['-f', f])]);
  const objects = run.code === 0 ? parseAllDocuments(run.stdout).map((d) => d.toJS() as Rendered | null) : [];
  return { objects: objects.filter((o): o is Rendered => o !== null), run };
};
