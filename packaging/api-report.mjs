// @ts-check
// The public API of each published entry point as a readable, checked-in
// report (packaging/api/*.api.md), generated from the .d.ts the build emits —
// what a consumer of the tarball actually compiles against. A test
// regenerates the reports and fails on any difference, so a change to the
// public surface is a reviewed diff, never an accident.
//
//   node packaging/api-report.mjs           print what differs, exit 1 if any
//   node packaging/api-report.mjs --update  rewrite the reports
//
// (`pnpm api:update` builds first, then runs the second form.)
//
// Per entry: every exported declaration, comments stripped (a TSDoc edit is
// not an API change), sorted by name; then every declaration the exports
// reach through their types without exporting it (a machine's context type,
// an options type): changing those changes the API just as much. Types from
// other packages (xstate, fp-ts, client-node, core seen from the adapter)
// are referenced, not expanded.
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const REPORT_DIR = join(ROOT, 'packaging', 'api');

/**
 * @typedef {{ readonly report: string; readonly packageDir: string; readonly subpath: string }} Entry
 * @typedef {{ readonly entry: Entry; readonly packageName: string; readonly path: string; readonly text: string; readonly undocumented: readonly string[] }} Report
 */

/** @type {readonly Entry[]} */
export const ENTRIES = [
  { report: 'core.api.md', packageDir: 'packages/core', subpath: '.' },
  { report: 'core-sim.api.md', packageDir: 'packages/core', subpath: './sim' },
  { report: 'k8s-adapter.api.md', packageDir: 'packages/k8s-adapter', subpath: '.' },
];

/** The command that accepts a changed API, for messages. */
export const UPDATE_COMMAND = 'npx -y pnpm@10.34.9 api:update';

/** @param {string} path */
const readJson = (path) => JSON.parse(readFileSync(path, 'utf8'));

/**
 * The .d.ts a consumer of the packed tarball resolves for an entry: the
 * `types` condition of the published (publishConfig) exports map.
 * @param {string} root
 * @param {Entry} entry
 */
const typesFileOf = (root, entry) => {
  const manifest = readJson(join(root, entry.packageDir, 'package.json'));
  const types = manifest.publishConfig?.exports?.[entry.subpath]?.types;
  if (typeof types !== 'string') {
    throw new Error(`${entry.packageDir}/package.json: publishConfig.exports["${entry.subpath}"].types is missing`);
  }
  return { packageName: String(manifest.name), path: join(root, entry.packageDir, types) };
};

const printer = ts.createPrinter({ removeComments: true, newLine: ts.NewLineKind.LineFeed });

/**
 * Alphabetical whatever the case, so `runTick` sits near `RolloutError`;
 * deterministic on every machine (no locale).
 * @param {string} a
 * @param {string} b
 */
const byName = (a, b) => {
  const [x, y] = [a.toLowerCase(), b.toLowerCase()];
  if (x !== y) return x < y ? -1 : 1;
  return a < b ? -1 : a > b ? 1 : 0;
};

/** @param {ts.Node} statement @param {ts.SourceFile} sourceFile */
const print = (statement, sourceFile) => printer.printNode(ts.EmitHint.Unspecified, statement, sourceFile);

/**
 * The report as the repository's formatter writes it (biome formats the
 * TypeScript inside Markdown too): long types wrapped, one union member per
 * line, so a change to one member is a one-line diff — and `pnpm lint`
 * accepts the file as generated.
 * @param {string} text
 * @param {string} report
 */
const formatted = (text, report) =>
  execFileSync(join(ROOT, 'node_modules', '.bin', 'biome'), ['format', `--stdin-file-path=packaging/api/${report}`], {
    cwd: ROOT,
    input: text,
    encoding: 'utf8',
  });

/**
 * The statement that declares a symbol, as it would be printed.
 * @param {ts.Declaration} declaration
 * @returns {ts.Node}
 */
