import { type ParseArgsConfig, parseArgs } from 'node:util';
import { describeConfigError } from '@image-refresh/core';
import * as E from 'fp-ts/lib/Either.js';
import type { CommandResult, Output } from './commands/command.js';
import { DIAGRAM_HELP, diagram } from './commands/diagram.js';
import { HALT_HELP, haltRender } from './commands/halt-render.js';
import { PROMOTE_HELP } from './commands/promote-help.js';
import { REARM_HELP, rearm } from './commands/rearm.js';
import { STATUS_HELP, status } from './commands/status.js';
import { statusJson } from './commands/status-json.js';
import { TICK_HELP, tick } from './commands/tick.js';
import type { Connect } from './connection.js';
import { type Configuration, type ConfigurationParts, readConfiguration } from './wiring/read-configuration.js';

// `image-refresh <command>`: the CronJob entrypoint and an operator's tool.
// simulate and promote, never run on an edge's tick, are loaded when they
// run: evaluated at start they cost every tick (README.md, Benchmarks).
// Exit codes: 0 ok, 1 a finding, 2 a usage or configuration error (promote:
// 3 when Prometheus gave no evidence to judge by).

declare const IMAGE_REFRESH_VERSION: string;
const version = typeof IMAGE_REFRESH_VERSION === 'string' ? IMAGE_REFRESH_VERSION : '0.0.0-dev';

export const HELP = `Usage: image-refresh <command> [options]

Keeps the long-lived workloads of an edge cluster on the newest image digest
behind a floating tag, safely: the chart's three workloads (a drop-in for its
image-refresh.sh), or any topology a profile names (IMAGE_REFRESH_PROFILE).

Commands:
  tick       run one refresh tick against the cluster (the CronJob's command)
  status     what the guards think now: settledness, counters, digests
  rearm      re-arm refresh by hand: clear the flap lockout (refresh-attempt,
             refresh-flap-detected) and lift every quarantine of a rolled-back digest
  simulate   run the tick on the built-in simulated cluster, print a timeline
  diagram    print the tick machine as a Mermaid state diagram
  halt       halt render: write a fleet halt document to publish and sign (FLEET_HALT_REF)
  promote    judge a digest on the canaries' evidence in Prometheus; write the
             promotion document that opens the next rings (run by CI, not on edges)

Options:
  --help     help for image-refresh or a command (image-refresh <command> --help)
  --version  print the version

Configuration comes from the environment: the chart's RELEASE_NAME,
RELEASE_NAMESPACE, …, or IMAGE_REFRESH_PROFILE; IMAGE_TAG, MAX_SKIP_TICKS,
MAX_REFRESH_ATTEMPTS, … ('image-refresh help tick' lists every variable).
`;

export interface Environment {
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly connect: Connect;
  /** Aborted on SIGTERM / SIGINT (reason: core's `interruptedBy`); a tick (and promote's queries) stop at it (§3, Signals). */
  readonly interrupt?: AbortSignal;
}

type Values = Record<string, string | boolean | (string | boolean)[] | undefined>;

/** A `multiple: true` option's values. */
const strings = (value: Values[string]): string[] =>
  Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];

/** A string option's value, or undefined. */
const text = (value: Values[string]): string | undefined => (typeof value === 'string' ? value : undefined);

interface Command {
  /** Its help; a command loaded only when it runs is loaded to print it. */
  readonly help: string | (() => Promise<string>);
  /** A command of one verb (`halt render`): the word that must follow the command's name. */
  readonly verb?: string;
  readonly options: NonNullable<ParseArgsConfig['options']>;
  /** String options that may be given bare (`--dry-run`), and the value that means. */
  readonly bareValues?: Readonly<Record<string, string>>;
  readonly run: (values: Values, out: Output, platform: Environment) => Promise<CommandResult> | CommandResult;
}

/**
 * status and rearm read the same environment as tick: every problem of it at
 * once (status: with the signature check's files), exit 2 before any call.
 */
