// @ts-check
/**
 * The clone's build for `npm run certify` (scripts/run-from-sources.mjs): the sources compiled into
 * .build/, the layout of the installed package's dist/ one folder under the repository, each file
 * compiled again only when its content changed. The compiler is TypeScript's own, with the package
 * build's options (tsconfig.build.json), one file at a time: like a loader, it checks syntax, not types
 * (npm run typecheck does). The first build compiles everything (about 2 s); later ones read and hash
 * the sources (milliseconds). Plain JavaScript, as it runs before anything is compiled.
 */
import { createHash } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

/** @typedef {typeof import('typescript')} TypeScript */

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
/** Where the compiled tree goes: one folder under the root, as dist/ is in the package (src/base/paths.ts). */
export const BUILD_DIR = join(ROOT, '.build');
/** Holds each compiled source's hash, and what the whole build depends on. */
const MANIFEST = join(BUILD_DIR, 'sources.json');
/** The package build's `include` (tsconfig.build.json); selftest/run-from-sources.test.ts keeps them equal. */
const SOURCES = ['playwright.config.ts', 'src', 'bin', 'tests', 'reporters', 'sandbox'];
/**
 * Files compiled (TypeScript) or copied as they are (Prism's CommonJS preloads, under src/run/mock/).
 * @param {string} path
 */
const isSource = (path) => (path.endsWith('.ts') && !path.endsWith('.d.ts')) || path.endsWith('.cjs');
/** @param {string} source a source's path, `bin/certify.ts`: its compiled module's, `bin/certify.js` */
export const outputOf = (source) => source.replace(/\.ts$/, '.js');

/** @param {string} text */
const hash = (text) => createHash('sha256').update(text).digest('hex');

/**
 * Every source file, by its path from the root (forward slashes), sorted.
 * @returns {string[]}
 */
export function sourcePaths() {
  /** @type {string[]} */
  const paths = [];
  for (const entry of SOURCES) {
    const path = join(ROOT, entry);
    if (!existsSync(path)) continue;
    if (statSync(path).isDirectory()) {
      for (const file of readdirSync(path, { recursive: true })) paths.push(join(entry, String(file)));
    } else paths.push(entry);
  }
  return paths
    .map((path) => path.split('\\').join('/'))
    .filter(isSource)
    .sort();
}

/**
 * Every source file, by its path from the root, with its content.
 * @returns {Map<string, string>}
 */
function readSources() {
  return new Map(sourcePaths().map((path) => [path, readFileSync(join(ROOT, path), 'utf8')]));
}

/**
 * What every compiled file depends on besides its own source: the compiler's version, its options and
 * this script. When one changes, everything is compiled again.
 * @param {NodeJS.Require} require
 */
function buildKey(require) {
  const typescript = require.resolve('typescript/package.json');
  return hash(
    [
      readFileSync(typescript, 'utf8'),
      readFileSync(join(ROOT, 'tsconfig.json'), 'utf8'),
      readFileSync(join(ROOT, 'tsconfig.build.json'), 'utf8'),
      readFileSync(fileURLToPath(import.meta.url), 'utf8'),
    ].join('\0'),
  );
}

/** @returns {{ key: string, files: Record<string, string> }} */
function readManifest() {
  try {
    return /** @type {{ key: string, files: Record<string, string> }} */ (
      JSON.parse(readFileSync(MANIFEST, 'utf8'))
    );
  } catch {
    return { key: '', files: {} };
  }
}

/**
 * Written whole or not at all: a run started beside this one never reads half a module.
 * @param {string} path
 * @param {string} text
 */
function writeAtomically(path, text) {
  mkdirSync(dirname(path), { recursive: true });
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, text);
  renameSync(temporary, path);
}

/**
 * The package build's compiler options, for one file at a time: ES modules, as package.json's type says.
 * @param {TypeScript} ts
 * @returns {import('typescript').CompilerOptions}
 */
