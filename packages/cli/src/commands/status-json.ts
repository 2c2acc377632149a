import type { TickConfig } from '@image-refresh/core';
import type { Connect } from '../connection.js';
import type { CommandResult, Output } from './command.js';
import { haltJson } from './status-halt.js';
import { promotionJson } from './status-promotion.js';
import { type StatusOptions, statusReport } from './status-report.js';

// `status --json`: the report `status` prints, as one JSON object on stdout
// for fleet tooling. The field names are a contract, documented in
// docs/metrics.md; a field is null where status says "cannot read it" or
// "not asked", never left out.

export const statusJson = async (
  options: StatusOptions,
  config: TickConfig,
  connect: Connect,
  out: Output,
): Promise<CommandResult> => {
  const { signaturesChecked: _text, halt, promotion, ...report } = await statusReport(options, config, connect(config));
  // As `status`: said, and exit 0, an unreadable gate included.
  out.stdout(JSON.stringify({ ...report, halt: haltJson(halt), promotion: promotionJson(promotion) }));
  return { exitCode: 0 };
};