const withConfiguration = async (
  out: Output,
  platform: Environment,
  parts: ConfigurationParts,
  run: (configuration: Configuration) => Promise<CommandResult>,
): Promise<CommandResult> => {
  const configuration = await readConfiguration(platform.env, parts);
  if (E.isRight(configuration)) return run(configuration.right);
  for (const e of configuration.left) out.stderr(`[image-refresh] ERROR: configuration: ${describeConfigError(e)}`);
  return { exitCode: 2 };
};

/**
 * status and rearm on a cluster the environment names: no credentials to
 * reach it (KUBECONFIG naming a missing file, …) is a configuration error,
 * exit 2 before any request, as tick says it.
 */
const withConnection = (
  out: Output,
  platform: Environment,
  { config, registryAccess }: Configuration,
  run: (connect: Connect) => Promise<CommandResult>,
): Promise<CommandResult> => {
  const connection = platform.connect(config, registryAccess);
  if (connection.configProblem === undefined) return run(() => connection);
  out.stderr(`[image-refresh] ERROR: configuration: ${describeConfigError(connection.configProblem)}`);
  return Promise.resolve({ exitCode: 2 });
};

const COMMANDS: Readonly<Record<string, Command>> = {
  tick: {
    help: TICK_HELP,
    options: { json: { type: 'boolean' }, 'dry-run': { type: 'string' } },
    // `--dry-run` alone is the server-side dry run, as `kubectl --dry-run` is now.
    bareValues: { 'dry-run': 'server' },
    run: (v, out, p) =>
      v['dry-run'] !== undefined && v['dry-run'] !== 'server' && v['dry-run'] !== 'client'
        ? usageError(out, `tick: --dry-run takes server (the default) or client, not '${String(v['dry-run'])}'`)
        : tick(
            {
              json: v.json === true,
              dryRun: v['dry-run'] === 'server' || v['dry-run'] === 'client' ? v['dry-run'] : undefined,
              interrupt: p.interrupt,
            },
            p.env,
            p.connect,
            out,
          ),
  },
  status: {
    help: STATUS_HELP,
    options: { 'no-registry': { type: 'boolean' }, json: { type: 'boolean' } },
    run: (v, out, p) =>
      withConfiguration(out, p, { signatureFiles: true }, (configuration) => {
        const { config, trust } = configuration;
        return withConnection(out, p, configuration, (connect) =>
          v.json === true
            ? statusJson({ noRegistry: v['no-registry'] === true, signatureTrust: trust }, config, connect, out)
            : status({ noRegistry: v['no-registry'] === true, signatureTrust: trust }, config, connect, out),
        );
      }),
  },
  rearm: {
    help: REARM_HELP,
    options: {},
    run: (_, out, p) =>
      withConfiguration(out, p, {}, (configuration) =>
        withConnection(out, p, configuration, (connect) => rearm(configuration.config, connect, out)),
      ),
  },
  simulate: {
    // Its help lists the simulator's scenarios: read from the command, loaded to say it.
    help: async () => (await import('./commands/simulate.js')).SIMULATE_HELP,
    options: {
      scenario: { type: 'string' },
      profile: { type: 'string' },
      list: { type: 'boolean' },
      verbose: { type: 'boolean' },
    },
    run: async (v, out) =>
      (await import('./commands/simulate.js')).simulate(
        {
          scenario: typeof v.scenario === 'string' ? v.scenario : undefined,
          profile: typeof v.profile === 'string' ? v.profile : undefined,
          list: v.list === true,
          verbose: v.verbose === true,
        },
        out,
      ),
  },
  diagram: { help: DIAGRAM_HELP, options: {}, run: (_, out) => diagram(out) },
  halt: {
    help: HALT_HELP,
    verb: 'render',
    options: {
      reason: { type: 'string' },
      expires: { type: 'string' },
      digest: { type: 'string', multiple: true },
      pin: { type: 'string', multiple: true },
      out: { type: 'string' },
    },
    run: (v, out) =>
      haltRender(
        {
          reason: typeof v.reason === 'string' ? v.reason : undefined,
          expires: typeof v.expires === 'string' ? v.expires : undefined,
          digests: strings(v.digest),
          pins: strings(v.pin),
          out: typeof v.out === 'string' ? v.out : 'fleet-halt.json',
          nowMs: Date.now(),
        },
        out,
      ),
  },
  promote: {
    help: PROMOTE_HELP,
    options: {
      prometheus: { type: 'string' },
      'bearer-token-file': { type: 'string' },
      'basic-auth-file': { type: 'string' },
      image: { type: 'string' },
      digest: { type: 'string' },
      ring: { type: 'string' },
      for: { type: 'string' },
      'min-edges': { type: 'string' },
      json: { type: 'boolean' },
      out: { type: 'string' },
      from: { type: 'string' },
      'halt-on-rollback': { type: 'boolean' },
      expires: { type: 'string' },
      timeout: { type: 'string' },
    },
    run: async (v, out, p) =>
      (await import('./commands/promote.js')).promote(
        {
          prometheus: text(v.prometheus),
          bearerTokenFile: text(v['bearer-token-file']),
          basicAuthFile: text(v['basic-auth-file']),
          image: text(v.image),
          digest: text(v.digest),
          ring: text(v.ring),
          for: text(v.for),
          minEdges: text(v['min-edges']),
          json: v.json === true,
          out: text(v.out),
          from: text(v.from),
          haltOnRollback: v['halt-on-rollback'] === true,
          expires: text(v.expires),
          timeout: text(v.timeout),
        },
        Date.now(),
        p.interrupt,
        out,
      ),
  },
};

