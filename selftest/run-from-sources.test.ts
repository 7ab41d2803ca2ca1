/**
 * npm run certify in a clone (scripts/run-from-sources.mjs, scripts/sources-build.mjs): the sources
 * compiled into .build/ as the package build compiles them, again only where they changed, a file
 * whose source is gone removed, a source that does not compile stopping the run before anything
 * starts; the entry sees its own command line. The build runs here on a small tree of its own, with
 * the repository's compiler and configuration; every self-test that runs the suite runs it this way.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, it } from 'node:test';
import ts from 'typescript';
import { sourcePaths } from '../scripts/sources-build.mjs';
import { temporaryDir } from './support/temporary.ts';

const ROOT = join(import.meta.dirname, '..');

describe('the clone build compiles what the package build compiles', () => {
  it('takes the same files as tsconfig.build.json', () => {
    const parsed = ts.getParsedCommandLineOfConfigFile(
      join(ROOT, 'tsconfig.build.json'),
      {},
      {
        ...ts.sys,
        onUnRecoverableConfigFileDiagnostic: (d) =>
          assert.fail(ts.flattenDiagnosticMessageText(d.messageText, '\n')),
      },
    );
    const packaged = (parsed?.fileNames ?? [])
      .map((path) => relative(ROOT, path).split('\\').join('/'))
      .sort();
    assert.ok(packaged.length > 100, `${packaged.length} files in the package build`);
    assert.deepEqual(sourcePaths(), packaged);
  });
});

describe('npm run certify compiles the sources it runs', () => {
  /** A clone in miniature: the two scripts, the repository's configuration and dependencies, three sources. */
  function miniatureClone(): string {
    const root = temporaryDir('pix-clone-');
    for (const file of [
      'scripts/run-from-sources.mjs',
      'scripts/sources-build.mjs',
      'tsconfig.json',
      'tsconfig.build.json',
      'package.json',
    ])
      cpSync(join(ROOT, file), join(root, file));
    symlinkSync(join(ROOT, 'node_modules'), join(root, 'node_modules'), 'dir');
    write(root, 'src/value.ts', "export const value: string = 'one';\n");
    write(
      root,
      'bin/entry.ts',
      [
        "import { basename } from 'node:path';",
        "import { value } from '../src/value.ts';",
        "process.stdout.write(`${value} ${basename(process.argv[1] ?? '')} ${process.argv.slice(2).join(' ')}\\n`);",
        '',
      ].join('\n'),
    );
    write(root, 'tests/old.spec.ts', 'export {};\n');
    return root;
  }

  function write(root: string, path: string, text: string): void {
    mkdirSync(join(root, path, '..'), { recursive: true });
    writeFileSync(join(root, path), text);
  }

  function run(root: string, args = ['a', '--b']): { code: number | null; stdout: string; stderr: string } {
    const child = spawnSync(
      process.execPath,
      [join(root, 'scripts', 'run-from-sources.mjs'), 'bin/entry.ts', ...args],
      {
        cwd: root,
        encoding: 'utf8',
        timeout: 60_000,
      },
    );
    return { code: child.status, stdout: child.stdout, stderr: child.stderr };
  }

  it('compiles every source once, then only the changed ones, and runs the entry with its arguments', () => {
    const root = miniatureClone();
    const first = run(root);
    assert.equal(first.code, 0, first.stderr);
    assert.equal(first.stdout, 'one entry.js a --b\n');
    assert.match(first.stderr, /^pix-certify: compiled 3 of 3 source files into \.build\/ in \d+\.\d s\n$/);
    assert.ok(existsSync(join(root, '.build', 'tests', 'old.spec.js')));
    assert.ok(existsSync(join(root, '.build', 'bin', 'entry.js.map')), 'a source map beside each module');

    const again = run(root);
    assert.deepEqual(again, { code: 0, stdout: 'one entry.js a --b\n', stderr: '' });

    write(root, 'src/value.ts', "export const value: string = 'two';\n");
    const changed = run(root);
    assert.equal(changed.stdout, 'two entry.js a --b\n');
    assert.match(changed.stderr, /compiled 1 of 3 source files/);
  });

  it('removes what a deleted source compiled to, and compiles again what was removed by hand', () => {
    const root = miniatureClone();
    assert.equal(run(root).code, 0);
    rmSync(join(root, 'tests', 'old.spec.ts'));
    rmSync(join(root, '.build', 'src', 'value.js'));
    const after = run(root);
    assert.equal(after.code, 0, after.stderr);
    assert.equal(after.stdout, 'one entry.js a --b\n');
    assert.match(after.stderr, /compiled 1 of 2 source files/);
    assert.ok(
      !existsSync(join(root, '.build', 'tests', 'old.spec.js')),
      'a test file without a source is gone',
    );
    assert.ok(!existsSync(join(root, '.build', 'tests', 'old.spec.js.map')));
  });

  it("stops with exit 2 and the compiler's message where a source does not compile, before running anything", () => {
    const root = miniatureClone();
    write(root, 'src/value.ts', 'export const value: string = (;\n');
    const broken = run(root);
    assert.equal(broken.code, 2);
    assert.equal(broken.stdout, '');
    assert.match(broken.stderr, /src\/value\.ts\(1,31\): error TS\d+: Expression expected\./);
    assert.match(broken.stderr, /pix-certify: the sources do not compile; nothing ran\.\n$/);
    write(root, 'src/value.ts', "export const value: string = 'fixed';\n");
    assert.equal(run(root).stdout, 'fixed entry.js a --b\n', 'the next run compiles it again');
  });

  it('runs the sources under tsx, compiling nothing, when the command line names a TypeScript file', () => {
    const root = miniatureClone();
    for (const args of [['tests/old.spec.ts:1'], ['--reporter=list,./mine.ts']]) {
      const named = run(root, args);
      assert.deepEqual(
        named,
        { code: 0, stdout: `one entry.ts ${args.join(' ')}\n`, stderr: '' },
        args.join(' '),
      );
    }
    assert.ok(!existsSync(join(root, '.build')), 'nothing compiled');
  });
});
