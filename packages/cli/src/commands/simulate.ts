import { runScenario, SCENARIOS, scenarioNamed } from '@image-refresh/core/sim';
import { logLines } from '../render/log-lines.js';
import { renderTimeline, unavailabilityLine } from '../render/timeline.js';
import type { CommandResult, Output } from './command.js';

export const SIMULATE_HELP = `Usage: image-refresh simulate [--scenario NAME] [--list] [--verbose]

Runs the real tick machine on the built-in simulated cluster and registry and
prints a timeline, one row per tick. Touches no cluster and no network.

  --scenario NAME  one of: ${SCENARIOS.map((s) => s.name).join(', ')} (default: healthy-drift)
  --list           list the scenarios and what each shows
  --verbose        also print every tick's log lines
`;

export const simulate = async (
  options: { scenario?: string | undefined; list?: boolean | undefined; verbose?: boolean | undefined },
  out: Output,
): Promise<CommandResult> => {
  if (options.list === true) {
    for (const s of SCENARIOS) out.stdout(`${s.name.padEnd(20)} ${s.summary}`);
    return { exitCode: 0 };
  }
  const name = options.scenario ?? 'healthy-drift';
  const scenario = scenarioNamed(name);
  if (scenario === undefined) {
    out.stderr(`image-refresh simulate: unknown scenario '${name}' (try --list)`);
    return { exitCode: 2 };
  }
  const { config, rows } = await runScenario(scenario);
  out.stdout(`scenario ${scenario.name}: ${scenario.summary}\n`);
  out.stdout(renderTimeline(config, rows));
  const unavailable = unavailabilityLine(rows);
  if (unavailable !== undefined) out.stdout(`\n${unavailable}`);
  if (options.verbose === true) {
    for (const row of rows) {
      out.stdout(`\n--- tick ${row.tick}${row.edge === undefined ? '' : ` [${row.edge}]`}: ${row.event}`);
      for (const event of row.outcome.events) for (const line of logLines(event)) out.stdout(line);
    }
  }
  return { exitCode: 0 };
};
