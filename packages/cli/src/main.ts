import { parseArgs } from 'node:util';
import type { CommandResult, Output } from './commands/command.js';
import { SIMULATE_HELP, simulate } from './commands/simulate.js';

// `image-refresh <command>`: the CronJob entrypoint and an operator's tool.
// Exit codes: 0 ok, 1 a finding, 2 a usage or configuration error.

declare const IMAGE_REFRESH_VERSION: string;
const version = typeof IMAGE_REFRESH_VERSION === 'string' ? IMAGE_REFRESH_VERSION : '0.0.0-dev';

export const HELP = `Usage: image-refresh <command> [options]

Keeps the long-lived workloads of an edge cluster on the newest image digest
behind a floating tag, safely. Drop-in for the chart's image-refresh.sh.

Commands:
  simulate   run the tick on the built-in simulated cluster, print a timeline

Options:
  --help     help for image-refresh or a command
  --version  print the version
`;

const usageError = (out: Output, message: string): CommandResult => {
  out.stderr(`image-refresh: ${message}`);
  out.stderr("Run 'image-refresh --help' for usage.");
  return { exitCode: 2 };
};

export const main = async (argv: readonly string[], out: Output): Promise<CommandResult> => {
  const [command, ...rest] = argv;
  if (command === undefined || command === '--help' || command === '-h' || command === 'help') {
    out.stdout(HELP);
    return { exitCode: command === undefined ? 2 : 0 };
  }
  if (command === '--version') {
    out.stdout(version);
    return { exitCode: 0 };
  }
  try {
    switch (command) {
      case 'simulate': {
        const { values } = parseArgs({
          args: [...rest],
          options: {
            scenario: { type: 'string' },
            list: { type: 'boolean' },
            verbose: { type: 'boolean' },
            help: { type: 'boolean', short: 'h' },
          },
          strict: true,
          allowPositionals: false,
        });
        if (values.help === true) {
          out.stdout(SIMULATE_HELP);
          return { exitCode: 0 };
        }
        return await simulate(values, out);
      }
      default:
        return usageError(out, `unknown command '${command}'`);
    }
  } catch (error) {
    // parseArgs throws typed errors for unknown flags and missing values.
    if (error instanceof TypeError && 'code' in error && String(error.code).startsWith('ERR_PARSE_ARGS')) {
      return usageError(out, `${command}: ${error.message}`);
    }
    throw error;
  }
};
