import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  annotationsOf,
  type ChartCluster,
  imagesOf,
  JOBS_MANAGER,
  NS,
  REQUESTS_PROXY,
  RESOURCE_MONITOR,
  startChartCluster,
} from '../../packages/k8s-adapter/test/support/fake-api-chart.js';
import { LIBRARIES, pnpmCommand, ROOT } from './support/libraries.js';
import { npmEnvironment, run, transcript } from './support/processes.js';
import { type RegistryStub, startRegistryStub } from './support/registry-stub.js';

// The libraries as another tool gets them: `pnpm pack` each, install the
// tarballs with plain npm into a fresh project outside the workspace (no
// workspace link can stand in for a missing file), type-check that project's
// programs with its own tsconfig, and run them. A file missing from a
// tarball, an exports map that points nowhere, a .d.ts naming a path that was
// not published — each fails here, before a consumer finds it.
//
// The packages' dependencies (xstate, fp-ts, client-node) come from the npm
// registry. Where it cannot be reached this skips, saying so — except in CI
// (IMAGE_REFRESH_CI=1), where a skip would hide what the test exists to prove.

const CI = process.env.IMAGE_REFRESH_CI === '1';
const CONSUMER_SOURCES = join(ROOT, 'packaging/consumer');
const TSC = join(ROOT, 'node_modules/typescript/bin/tsc');
const digest = (c: string) => `sha256:${c.repeat(64)}`;
// The topology's own fingerprint (docs/behaviour.md §3.4c): recorded on the first tick, the same on every later one.
const fingerprint = expect.stringMatching(/^v1-[0-9a-f]{16}$/);

// No retries: npm's default backoff would spend minutes on a refused connection.
const registryProblem = async (): Promise<string | undefined> => {
  const ping = await run('npm', ['ping', '--fetch-retries=0', '--fetch-timeout=10000'], {
    cwd: tmpdir(),
    env: npmEnvironment(),
    timeoutMs: 20_000,
  });
  if (ping.code === 0) return undefined;
  const said = ping.stderr.split('\n').find((line) => line.startsWith('npm error')) ?? 'no answer within 20 s';
  return `the npm registry is unreachable (npm ping: ${said})`;
};
const problem = await registryProblem();
if (problem !== undefined && !CI) console.warn(`SKIPPED: consumer from the packed tarballs: ${problem}`);
const skip = problem !== undefined && !CI;

