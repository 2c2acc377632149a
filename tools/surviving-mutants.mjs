// `node tools/surviving-mutants.mjs [report.json...]` (default
// reports/mutation/mutation.json; several for the parts of one run,
// tools/mutation-in-parts.sh): the survivors (Survived and NoCoverage), keyed by the guard,
// action or function they live in rather than by line, as
// packages/core/test/spec/EQUIVALENT_MUTANTS.md lists them: a line number goes
// stale with every edit above it, a name moves with its code.
// Prints one Markdown list per file: `name` — mutator: replacement (status).
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import ts from 'typescript';

const reportPaths = process.argv.length > 2 ? process.argv.slice(2) : ['reports/mutation/mutation.json'];
const files = Object.assign({}, ...reportPaths.map((p) => JSON.parse(readFileSync(resolve(p), 'utf8')).files));
const LEFT = new Set(['Survived', 'NoCoverage']);

/** The names of the declarations enclosing `offset`, outermost first. */
const enclosingNames = (source, offset) => {
  const names = [];
  const visit = (node) => {
    if (offset < node.getStart(source) || offset >= node.getEnd()) return;
    const name = nameOf(node);
    if (name !== undefined) names.push(name);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return names;
};

/**
 * A declaration's name, or a property's when it holds code (a guard, an
 * action `tickAssign(...)`, an invoke's `input`) or is a state. xstate's other
 * structural keys (`invoke`, `onDone`, `states`, …) are skipped, so the name
 * printed is the state's, guard's or action's, not the key around it.
 */
const nameOf = (node) => {
  if (node.name === undefined || !(ts.isIdentifier(node.name) || ts.isStringLiteral(node.name))) return undefined;
  if (
    ts.isVariableDeclaration(node) ||
    ts.isFunctionDeclaration(node) ||
    ts.isMethodDeclaration(node) ||
    ts.isClassDeclaration(node)
  )
    return node.name.text;
  if (
    (ts.isPropertyAssignment(node) || ts.isPropertyDeclaration(node)) &&
    (holdsCode(node.initializer) || (isStateNode(node.initializer) && !STRUCTURAL.has(node.name.text)))
  )
    return node.name.text;
  return undefined;
};

/** xstate's keys of a state node: a property holding an object with one of them is a state, named by its key. */
const STATE_KEYS = new Set(['invoke', 'always', 'on', 'entry', 'exit', 'initial', 'states', 'type', 'onDone', 'tags']);
/** Keys whose object is part of a state, not a state: `invoke: { onDone, … }`. */
const STRUCTURAL = new Set([
  'invoke',
  'on',
  'always',
  'states',
  'onDone',
  'onError',
  'entry',
  'exit',
  'types',
  'context',
]);
const isStateNode = (value) =>
  value !== undefined &&
  ts.isObjectLiteralExpression(value) &&
  value.properties.some((p) => p.name !== undefined && ts.isIdentifier(p.name) && STATE_KEYS.has(p.name.text));

const holdsCode = (value) =>
  value !== undefined && (ts.isArrowFunction(value) || ts.isFunctionExpression(value) || ts.isCallExpression(value));

/** 1-based line and column (Stryker's) to an offset. */
const offsetOf = (text, { line, column }) => {
  let offset = 0;
  for (let l = 1; l < line; l += 1) offset = text.indexOf('\n', offset) + 1;
  return offset + column - 1;
};

let total = 0;
for (const [path, file] of Object.entries(files).sort(([a], [b]) => a.localeCompare(b))) {
  const left = file.mutants.filter((m) => LEFT.has(m.status));
  if (left.length === 0) continue;
  const source = ts.createSourceFile(path, file.source, ts.ScriptTarget.Latest, true);
  console.log(`\n### ${path.replace(/^packages\/core\/src\//, '')}\n`);
  const rows = left.map((m) => {
    const names = enclosingNames(source, offsetOf(file.source, m.location.start));
    // The innermost two names say where: `admitGuards › isFleetHaltUnverified`, `planRevert`.
    const where = names.slice(-2).join(' › ') || '(module)';
    const replacement = (m.replacement ?? '').replace(/\s+/g, ' ').slice(0, 90);
    const line = m.location.start.line;
    return { where, line, text: `${m.mutatorName}: \`${replacement}\` (${m.status}, line ${line} of the run's tree)` };
  });
  rows.sort((a, b) => a.where.localeCompare(b.where) || a.line - b.line);
  for (const row of rows) console.log(`- \`${row.where}\` — ${row.text}`);
  total += left.length;
}
console.log(`\n${total} mutants left (Survived or NoCoverage)`);