const statementOf = (declaration) => (ts.isVariableDeclaration(declaration) ? declaration.parent.parent : declaration);

/**
 * @param {ts.TypeChecker} checker
 * @param {ts.Symbol} symbol
 */
const resolved = (checker, symbol) => (symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol);

/**
 * The names inside a declaration that refer to other declarations.
 * @param {ts.Node} root
 * @returns {ts.Node[]}
 */
const referencesIn = (root) => {
  /** @type {ts.Node[]} */
  const found = [];
  /** @param {ts.Node} node */
  const visit = (node) => {
    if (ts.isTypeReferenceNode(node)) {
      found.push(ts.isQualifiedName(node.typeName) ? node.typeName.right : node.typeName);
    } else if (ts.isExpressionWithTypeArguments(node)) {
      found.push(node.expression);
    } else if (ts.isTypeQueryNode(node)) {
      found.push(ts.isQualifiedName(node.exprName) ? node.exprName.right : node.exprName);
    } else if (ts.isImportTypeNode(node) && node.qualifier !== undefined) {
      found.push(ts.isQualifiedName(node.qualifier) ? node.qualifier.right : node.qualifier);
    }
    ts.forEachChild(node, visit);
  };
  visit(root);
  return found;
};

/**
 * @param {ts.Symbol} symbol
 * @param {ts.TypeChecker} checker
 */
const isDocumented = (symbol, checker) =>
  symbol.getDocumentationComment(checker).length > 0 || symbol.getJsDocTags(checker).length > 0;

/**
 * Reports for every entry, from the emitted .d.ts (run the build first).
 * `root` and `entries` let a test run the generator on a doctored copy.
 * @param {{ readonly root?: string; readonly entries?: readonly Entry[] }} [options]
 * @returns {Report[]}
 */
