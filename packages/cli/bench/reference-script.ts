import { spawn } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

// The script the CLI replaces, run for the side-by-side bench (README, Benchmarks): the
// `image-refresh.sh` block of the chart's ConfigMap, taken from the
// operator's copy of client/templates/image-refresh-cronjob.yaml at bench
// time — fetched code is never committed here. It runs unmodified with two
// shims first on PATH:
//   - kubectl: its `kubectl config …` lines (which build an in-cluster
//     kubeconfig from a service account this machine does not have) do
//     nothing; every other call is the real kubectl against the bench's fake
//     API server (--kubeconfig), as the CLI's tick talks to it;
//   - curl: the two Docker Hub URLs the script hard-codes
//     (auth.docker.io/token, registry-1.docker.io) go to the bench's registry
//     on 127.0.0.1; any other URL is refused, so the bench reaches no other host.

export interface ReferenceScript {
  readonly path: string;
  /** One run with `env` (the CLI's environment); its wall time in ms. Throws unless it ends as a steady tick. */
  run(env: Readonly<Record<string, string>>): Promise<number>;
}

const SCRIPT_BLOCK = /^ {2}image-refresh\.sh: \|\n((?: {4}.*\n|\n)+)/m;

const extract = (yaml: string, path: string): string => {
  const block = SCRIPT_BLOCK.exec(yaml)?.[1];
  if (block === undefined) throw new Error(`${path}: no "image-refresh.sh: |" block in the ConfigMap`);
  return block.replace(/^ {4}/gm, '');
};

const kubectlShim = (kubeconfig: string): string =>
  [
    '#!/bin/sh',
    '[ "$1" = config ] && exit 0',
    `exec /usr/bin/kubectl --kubeconfig=${JSON.stringify(kubeconfig)} "$@"`,
    '',
  ].join('\n');

const curlShim = (registryUrl: string): string =>
  [
    '#!/bin/sh',
    'for a in "$@"; do case "$a" in',
    `  https://auth.docker.io/token*) set -- "$@" "${registryUrl}/token\${a#https://auth.docker.io/token}" ;;`,
    `  https://registry-1.docker.io/*) set -- "$@" "${registryUrl}/\${a#https://registry-1.docker.io/}" ;;`,
    '  http://*|https://*) echo "bench curl shim: refused $a (only the two Docker Hub URLs, mapped to 127.0.0.1)" >&2; exit 7 ;;',
    '  *) set -- "$@" "$a" ;;',
    'esac; shift; done',
    'exec /usr/bin/curl "$@"',
    '',
  ].join('\n');

export const referenceScript = (
  yamlPath: string,
  dir: string,
  target: { readonly registryUrl: string; readonly kubeconfig: string },
): ReferenceScript => {
  const script = join(dir, 'image-refresh.sh');
  writeFileSync(script, extract(readFileSync(yamlPath, 'utf8'), yamlPath));
  const bin = join(dir, 'reference-bin');
  mkdirSync(bin, { recursive: true });
  writeFileSync(join(bin, 'kubectl'), kubectlShim(target.kubeconfig));
  writeFileSync(join(bin, 'curl'), curlShim(target.registryUrl));
  chmodSync(join(bin, 'kubectl'), 0o755);
  chmodSync(join(bin, 'curl'), 0o755);
  return {
    path: yamlPath,
    run: (env) =>
      new Promise((resolve, reject) => {
        const started = performance.now();
        // A fresh HOME per run, as each CronJob run is a fresh pod: kubectl's
        // discovery cache (~/.kube/cache) does not carry over between ticks.
        const home = mkdtempSync(join(dir, 'home-'));
        const child = spawn('/bin/sh', [script], {
          env: {
            ...env,
            HOME: home,
            PATH: `${bin}:${env.PATH ?? '/usr/bin:/bin'}`,
            KUBERNETES_SERVICE_HOST: '127.0.0.1',
            KUBERNETES_SERVICE_PORT: '443',
          },
        });
        let output = '';
        child.stdout.on('data', (chunk: Buffer) => {
          output += chunk.toString();
        });
        child.stderr.on('data', (chunk: Buffer) => {
          output += chunk.toString();
        });
        child.on('error', reject);
        child.on('close', (code) => {
          const ms = performance.now() - started;
          // Steady: it finished, and re-imaged nothing.
          if (code !== 0 || !output.includes('tick complete') || /set image/.test(output)) {
            reject(new Error(`the script's tick was not steady (exit ${code}):\n${output.slice(-2_000)}`));
          } else resolve(ms);
        });
      }),
  };
};
