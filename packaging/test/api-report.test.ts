import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { afterAll, describe, expect, it } from 'vitest';
import { ENTRIES, generateReports, readCheckedIn, UPDATE_COMMAND } from '../api-report.mjs';
import { LIBRARIES, ROOT } from './support/libraries.js';
import { lineDiff } from './support/line-diff.js';

// The guard on breaking changes: the public API of every published entry
// point, regenerated from the .d.ts the build emits, must equal the report
// checked in under packaging/api/. A change to the surface — an export
// removed, a parameter added, a union widened, an exported type's shape
// reached through another — is then a diff a reviewer sees and accepts on
// purpose, never an accident a consumer discovers.

const reports = generateReports();

const failure = (title: string, path: string, diff: string): string =>
  [
    `The public API of ${title} changed; ${relative(ROOT, path)} no longer describes it.`,
    '',
    diff,
    '',
    'If the change is intended, accept it and commit the report with the change:',
    `  ${UPDATE_COMMAND}`,
    'and say it in the package CHANGELOG: removing or changing anything is a breaking change (semver).',
  ].join('\n');

describe('the checked-in API reports', () => {
  for (const report of reports) {
    const title =
      report.entry.subpath === '.' ? report.packageName : `${report.packageName}/${report.entry.subpath.slice(2)}`;
    it(`describe the public API of ${title} as built`, () => {
      const checkedIn = readCheckedIn(report.path) ?? '';
      const diff = lineDiff(checkedIn, report.text);
      if (diff !== '') throw new Error(failure(title, report.path, diff));
      expect(checkedIn).toBe(report.text);
    });
  }

  it('cover every entry point the published packages export', () => {
    const published = LIBRARIES.flatMap((library) => {
      const manifest = JSON.parse(readFileSync(join(library.dir, 'package.json'), 'utf8')) as {
        publishConfig: { exports: Record<string, unknown> };
      };
      // A data file (core's profile schema) is no code entry: core's profile-schema test holds it to the parser.
      return Object.entries(manifest.publishConfig.exports)
        .filter(([, target]) => typeof target !== 'string')
        .map(([subpath]) => `${relative(ROOT, library.dir)} ${subpath}`);
    });
    expect(ENTRIES.map((e) => `${e.packageDir} ${e.subpath}`).sort()).toEqual(published.sort());
  });
});

describe('the guard itself', () => {
  const scratch = mkdtempSync(join(tmpdir(), 'api-guard-'));
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  it('fails, naming the export and the command to accept it, when an export is removed from core', () => {
    // A copy of core's published files with runTickFromEnvironment dropped
    // from the entry's export list, as a careless edit of src/index.ts would.
    cpSync(join(ROOT, 'packages/core/package.json'), join(scratch, 'packages/core/package.json'));
    cpSync(join(ROOT, 'packages/core/dist'), join(scratch, 'packages/core/dist'), { recursive: true });
    const index = join(scratch, 'packages/core/dist/index.d.ts');
    const original = readFileSync(index, 'utf8');
    const doctored = original.replace(/\brunTickFromEnvironment, /, '');
    expect(doctored).not.toBe(original);
    writeFileSync(index, doctored);

    const core = ENTRIES.filter((e) => e.report === 'core.api.md');
    const [regenerated] = generateReports({ root: scratch, entries: core });
    if (regenerated === undefined) throw new Error('no report for core');
    const diff = lineDiff(readCheckedIn(regenerated.path) ?? '', regenerated.text);
    const removed = diff.split('\n').filter((line) => line.startsWith('-') && !line.startsWith('---'));
    const added = diff.split('\n').filter((line) => line.startsWith('+') && !line.startsWith('+++'));
    expect(removed.some((line) => line.startsWith('-export declare const runTickFromEnvironment:'))).toBe(true);
    expect(added).toEqual([]);
    expect(failure('@image-refresh/core', regenerated.path, diff)).toContain(UPDATE_COMMAND);
  });
});

describe('every public symbol', () => {
  for (const report of reports) {
    it(`of ${report.entry.report.replace('.api.md', '')} carries TSDoc`, () => {
      expect(report.undocumented).toEqual([]);
    });
  }
});

/** Every module a .d.ts file names: imports, re-exports, `import("…")` types, type references (comments skipped). */
const specifiersIn = (text: string): string[] => {
  const info = ts.preProcessFile(text, true, true);
  return [
    ...info.importedFiles.map((f) => f.fileName),
    ...info.typeReferenceDirectives.map((r) => `types:${r.fileName}`),
    ...info.referencedFiles.map((r) => `path:${r.fileName}`),
  ];
};

const declarationsOf = (dir: string): string[] =>
  readdirSync(join(ROOT, dir, 'dist'), { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.d.ts'))
    .map((file) => readFileSync(join(ROOT, dir, 'dist', file), 'utf8'));

const packagesNamed = (dir: string): string[] =>
  [...new Set(declarationsOf(dir).flatMap(specifiersIn))].filter((s) => !s.startsWith('.')).sort();

describe('the emitted declarations', () => {
  it("of core name only xstate and fp-ts: no Node typings, no Kubernetes client in core's types", () => {
    const named = packagesNamed('packages/core');
    expect(named.filter((s) => !(s === 'xstate' || s.startsWith('fp-ts/lib/')))).toEqual([]);
    expect(named).toContain('xstate');
  });

  it('of the adapter name core only by its published entry, never a path inside it', () => {
    const named = packagesNamed('packages/k8s-adapter');
    expect(named.filter((s) => s.startsWith('@image-refresh/'))).toEqual(['@image-refresh/core']);
    const allowed = (s: string) =>
      s === '@image-refresh/core' ||
      s === '@kubernetes/client-node' ||
      s.startsWith('fp-ts/lib/') ||
      s.startsWith('node:');
    expect(named.filter((s) => !allowed(s))).toEqual([]);
  });
});