export const generateReports = (options = {}) => {
  const root = options.root ?? ROOT;
  const files = (options.entries ?? ENTRIES).map((entry) => ({ entry, ...typesFileOf(root, entry) }));
  // One package seen from another (core from the adapter) through its
  // published .d.ts, as a consumer sees it — not the workspace's sources.
  const paths = Object.fromEntries(files.map((f) => [`${f.packageName}${f.entry.subpath.slice(1)}`, [f.path]]));
  // Every emitted .d.ts of the packages involved, and nothing else: no lib,
  // no node_modules. Printing needs only these files' syntax, and the walk
  // below follows only declarations inside them; leaving xstate, fp-ts and
  // client-node (a thousand files) unresolved keeps this under a second.
  const roots = [...new Set(files.map((f) => join(root, f.entry.packageDir, 'dist')))].flatMap((dir) =>
    readdirSync(dir, { recursive: true, encoding: 'utf8' })
      .filter((file) => file.endsWith('.d.ts'))
      .map((file) => join(dir, file)),
  );
  const program = ts.createProgram(roots, {
    paths,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    noEmit: true,
    noResolve: true,
    noLib: true,
    types: [],
  });
  const checker = program.getTypeChecker();
  return files.map(({ entry, packageName, path }) => {
    const source = program.getSourceFile(path);
    const module = source === undefined ? undefined : checker.getSymbolAtLocation(source);
    if (source === undefined || module === undefined) {
      throw new Error(`${relative(root, path)} is missing or exports nothing: run the build first`);
    }
    const distDir = join(root, entry.packageDir, 'dist');
    const inDist = (/** @type {ts.Declaration} */ d) => !relative(distDir, d.getSourceFile().fileName).startsWith('..');
    const exported = checker
      .getExportsOfModule(module)
      .map((symbol) => ({ name: symbol.name, target: resolved(checker, symbol) }))
      .sort((a, b) => byName(a.name, b.name));
    const exportedTargets = new Set(exported.map((e) => e.target));
    // Exported by another entry of the same package (core's `.` seen from
    // `./sim`): public there, so referenced here, not repeated.
    const elsewhere = new Set(
      files
        .filter((f) => f.entry.packageDir === entry.packageDir && f.path !== path)
        .flatMap((f) => {
          const other = program.getSourceFile(f.path);
          const symbol = other === undefined ? undefined : checker.getSymbolAtLocation(other);
          return symbol === undefined ? [] : checker.getExportsOfModule(symbol).map((s) => resolved(checker, s));
        }),
    );

    /** @type {Set<ts.Symbol>} */
    const reachable = new Set();
    /** @param {ts.Node} node */
    const follow = (node) => {
      for (const name of referencesIn(node)) {
        const symbol = checker.getSymbolAtLocation(name);
        if (symbol === undefined) continue;
        const target = resolved(checker, symbol);
        if (exportedTargets.has(target) || elsewhere.has(target) || reachable.has(target)) continue;
        const declarations = (target.declarations ?? []).filter(
          (d) =>
            inDist(d) && !ts.isTypeParameterDeclaration(d) && d.parent !== undefined && !ts.isTypeLiteralNode(d.parent),
        );
        if (declarations.length === 0) continue;
        reachable.add(target);
        for (const d of declarations) follow(statementOf(d));
      }
    };

    /** @param {ts.Symbol} symbol */
    const printed = (symbol) =>
      (symbol.declarations ?? []).filter(inDist).map((d) => print(statementOf(d), d.getSourceFile()));

    const exportLines = exported.flatMap(({ name, target }) => {
      const text = printed(target);
      for (const d of (target.declarations ?? []).filter(inDist)) follow(statementOf(d));
      const renamed = name === target.name ? [] : [`// exported as ${name}`];
      return [...renamed, ...(text.length > 0 ? text : [`// ${name}: declared outside this package`]), ''];
    });
    const reachableLines = [...reachable]
      .map((symbol) => {
        const file = relative(distDir, (symbol.declarations ?? [])[0]?.getSourceFile().fileName ?? '');
        return { key: `${file} ${symbol.name}`, file, text: printed(symbol) };
      })
      .sort((a, b) => byName(a.key, b.key))
      .flatMap(({ file, text }) => [`// ${file}`, ...text, '']);
    const undocumented = exported.filter(({ target }) => !isDocumented(target, checker)).map(({ name }) => name);

    const title = entry.subpath === '.' ? packageName : `${packageName}/${entry.subpath.slice(2)}`;
    const text = [
      `# API report: \`${title}\``,
      '',
      `<!-- Generated from ${relative(root, path)} by \`${UPDATE_COMMAND}\`; do not edit.`,
      '     A test regenerates this file and fails on any difference: a change here is a change',
      '     to the public API (semver: removing or changing anything is breaking). -->',
      '',
      '## Exported',
      '',
      '```ts',
      ...exportLines.slice(0, -1),
      '```',
      '',
      '## Not exported, but reachable through the exported types',
      '',
      reachableLines.length === 0 ? '(none)' : '```ts',
      ...(reachableLines.length === 0 ? [] : [...reachableLines.slice(0, -1), '```']),
      '',
    ].join('\n');
    return {
      entry,
      packageName,
      path: join(REPORT_DIR, entry.report),
      text: formatted(text, entry.report),
      undocumented,
    };
  });
};

/** @param {string} path */
export const readCheckedIn = (path) => {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    // No report yet: every line of the generated one is then new.
    return undefined;
  }
};

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const update = process.argv.includes('--update');
  let stale = 0;
  for (const report of generateReports()) {
    if (readCheckedIn(report.path) === report.text) continue;
    stale += 1;
    if (update) writeFileSync(report.path, report.text);
    console.log(`${update ? 'updated' : 'differs'}: ${relative(ROOT, report.path)}`);
  }
  if (!update && stale > 0) {
    console.log(`the public API changed; review, then accept it with: ${UPDATE_COMMAND}`);
    process.exitCode = 1;
  }
  if (stale === 0) console.log('API reports are up to date');
}
