import { CONFIG_VARIABLES, type ConfigVariable, VARIABLE_SECTIONS, type VariableSection } from '@image-refresh/core';

// `image-refresh help tick`'s list of variables, generated from core's table
// (CONFIG_VARIABLES), the same one SWAP.md and docs/configuration.md are
// generated from: one list, so none of them can leave a variable out.

const WIDTH = 78;
const INDENT = '      ';

/** Backticks mark code in the table's Markdown; a terminal shows it plain. */
const plain = (text: string): string => text.replaceAll('`', '');

const wrap = (text: string, indent: string): string[] => {
  const lines: string[] = [];
  let line = indent;
  for (const word of text.split(' ')) {
    if (line.trim() !== '' && line.length + 1 + word.length > WIDTH) {
      lines.push(line);
      line = indent;
    }
    line = line.trim() === '' ? `${indent}${word}` : `${line} ${word}`;
  }
  if (line.trim() !== '') lines.push(line);
  return lines;
};

const variableLines = (v: ConfigVariable): string[] => [
  `  ${v.name} (${plain(v.default)})`,
  ...wrap(plain(v.meaning), INDENT),
];

/** Every variable a tick reads, by section: name, default, meaning. */
export const tickVariablesHelp = (): string => {
  const sections = Object.keys(VARIABLE_SECTIONS) as VariableSection[];
  return sections
    .map((section) =>
      [
        `${VARIABLE_SECTIONS[section]}:`,
        ...CONFIG_VARIABLES.filter((v) => v.section === section).flatMap(variableLines),
      ].join('\n'),
    )
    .join('\n\n')
    .concat("\n\nEvery default beyond the chart's is the script's behaviour; a malformed value is exit 2.\n");
};