function compilerOptions(ts) {
  /** @type {import('typescript').ParseConfigFileHost} */
  const host = { ...ts.sys, onUnRecoverableConfigFileDiagnostic: (d) => fail([d], ts) };
  const parsed = ts.getParsedCommandLineOfConfigFile(join(ROOT, 'tsconfig.build.json'), {}, host);
  if (parsed === undefined || parsed.errors.length > 0) return fail(parsed?.errors ?? [], ts);
  // File by file, the compiler cannot read package.json's type: NodeNext would emit CommonJS.
  return {
    ...parsed.options,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    sourceMap: true,
  };
}

/**
 * @param {readonly import('typescript').Diagnostic[]} diagnostics
 * @param {TypeScript} ts
 * @returns {never}
 */
function fail(diagnostics, ts) {
  /** @type {import('typescript').FormatDiagnosticsHost} */
  const host = { getCanonicalFileName: (f) => f, getCurrentDirectory: () => ROOT, getNewLine: () => '\n' };
  process.stderr.write(ts.formatDiagnostics(diagnostics, host));
  process.stderr.write('pix-certify: the sources do not compile; nothing ran.\n');
  process.exit(2);
}

/**
 * Compiles the changed sources, or copies them (CommonJS); exits 2, after every file, if one does not compile.
 * @param {readonly string[]} changed
 * @param {Map<string, string>} sources
 * @param {NodeJS.Require} require
 */
function compile(changed, sources, require) {
  const ts = /** @type {TypeScript} */ (require('typescript'));
  const options = compilerOptions(ts);
  /** @type {import('typescript').Diagnostic[]} */
  const errors = [];
  for (const path of changed) {
    const text = sources.get(path) ?? '';
    const out = join(BUILD_DIR, outputOf(path));
    if (path.endsWith('.cjs')) {
      writeAtomically(out, text);
      continue;
    }
    const result = ts.transpileModule(text, {
      fileName: join(ROOT, path),
      compilerOptions: options,
      reportDiagnostics: true,
    });
    errors.push(...(result.diagnostics ?? []));
    writeAtomically(`${out}.map`, result.sourceMapText ?? '');
    writeAtomically(out, result.outputText);
  }
  if (errors.length > 0) fail(errors, ts);
}

/**
 * Compiled files whose source is gone: a test file left behind would still be found and run by
 * Playwright. Temporary files are another build's, about to be renamed.
 * @param {Record<string, string>} files the current sources' hashes
 * @returns {string[]} their paths under BUILD_DIR
 */
function orphans(files) {
  if (!existsSync(BUILD_DIR)) return [];
  const compiledFrom = new Set(
    Object.keys(files).flatMap((path) => [outputOf(path), `${outputOf(path)}.map`]),
  );
  return readdirSync(BUILD_DIR, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && /\.(js|cjs|map)$/.test(entry.name))
    .map((entry) => relative(BUILD_DIR, join(entry.parentPath, entry.name)).split('\\').join('/'))
    .filter((path) => !compiledFrom.has(path));
}

/**
 * Brings .build/ up to date with the sources. Two runs started together may both build: each file is
 * replaced whole by the same content and nothing is removed that a run of the same sources imports,
 * so neither needs to wait for the other.
 */
export function build() {
  const require = createRequire(join(ROOT, 'package.json'));
  const sources = readSources();
  const key = buildKey(require);
  const manifest = readManifest();
  const previous = manifest.key === key ? manifest.files : {};
  const files = Object.fromEntries([...sources].map(([path, text]) => [path, hash(text)]));
  // A compiled file removed by hand is compiled again, as a changed one is.
  const changed = Object.keys(files).filter(
    (path) => previous[path] !== files[path] || !existsSync(join(BUILD_DIR, outputOf(path))),
  );
  for (const path of orphans(files)) rmSync(join(BUILD_DIR, path), { force: true });
  if (changed.length === 0) return;
  const started = performance.now();
  compile(changed, sources, require);
  writeAtomically(MANIFEST, JSON.stringify({ key, files }, null, 1));
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  process.stderr.write(
    `pix-certify: compiled ${changed.length} of ${sources.size} source files into ${relative(process.cwd(), BUILD_DIR)}/ in ${seconds} s\n`,
  );
}