describe.skipIf(skip)(`a consumer built from the packed tarballs${skip ? ` (skipped: ${problem})` : ''}`, () => {
  let project = '';
  const tarballs = new Map<string, string>();

  beforeAll(async () => {
    if (problem !== undefined) throw new Error(`IMAGE_REFRESH_CI=1 and ${problem}`);
    project = mkdtempSync(join(tmpdir(), 'image-refresh-consumer-'));
    const packed = join(project, '.tarballs');
    mkdirSync(packed);
    const pnpm = pnpmCommand();
    for (const library of LIBRARIES) {
      const ran = await run(pnpm.file, [...pnpm.args, 'pack', '--json', '--pack-destination', packed], {
        cwd: library.dir,
        env: process.env,
        timeoutMs: 60_000,
      });
      if (ran.code !== 0) throw new Error(transcript(`pnpm pack of ${library.name}`, ran));
      tarballs.set(library.name, (JSON.parse(ran.stdout) as { filename: string }).filename);
    }

    cpSync(join(CONSUMER_SOURCES, 'tsconfig.json'), join(project, 'tsconfig.json'));
    cpSync(join(CONSUMER_SOURCES, 'src'), join(project, 'src'), { recursive: true });
    writeFileSync(
      join(project, 'package.json'),
      JSON.stringify({ name: 'image-refresh-consumer', private: true, type: 'module' }, null, 2),
    );
    // The consumer programs read files and the environment: Node's typings,
    // the version the workspace uses.
    const typesNode = (
      JSON.parse(readFileSync(join(ROOT, 'node_modules/@types/node/package.json'), 'utf8')) as {
        version: string;
      }
    ).version;
    const install = await run(
      'npm',
      [
        'install',
        '--prefer-offline',
        '--no-audit',
        '--no-fund',
        '--ignore-scripts',
        ...tarballs.values(),
        `@types/node@${typesNode}`,
      ],
      { cwd: project, env: npmEnvironment(), timeoutMs: 180_000 },
    );
    if (install.code !== 0) throw new Error(transcript('npm install of the tarballs', install));
  }, 240_000);

  afterAll(() => {
    if (project !== '') rmSync(project, { recursive: true, force: true });
  });

  it('packs dist, README and CHANGELOG (and core its profile schema) and nothing else, with an exports map on dist for each entry', async () => {
    for (const library of LIBRARIES) {
      const tarball = tarballs.get(library.name) ?? '';
      const listed = await run('tar', ['-tzf', tarball], { cwd: project, env: process.env, timeoutMs: 30_000 });
      expect(listed.code, transcript(`tar -tzf ${basename(tarball)}`, listed)).toBe(0);
      const files = listed.stdout.split('\n').filter((f) => f !== '' && !f.endsWith('/'));
      expect(
        files.filter(
          (f) =>
            !/^package\/(package\.json|README\.md|CHANGELOG\.md|profile\.schema\.json|dist\/.+\.(js|d\.ts))$/.test(f),
        ),
      ).toEqual([]);
      expect(files).toEqual(expect.arrayContaining(['package/README.md', 'package/CHANGELOG.md']));
      if (library.name === '@image-refresh/core') expect(files).toContain('package/profile.schema.json');

      const installed = join(project, 'node_modules', library.name);
      const manifest = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8')) as {
        exports: Record<string, { types: string; import: string } | string>;
        dependencies: Record<string, string>;
        engines: { node: string };
      };
      for (const [subpath, target] of Object.entries(manifest.exports)) {
        // A data file (core's profile schema, for editors) is exported as itself.
        if (typeof target === 'string') {
          expect(subpath, `${library.name} exports["${subpath}"]`).toBe(target);
          expect(files).toContain(`package/${target.slice(2)}`);
          continue;
        }
        expect(Object.keys(target), `${library.name} exports["${subpath}"]`).toEqual(['types', 'import']);
        for (const file of [target.types, target.import]) expect(files).toContain(`package/${file.slice(2)}`);
      }
      expect(Object.values(manifest.dependencies).filter((v) => v.startsWith('workspace:'))).toEqual([]);
      expect(manifest.engines.node).toBe('>=20.19');
    }
  });

  it("type-checks and compiles the consumers with tsc and the consumer's own tsconfig", async () => {
    const tsc = await run(process.execPath, [TSC, '-p', join(project, 'tsconfig.json')], {
      cwd: project,
      env: process.env,
      timeoutMs: 120_000,
    });
    expect(tsc.code, transcript('tsc', tsc)).toBe(0);
    expect(readdirSync(join(project, 'dist')).sort()).toEqual([
      'cluster-status.js',
      'json-file-ports.js',
      'one-tick.js',
      'simulated.js',
    ]);
  }, 150_000);

  it('finds no error in the published declarations themselves, checked strictly (skipLibCheck off)', () => {
    // tsc above skips library .d.ts (as most consumers do): there, a .d.ts
    // importing a file the tarball lacks would quietly become `any`. Here
    // every .d.ts of ours is checked, in the consumer's program and options.
    const parsed = ts.getParsedCommandLineOfConfigFile(
      join(project, 'tsconfig.json'),
      { skipLibCheck: false, noEmit: true },
      {
        ...ts.sys,
        onUnRecoverableConfigFileDiagnostic: (d) => {
          throw new Error(ts.flattenDiagnosticMessageText(d.messageText, '\n'));
        },
      },
    );
    if (parsed === undefined) throw new Error('the consumer tsconfig does not parse');
    const ours = LIBRARIES.flatMap((library) => {
      const dist = join(project, 'node_modules', library.name, 'dist');
      return readdirSync(dist, { recursive: true, encoding: 'utf8' })
        .filter((f) => f.endsWith('.d.ts'))
        .map((f) => join(dist, f));
    });
    const program = ts.createProgram([...parsed.fileNames, ...ours], parsed.options);
    const diagnostics = ours.flatMap((file) => {
      const source = program.getSourceFile(file);
      if (source === undefined) return [`${file} is not in the program`];
      return [...program.getSyntacticDiagnostics(source), ...program.getSemanticDiagnostics(source)].map(
        (d) => `${file}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`,
      );
    });
    expect(ours.length).toBeGreaterThan(40);
    expect(diagnostics).toEqual([]);
  }, 60_000);

  it('refuses every path but the exports map: internals are not importable', async () => {
    const attempts = [
      '@image-refresh/core/dist/run-tick.js',
      '@image-refresh/core/dist/machine/tick-context.js',
      '@image-refresh/core/src/index.ts',
      '@image-refresh/core/package.json',
      '@image-refresh/k8s-adapter/dist/cluster/index.js',
      '@image-refresh/k8s-adapter/dist/registry/http-transport.js',
    ];
    const script = `for (const s of ${JSON.stringify(attempts)}) { try { await import(s); console.log('imported', s); } catch (e) { console.log(e.code, s); } }`;
    const ran = await run(process.execPath, ['--input-type=module', '-e', script], {
      cwd: project,
      env: process.env,
      timeoutMs: 30_000,
    });
    expect(ran.code, transcript('node -e import()', ran)).toBe(0);
    expect(ran.stdout.trim().split('\n')).toEqual(attempts.map((a) => `ERR_PACKAGE_PATH_NOT_EXPORTED ${a}`));
  });

  describe('with its own ports on a JSON file', () => {
    const env = { RELEASE_NAME: 'stg', RELEASE_NAMESPACE: 'tracebloc', IMAGE_TAG: 'stg' };
    const tick = (state: string) =>
      run(process.execPath, ['dist/json-file-ports.js', state], { cwd: project, env, timeoutMs: 30_000 });

    it('records digests on a fresh install, then re-images jobs-manager and requests-proxy once a new build is published', async () => {
      const state = join(project, 'state.json');
      const tagged = (repo: string) => `docker.io/tracebloc/${repo}:stg`;
      writeFileSync(
        state,
        JSON.stringify({
          annotations: {},
          images: {
            'jobs-manager': { api: tagged('jobs-manager'), 'pods-monitor-container': tagged('pods-monitor') },
            'requests-proxy': { proxy: tagged('jobs-manager') },
            'resource-monitor': { 'tracebloc-resource-monitor': tagged('resource-monitor') },
          },
          registry: {
            'tracebloc/jobs-manager': digest('1'),
            'tracebloc/pods-monitor': digest('2'),
            'tracebloc/resource-monitor': digest('3'),
          },
        }),
      );
      const read = () => JSON.parse(readFileSync(state, 'utf8')) as Record<string, Record<string, unknown>>;

      const first = await tick(state);
      expect(first.code, transcript('tick 1', first)).toBe(0);
      expect(first.stdout.trim()).toBe('complete exit=0 writes=recordTopologyFingerprint,recordDigests reimaged=-');
      expect(read().annotations).toEqual({
        'tracebloc.io/last-refreshed-jobs-manager-digest': digest('1'),
        'tracebloc.io/last-refreshed-pods-monitor-digest': digest('2'),
        'tracebloc.io/last-refreshed-resource-monitor-digest': digest('3'),
        'tracebloc.io/topology-fingerprint': fingerprint,
      });
      expect(read().images?.['jobs-manager']).toEqual({
        api: tagged('jobs-manager'),
        'pods-monitor-container': tagged('pods-monitor'),
      });

      const published = read();
      writeFileSync(
        state,
        JSON.stringify({ ...published, registry: { ...published.registry, 'tracebloc/jobs-manager': digest('4') } }),
      );
      const second = await tick(state);
      expect(second.code, transcript('tick 2', second)).toBe(0);
      expect(second.stdout.trim()).toBe(
        'complete exit=0 writes=writeRefreshAttempt,clearFlapState,recordDigests reimaged=deployment/stg-jobs-manager,deployment/stg-requests-proxy',
      );
      const after = read();
      const pinned = `docker.io/tracebloc/jobs-manager@${digest('4')}`;
      expect(after.images).toEqual({
        'jobs-manager': { api: pinned, 'pods-monitor-container': tagged('pods-monitor') },
        'requests-proxy': { proxy: pinned },
        'resource-monitor': { 'tracebloc-resource-monitor': tagged('resource-monitor') },
      });
      expect(after.annotations).toEqual({
        'tracebloc.io/last-refreshed-jobs-manager-digest': digest('4'),
        'tracebloc.io/last-refreshed-pods-monitor-digest': digest('2'),
        'tracebloc.io/last-refreshed-resource-monitor-digest': digest('3'),
        'tracebloc.io/topology-fingerprint': fingerprint,
      });
    });
  });

  describe('with its own ports on a JSON file and a profile of its own', () => {
    const shop = {
      annotationPrefix: 'shop.example.com',
      gate: 'web',
      images: [
        { name: 'web', repository: 'shop/web' },
        { name: 'log', repository: 'shop/log' },
      ],
      workloads: [
        { id: 'web', kind: 'Deployment', namespace: 'shop', name: 'web', containers: { web: 'web', log: 'log' } },
        { id: 'worker', kind: 'Deployment', namespace: 'shop', name: 'worker', containers: { worker: 'web' } },
      ],
    };
    const tick = (state: string, profile: string) =>
      run(process.execPath, ['dist/json-file-ports.js', state], {
        cwd: project,
        env: { IMAGE_TAG: 'stable', IMAGE_REFRESH_PROFILE: profile },
        timeoutMs: 30_000,
      });

    it('follows the shop: a first observation, a re-image of both workloads of the web image, a foreign container refused', async () => {
      const profile = join(project, 'shop.json');
      writeFileSync(profile, JSON.stringify(shop));
      const state = join(project, 'shop-state.json');
      const tagged = (repo: string) => `docker.io/shop/${repo}:stable`;
      writeFileSync(
        state,
        JSON.stringify({
          annotations: {},
          images: { web: { web: tagged('web'), log: tagged('log') }, worker: { worker: tagged('web') } },
          registry: { 'shop/web': digest('1'), 'shop/log': digest('2') },
        }),
      );
      const read = () => JSON.parse(readFileSync(state, 'utf8')) as Record<string, Record<string, unknown>>;
      const publish = (repo: string, d: string) => {
        const now = read();
        writeFileSync(state, JSON.stringify({ ...now, registry: { ...now.registry, [repo]: d } }));
      };

      const first = await tick(state, profile);
      expect(first.code, transcript('tick 1', first)).toBe(0);
      expect(first.stdout.trim()).toBe('complete exit=0 writes=recordTopologyFingerprint,recordDigests reimaged=-');
      expect(read().annotations).toEqual({
        'shop.example.com/last-refreshed-web-digest': digest('1'),
        'shop.example.com/last-refreshed-log-digest': digest('2'),
        'shop.example.com/topology-fingerprint': fingerprint,
      });

      publish('shop/web', digest('3'));
      const second = await tick(state, profile);
      expect(second.code, transcript('tick 2', second)).toBe(0);
      expect(second.stdout.trim()).toBe(
        'complete exit=0 writes=writeRefreshAttempt,clearFlapState,recordDigests reimaged=deployment/web,deployment/worker',
      );
      const pinned = `docker.io/shop/web@${digest('3')}`;
      expect(read().images).toEqual({ web: { web: pinned, log: tagged('log') }, worker: { worker: pinned } });

      // Someone runs nginx in the log container; a new log build must not replace it.
      const now = read();
      writeFileSync(
        state,
        JSON.stringify({ ...now, images: { ...now.images, web: { web: pinned, log: 'nginx:1.27' } } }),
      );
      publish('shop/log', digest('4'));
      const third = await tick(state, profile);
      expect(third.code, transcript('tick 3', third)).toBe(1);
      expect(third.stdout.trim()).toBe('foreignImage exit=1 writes=- reimaged=-');
      expect(read().images).toEqual({ web: { web: pinned, log: 'nginx:1.27' }, worker: { worker: pinned } });
      expect(read().annotations).toEqual({
        'shop.example.com/last-refreshed-web-digest': digest('3'),
        'shop.example.com/last-refreshed-log-digest': digest('2'),
        'shop.example.com/topology-fingerprint': fingerprint,
      });
    });

    it('names a broken profile with its path and exits 2 before any port is called', async () => {
      const profile = join(project, 'broken.json');
      writeFileSync(profile, JSON.stringify({ ...shop, gate: 'front' }));
      const ran = await tick(join(project, 'absent-state.json'), profile);
      expect(ran.code, transcript('broken profile', ran)).toBe(2);
      expect(ran.stderr).toContain('gate: "front" is not a declared workload');
    });
  });

  describe('with the real ports of the k8s-adapter', () => {
    let cluster: ChartCluster | undefined;
    let registry: RegistryStub | undefined;
    afterAll(async () => {
      await cluster?.close();
      await registry?.close();
    });

    it('prints a status, runs a tick that re-images on the fake API server, and prints the new status', async () => {
      cluster = await startChartCluster({
        stepMs: 30,
        annotations: {
          'tracebloc.io/last-refreshed-jobs-manager-digest': digest('a'),
          'tracebloc.io/last-refreshed-pods-monitor-digest': digest('b'),
          'tracebloc.io/last-refreshed-resource-monitor-digest': digest('c'),
        },
      });
      registry = await startRegistryStub({
        'tracebloc/jobs-manager': digest('a'),
        'tracebloc/pods-monitor': digest('b'),
        'tracebloc/resource-monitor': digest('d'),
      });
      const ran = await run(process.execPath, ['dist/cluster-status.js'], {
        cwd: project,
        env: {
          RELEASE_NAME: 'stg',
          RELEASE_NAMESPACE: NS,
          IMAGE_TAG: 'stg',
          IMAGE_REFRESH_REGISTRY_URL: registry.url,
          KUBECONFIG: cluster.kubeconfig.path,
          HOME: cluster.kubeconfig.dir,
        },
        timeoutMs: 60_000,
      });
      expect(ran.code, transcript('cluster-status', ran)).toBe(0);

      // Effects on the cluster: the DaemonSet runs the new digest, recorded
      // after its rollout; the Deployments, whose images did not move, are
      // untouched; the re-image is an Event where kubectl shows it.
      const pinned = `docker.io/tracebloc/resource-monitor@${digest('d')}`;
      expect(imagesOf(cluster.resourceMonitor())).toEqual({ 'tracebloc-resource-monitor': pinned });
      expect(imagesOf(cluster.jobsManager())).toEqual({
        api: 'docker.io/tracebloc/jobs-manager:stg',
        'pods-monitor-container': 'docker.io/tracebloc/pods-monitor:stg',
      });
      const annotations = annotationsOf(cluster.jobsManager());
      expect(annotations['tracebloc.io/last-refreshed-resource-monitor-digest']).toBe(digest('d'));
      expect(annotations['tracebloc.io/refresh-attempt']).toBeUndefined();
      expect(cluster.server.events.all().map((e) => `${e.type} ${e.reason}`)).toEqual(['Normal RefreshReimaged']);
      expect(cluster.server.unexpected).toEqual([]);
      // Three manifest HEADs per pass (status, tick, status): never a GET, which would count as a pull.
      expect(registry.requests.filter((r) => !/^HEAD \/v2\/tracebloc\/[a-z-]+\/manifests\/stg$/.test(r))).toEqual([]);
      expect(registry.requests).toHaveLength(9);

      // What the tool printed, before and after.
      const lines = ran.stdout.trim().split('\n');
      const short = (c: string) => `sha256:${c.repeat(12)}…`;
      expect(lines[0]).toBe(`cluster: kubeconfig ${cluster.kubeconfig.path}`);
      expect(lines).toEqual(
        expect.arrayContaining([
          `deployment/${JOBS_MANAGER}: Settled api=docker.io/tracebloc/jobs-manager:stg pods-monitor-container=docker.io/tracebloc/pods-monitor:stg`,
          `deployment/${REQUESTS_PROXY}: Settled proxy=docker.io/tracebloc/jobs-manager:stg`,
          'skip streak 0/8',
          'attempts 0/3',
          `jobs-manager recorded ${short('a')} registry ${short('a')}`,
          `resource-monitor recorded ${short('c')} registry ${short('d')} DRIFT`,
          `budget ratelimit-remaining 97 of 100 per 21600 s`,
          '== tick: complete exit=0',
          `re-imaged daemonset/${RESOURCE_MONITOR} rolledOut=true`,
          `daemonset/${RESOURCE_MONITOR}: Settled tracebloc-resource-monitor=${pinned}`,
          `resource-monitor recorded ${short('d')} registry ${short('d')}`,
        ]),
      );
      expect(lines.indexOf('== after')).toBeGreaterThan(lines.indexOf('== tick: complete exit=0'));
    }, 90_000);

    it("runs the adapter README's example: a steady tick, one API request and no write", async () => {
      if (cluster === undefined || registry === undefined) throw new Error('the status test did not start the cluster');
      cluster.server.resetLog();
      const ran = await run(process.execPath, ['dist/one-tick.js'], {
        cwd: project,
        env: {
          RELEASE_NAME: 'stg',
          RELEASE_NAMESPACE: NS,
          IMAGE_TAG: 'stg',
          IMAGE_REFRESH_REGISTRY_URL: registry.url,
          KUBECONFIG: cluster.kubeconfig.path,
          HOME: cluster.kubeconfig.dir,
        },
        timeoutMs: 60_000,
      });
      expect(ran.code, transcript('one-tick', ran)).toBe(0);
      expect(ran.stdout.trim()).toBe(`kubeconfig ${cluster.kubeconfig.path}: complete, exit 0`);
      expect(ran.stderr).toContain('[image-refresh] ');
      expect(cluster.server.requests.map((r) => `${r.method} ${r.route} ${r.name ?? ''}`)).toEqual([
        `GET get ${JOBS_MANAGER}`,
      ]);
    }, 90_000);
  });

  it('runs the simulator from the ./sim subpath', async () => {
    const ran = await run(process.execPath, ['dist/simulated.js'], { cwd: project, env: {}, timeoutMs: 30_000 });
    expect(ran.code, transcript('simulated', ran)).toBe(0);
    const [first, second] = ran.stdout.trim().split('\n');
    expect(first).toBe('first complete reimages=0');
    expect(second).toMatch(/^second complete reimages=2 api=docker\.io\/tracebloc\/jobs-manager@sha256:[0-9a-f]{64}$/);
  });
});
