// @ts-check
// `pnpm --filter @image-refresh/cli build`: the CLI, core and the adapter as
// one ESM file, dist/image-refresh.mjs — the CronJob's whole program.
//
// Node's own modules are loaded when first used, not at start: esbuild hoists
// every `import … from 'node:http'` of the bundled ES modules to the top of
// the file, so `--version` (which evaluates nothing else) still loaded http,
// https, net, tls, child_process, crypto and readline. The `lazy-builtins`
// plugin turns each such import into a CommonJS `require` behind esbuild's
// lazy module initialiser. What that saves: README, Benchmarks (`--version`
// on Node 24 with the image's compile cache went from 223 to 92 ms).
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { builtinModules } from 'node:module';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const here = new URL('..', import.meta.url);
const { version } = JSON.parse(readFileSync(new URL('package.json', here), 'utf8'));
const builtins = new Set(builtinModules.flatMap((name) => [name, `node:${name}`]));

/** @type {import('esbuild').Plugin} */
const lazyBuiltins = {
  name: 'lazy-builtins',
  setup(plugin) {
    // Only bare names can be builtins (`http`, `node:http`, `fs/promises`).
    plugin.onResolve({ filter: /^[a-z0-9_:/]+$/ }, (args) =>
      args.kind === 'import-statement' && builtins.has(args.path)
        ? { path: args.path, namespace: 'lazy-builtin' }
        : undefined,
    );
    plugin.onLoad({ filter: /.*/, namespace: 'lazy-builtin' }, (args) => ({
      contents: `module.exports = require(${JSON.stringify(args.path)});`,
      loader: 'js',
    }));
  },
};

// client-node's ObjectSerializer imports all ~700 model classes to fill its
// name → class table, so evaluating the client built every class a steady
// tick never (de)serializes. `lazy-models` rewrites that table into getters
// that `require` a model on first use (esbuild then keeps each model behind a
// lazy initialiser) and drops the `export *` of every model, which nothing
// here imports as a value (the build fails if something does). A tick builds
// the few dozen classes a Deployment, a DaemonSet and an Event need: −0.9 MiB
// peak RSS on Node 24 (`pnpm bench:cli`).
const MODELS = /client-node[\\/]dist[\\/]gen[\\/]models[\\/](ObjectSerializer|all)\.js$/;
const MODEL_EXPORT = /^export \* from '\.\.\/models\/\w+\.js';\n/gm;
const MODEL_IMPORT = /^import \{ \w+ \} from '\.\.\/models\/\w+\.js';\n/gm;
const TYPE_MAP_ENTRY = /^ {4}"(\w+)": (\w+),?$/gm;

