import { mermaidDiagram, tickMachine } from '@image-refresh/core';
import type { CommandResult, Output } from './command.js';

export const DIAGRAM_HELP = `Usage: image-refresh diagram

Prints the tick machine as a Mermaid state diagram, generated from the machine
definition: every step, guard and port call of a tick.
`;

export const diagram = (out: Output): CommandResult => {
  out.stdout(mermaidDiagram(tickMachine));
  return { exitCode: 0 };
};
