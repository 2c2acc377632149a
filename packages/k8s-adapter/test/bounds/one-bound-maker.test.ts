import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

// boundedCall (src/bounds/bounded-call.ts) is the one place a bound is made. A
// signal from AbortSignal.any or AbortSignal.timeout can be garbage-collected
// on Node 20 while a request still waits on it, and then never aborts
// (nodejs/node#55428, nodejs/undici#4068): a hung registry HEAD outlived
// REGISTRY_TIMEOUT and took every image of the tick with it (I15, I17). So no
// package's src may use either, however it is spelled: `AbortSignal.any(…)`,
// `AbortSignal['timeout']`, `globalThis.AbortSignal.any`, `const { any } =
// AbortSignal`, or an alias of AbortSignal that would hide them. The scan reads
// the TypeScript AST, so comments and strings that name them (as this one
// does) do not count.

const ROOT = new URL('../../../../', import.meta.url).pathname;
const SOURCES = ['packages/core/src', 'packages/k8s-adapter/src', 'packages/cli/src'];
const FORBIDDEN = new Set(['any', 'timeout']);

const sourceFiles = (dir: string): string[] =>
  readdirSync(dir).flatMap((entry) => {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return /\.(ts|mts|cts)$/.test(entry) && !entry.endsWith('.d.ts') ? [path] : [];
  });

/** `AbortSignal`, or `globalThis.AbortSignal` (also `window.`, `self.`, `global.`). */
const isAbortSignal = (node: ts.Expression): boolean => {
  const bare = ts.isParenthesizedExpression(node) ? node.expression : node;
  if (ts.isIdentifier(bare)) return bare.text === 'AbortSignal';
  if (ts.isPropertyAccessExpression(bare)) return bare.name.text === 'AbortSignal';
  if (ts.isElementAccessExpression(bare) && ts.isStringLiteralLike(bare.argumentExpression))
    return bare.argumentExpression.text === 'AbortSignal';
  return false;
};

const bindingNames = (pattern: ts.ObjectBindingPattern): string[] =>
  pattern.elements.map((e) =>
    e.propertyName !== undefined && (ts.isIdentifier(e.propertyName) || ts.isStringLiteralLike(e.propertyName))
      ? e.propertyName.text
      : ts.isIdentifier(e.name)
        ? e.name.text
        : '',
  );

/** Every use of AbortSignal.any / AbortSignal.timeout in `text`, as `file:line: what`. */
const forbiddenUses = (file: string, text: string): string[] => {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const say = (node: ts.Node, what: string) =>
    found.push(`${file}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1}: ${what}`);
  const visit = (node: ts.Node): void => {
    if (ts.isPropertyAccessExpression(node) && FORBIDDEN.has(node.name.text) && isAbortSignal(node.expression))
      say(node, `AbortSignal.${node.name.text}`);
    if (
      ts.isElementAccessExpression(node) &&
      isAbortSignal(node.expression) &&
      (!ts.isStringLiteralLike(node.argumentExpression) || FORBIDDEN.has(node.argumentExpression.text))
    )
      say(node, `AbortSignal[${node.argumentExpression.getText(source)}]`);
    if (ts.isVariableDeclaration(node) && node.initializer !== undefined && isAbortSignal(node.initializer)) {
      const names = ts.isObjectBindingPattern(node.name) ? bindingNames(node.name) : undefined;
      if (names === undefined) say(node, `an alias of AbortSignal (${node.name.getText(source)})`);
      else for (const name of names.filter((n) => FORBIDDEN.has(n))) say(node, `AbortSignal.${name} destructured`);
    }
    if (
      ts.isBinaryExpression(node) &&
      node.operatorToken.kind === ts.SyntaxKind.EqualsToken &&
      isAbortSignal(node.right)
    )
      say(node, `an alias of AbortSignal (${node.left.getText(source)})`);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
};

describe('AbortSignal.any and AbortSignal.timeout appear in no src: boundedCall makes every bound', () => {
  it('no package source uses them', () => {
    const files = SOURCES.flatMap((dir) => sourceFiles(join(ROOT, dir)));
    expect(files.length).toBeGreaterThan(100);
    const uses = files.flatMap((path) => forbiddenUses(relative(ROOT, path), readFileSync(path, 'utf8')));
    expect(uses).toEqual([]);
  });

  it.each([
    ['a composed signal', 'const s = AbortSignal.any([a, b]);', 'AbortSignal.any'],
    ['a timeout signal', 'fetch(u, { signal: AbortSignal.timeout(1_000) });', 'AbortSignal.timeout'],
    ['through globalThis', 'globalThis.AbortSignal.timeout(5);', 'AbortSignal.timeout'],
    ['by element access', "AbortSignal['any']([a]);", "AbortSignal['any']"],
    ['by a computed key', 'AbortSignal[key]([a]);', 'AbortSignal[key]'],
    ['destructured', 'const { any: compose } = AbortSignal;', 'AbortSignal.any destructured'],
    ['by an alias', 'const S = AbortSignal; S.any([a]);', 'an alias of AbortSignal (S)'],
  ])('it finds %s', (_what, text, expected) => {
    expect(forbiddenUses('fixture.ts', text)).toEqual([`fixture.ts:1: ${expected}`]);
  });

  it('it leaves alone what only names them, and AbortSignal as a type', () => {
    const text = [
      '// AbortSignal.any([AbortSignal.timeout(ms)]) is what we do not do',
      "const why = 'AbortSignal.timeout';",
      'const f = (s: AbortSignal): s is AbortSignal => s instanceof AbortSignal;',
      'const c = new AbortController();',
    ].join('\n');
    expect(forbiddenUses('fixture.ts', text)).toEqual([]);
  });
});