const helpOf = async (command: Command): Promise<string> =>
  typeof command.help === 'string' ? command.help : command.help();

const usageError = (out: Output, message: string): CommandResult => {
  out.stderr(`image-refresh: ${message}`);
  out.stderr("Run 'image-refresh --help' for usage.");
  return { exitCode: 2 };
};

/** `--dry-run` → `--dry-run=server`: node's parseArgs has no option with an optional value. */
const withBareValues = (args: readonly string[], bare: Readonly<Record<string, string>> | undefined): string[] =>
  args.map((arg) => {
    const value = bare?.[arg.replace(/^--/, '')];
    return arg.startsWith('--') && !arg.includes('=') && value !== undefined ? `${arg}=${value}` : arg;
  });

const isParseArgsError = (error: unknown): error is Error =>
  error instanceof Error && 'code' in error && String(error.code).startsWith('ERR_PARSE_ARGS');

export const main = async (argv: readonly string[], out: Output, platform: Environment): Promise<CommandResult> => {
  const [name, ...rest] = argv;
  if (name === '--help' || name === '-h' || name === 'help') {
    // `help tick` is `tick --help`, as git and kubectl have it.
    const [topic] = rest;
    if (name === 'help' && topic !== undefined) {
      const about = COMMANDS[topic];
      if (about === undefined) return usageError(out, `help: unknown command '${topic}'`);
      out.stdout(await helpOf(about));
      return { exitCode: 0 };
    }
    out.stdout(HELP);
    return { exitCode: 0 };
  }
  if (name === undefined) {
    out.stderr(HELP);
    return { exitCode: 2 };
  }
  if (name === '--version') {
    out.stdout(version);
    return { exitCode: 0 };
  }
  const command = COMMANDS[name];
  if (command === undefined) return usageError(out, `unknown command '${name}'`);
  const [first, ...afterVerb] = rest;
  const wantsHelp = first === '--help' || first === '-h';
  if (command.verb !== undefined && first !== command.verb && !wantsHelp) {
    return usageError(out, `${name}: expected '${name} ${command.verb}'`);
  }
  let values: Values;
  try {
    ({ values } = parseArgs({
      args: withBareValues(command.verb !== undefined && !wantsHelp ? afterVerb : [...rest], command.bareValues),
      options: { ...command.options, help: { type: 'boolean', short: 'h' } },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    if (isParseArgsError(error)) return usageError(out, `${name}: ${error.message}`);
    throw error;
  }
  if (values.help === true) {
    out.stdout(await helpOf(command));
    return { exitCode: 0 };
  }
  return command.run(values, out, platform);
};