/** @type {import('esbuild').Plugin} */
const lazyModels = {
  name: 'lazy-models',
  setup(plugin) {
    plugin.onLoad({ filter: MODELS }, async (args) => {
      const source = await readFile(args.path, 'utf8');
      let entries = 0;
      const contents = source
        .replace(MODEL_EXPORT, '')
        .replace(MODEL_IMPORT, '')
        .replace(TYPE_MAP_ENTRY, (_entry, key, name) => {
          entries += 1;
          return `    get ${JSON.stringify(key)}() { return require('./${name}.js').${name}; },`;
        });
      // A client-node whose generated serializer changed shape: say so rather than ship it half-rewritten.
      if (args.path.endsWith('ObjectSerializer.js') && (entries < 500 || / from '\.\.\/models\//.test(contents))) {
        throw new Error(
          `lazy-models: ${args.path} no longer has the shape this plugin rewrites (${entries} table entries)`,
        );
      }
      return { contents, loader: 'js' };
    });
  },
};

// client-node's index re-exports everything (exec, attach, port-forward,
// watch, cp, …); without a `sideEffects` field in its package.json esbuild
// must keep and evaluate every module, and with them ws and tar-fs. Its
// modules only declare classes and functions, so tell esbuild so: what the
// adapter never imports is dropped (−0.5 MiB peak RSS on Node 24).
/** @type {import('esbuild').Plugin} */
const clientWithoutSideEffects = {
  name: 'client-node-side-effect-free',
  setup(plugin) {
    plugin.onResolve({ filter: /.*/ }, async (args) => {
      const fromClient = args.path === '@kubernetes/client-node' || /client-node[\\/]dist[\\/]/.test(args.importer);
      if (!fromClient || args.pluginData === 'resolving') return undefined;
      const resolved = await plugin.resolve(args.path, {
        kind: args.kind,
        importer: args.importer,
        resolveDir: args.resolveDir,
        pluginData: 'resolving',
      });
      return resolved.errors.length === 0 && /client-node[\\/]dist[\\/]/.test(resolved.path)
        ? { ...resolved, sideEffects: false }
        : undefined;
    });
  },
};

// node-fetch 2 parses every request URL with the legacy url.parse(), which
// prints a DEP0169 DeprecationWarning on Node 24: its `parse_url` becomes the
// WHATWG-based twin in url-parse-shim.cjs (that file says why). The build
// fails if node-fetch no longer has the line this rewrites.
const NODE_FETCH = /node-fetch[\\/]lib[\\/]index\.m?js$/;
const LEGACY_PARSE = 'const parse_url = Url.parse;';
const urlParseShim = fileURLToPath(new URL('build/url-parse-shim.cjs', here));

/** @type {import('esbuild').Plugin} */
const nodeFetchWhatwgParse = {
  name: 'node-fetch-whatwg-parse',
  setup(plugin) {
    plugin.onLoad({ filter: NODE_FETCH }, async (args) => {
      const source = await readFile(args.path, 'utf8');
      if (!source.includes(LEGACY_PARSE)) {
        throw new Error(`node-fetch-whatwg-parse: ${args.path} no longer says \`${LEGACY_PARSE}\``);
      }
      const contents = source.replace(LEGACY_PARSE, `const parse_url = require(${JSON.stringify(urlParseShim)});`);
      return { contents, loader: 'js' };
    });
  },
};

// Two parts of the program are files of their own beside the bundle, each
// imported only when its switch asks for it, so that a switch left off leaves
// the steady tick's memory as it was (`pnpm bench:cli`, README.md, Benchmarks):
// - the signature check (the key parser, the verifier, @sigstore/*, ~170 kB),
//   dist/image-refresh-signatures.mjs, when VERIFY_SIGNATURES is on
//   (wiring/load-signature-trust.ts) — inlined, even never evaluated, it cost
//   a steady tick with the check off +1.2 MiB peak RSS on Node 20;
// - the YAML parser, dist/image-refresh-profile.mjs, when IMAGE_REFRESH_PROFILE
//   names a profile (wiring/read-profile.ts) — inlined, +11 MiB on Node 20.
const APART = [
  { specifier: './signature-trust.js', entry: 'src/wiring/signature-trust.ts', file: 'image-refresh-signatures.mjs' },
  { specifier: './profile-yaml.js', entry: 'src/wiring/profile-yaml.ts', file: 'image-refresh-profile.mjs' },
];

/** @type {import('esbuild').Plugin} */
const filesApart = {
  name: 'files-apart',
  setup(plugin) {
    for (const { specifier, file } of APART) {
      const exactly = new RegExp(`^${specifier.replaceAll('.', '\\.')}$`);
      plugin.onResolve({ filter: exactly }, (args) =>
        args.kind === 'dynamic-import' ? { path: `./${file}`, external: true } : undefined,
      );
    }
  },
};

// core, the adapter and the CLI import fp-ts's CommonJS build (`fp-ts/lib/…`,
// what tsc's output needs). Bundled, every ES module that imports one gets its
// own `__toESM` copy of that module's exports — a getter, a context and an
// accessor pair per export, ~110 for Either — so each new file importing
// Either cost a steady tick ~30 kB of heap: the signature check, the way back
// and the fleet-safe rollout added eight, and the tick's peak RSS on Node 24
// went from 63.9 to 64.5 MiB (`pnpm bench:cli`). The same modules' ES build
// (`fp-ts/es6/…`, same code, `sideEffects: false`) is hoisted into the bundle:
// no copies, and what nothing calls is dropped.
const FP_TS_LIB = /^fp-ts\/lib\/(\w+)(?:\.js)?$/;

/** @type {import('esbuild').Plugin} */
const fpTsAsEsModules = {
  name: 'fp-ts-as-es-modules',
  setup(plugin) {
    plugin.onResolve({ filter: FP_TS_LIB }, (args) =>
      plugin.resolve(args.path.replace(FP_TS_LIB, 'fp-ts/es6/$1.js'), {
        kind: args.kind,
        importer: args.importer,
        resolveDir: args.resolveDir,
      }),
    );
  },
};

/** What both files are built with. */
const common = {
  absWorkingDir: fileURLToPath(here),
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  minify: true,
  keepNames: true,
  legalComments: 'none',
  logLevel: 'warning',
  // whatwg-url-shim.cjs says why.
  alias: { 'whatwg-url': './build/whatwg-url-shim.cjs' },
  define: { IMAGE_REFRESH_VERSION: JSON.stringify(version) },
  // `require` for the CommonJS inside (client-node's dependencies, the lazy builtins).
  banner: {
    js: "#!/usr/bin/env node\nimport{createRequire}from'node:module';const require=createRequire(import.meta.url);",
  },
};

await build({
  ...common,
  entryPoints: ['src/bin.ts'],
  outfile: 'dist/image-refresh.mjs',
  plugins: [filesApart, fpTsAsEsModules, clientWithoutSideEffects, lazyModels, nodeFetchWhatwgParse, lazyBuiltins],
});

// Each file apart has its own copy of what it uses of core and fp-ts: it shares no module with the bundle.
for (const { entry, file } of APART) {
  await build({
    ...common,
    entryPoints: [entry],
    outfile: `dist/${file}`,
    banner: { js: "import{createRequire}from'node:module';const require=createRequire(import.meta.url);" },
    plugins: [fpTsAsEsModules, clientWithoutSideEffects, lazyModels, nodeFetchWhatwgParse, lazyBuiltins],
  });
}

// ASCII only: V8 holds a script with one character beyond ASCII as a two-byte
// string, doubling the 1.2 MB bundle in the heap (+1.1 MiB peak RSS on Node
// 24, measured with `pnpm bench:cli`). esbuild escapes strings but
// keeps a regular expression's characters as written: write them as \uXXXX.
for (const file of ['dist/image-refresh.mjs', ...APART.map(({ file }) => `dist/${file}`)]) {
  const output = await readFile(new URL(file, here));
  const beyondAscii = output.findIndex((byte) => byte > 0x7f);
  if (beyondAscii >= 0) {
    const context = output.subarray(Math.max(0, beyondAscii - 60), beyondAscii + 20).toString('latin1');
    throw new Error(`${file} is not ASCII at byte ${beyondAscii}: …${context}… (escape it in the source as \\uXXXX)`);
  }
}
