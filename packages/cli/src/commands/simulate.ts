import { describeProfileProblem, ENV, parseProfile } from '@image-refresh/core';
import { profileTour, runScenario, SCENARIOS, type Scenario, scenarioNamed } from '@image-refresh/core/sim';
import * as E from 'fp-ts/lib/Either.js';
import { logLines } from '../render/log-lines.js';
import { renderTimeline, unavailabilityLine } from '../render/timeline.js';
import { readProfileDocument } from '../wiring/read-profile.js';
import type { CommandResult, Output } from './command.js';

export const SIMULATE_HELP = `Usage: image-refresh simulate [--scenario NAME | --profile FILE] [--list] [--verbose]

Runs the real tick machine on the built-in simulated cluster and registry and
prints a timeline, one row per tick. Touches no cluster and no network.

  --scenario NAME  one of: ${SCENARIOS.map((s) => s.name).join(', ')} (default: healthy-drift)
  --profile FILE   a profile of your own (docs/profiles.md) on a simulated edge of its topology:
                   first observation, each new build, a crash-looping build rolled back, a fixed one
  --list           list the scenarios and what each shows
  --verbose        also print every tick's log lines
`;

/** The tour of the profile in `file`, or what is wrong with the file, as the tick would say it. */
const tourOf = async (file: string, out: Output): Promise<Scenario | undefined> => {
  const document = await readProfileDocument({ [ENV.profile]: file });
  const profile = E.isRight(document) ? parseProfile(document.right) : undefined;
  if (profile !== undefined && E.isRight(profile)) return profileTour(profile.right);
  const problems = E.isLeft(document)
    ? document.left.map((p) => p.problem)
    : profile !== undefined && E.isLeft(profile)
      ? profile.left.map(describeProfileProblem)
      : [];
  for (const problem of problems) out.stderr(`image-refresh simulate: ${file}: ${problem}`);
  return undefined;
};

export const simulate = async (
  options: {
    scenario?: string | undefined;
    profile?: string | undefined;
    list?: boolean | undefined;
    verbose?: boolean | undefined;
  },
  out: Output,
): Promise<CommandResult> => {
  if (options.list === true) {
    for (const s of SCENARIOS) out.stdout(`${s.name.padEnd(20)} ${s.summary}`);
    return { exitCode: 0 };
  }
  if (options.profile !== undefined && options.scenario !== undefined) {
    // The named scenarios tell their stories with the chart's own workloads.
    out.stderr('image-refresh simulate: --scenario and --profile are exclusive: a profile runs its own tour');
    return { exitCode: 2 };
  }
  const name = options.scenario ?? 'healthy-drift';
  const scenario = options.profile === undefined ? scenarioNamed(name) : await tourOf(options.profile, out);
  if (scenario === undefined) {
    if (options.profile === undefined) out.stderr(`image-refresh simulate: unknown scenario '${name}' (try --list)`);
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
