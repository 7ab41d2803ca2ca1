/**
 * The engine's layers are enforced by `npm run lint` (dependency-cruiser, .dependency-cruiser.cjs):
 * the real tree keeps them, and a deliberately wrong import, or a circle of type imports, fails.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, it } from 'node:test';
import { temporaryDir } from './support/temporary.ts';

const ROOT = join(import.meta.dirname, '..');
const DEPCRUISE = join(ROOT, 'node_modules', '.bin', 'depcruise');
const CONFIG = join(ROOT, '.dependency-cruiser.cjs');

/** depcruise with the project's rules over a tree of the given files, from that tree's root. */
function cruise(files: Readonly<Record<string, string>>): { code: number | null; output: string } {
  const dir = temporaryDir('pix-layers-');
  try {
    const tsconfig = {
      compilerOptions: { module: 'NodeNext', allowImportingTsExtensions: true, noEmit: true },
    };
    writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify(tsconfig));
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(dirname(join(dir, path)), { recursive: true });
      writeFileSync(join(dir, path), text);
    }
    const folders = [...new Set(Object.keys(files).map((path) => path.split('/')[0] ?? path))];
    const run = spawnSync(DEPCRUISE, ['--config', CONFIG, ...folders], {
      cwd: dir,
      encoding: 'utf8',
    });
    return { code: run.status, output: `${run.stdout}${run.stderr}` };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('layers', () => {
  it('holds on the real tree', () => {
    const run = spawnSync('npm', ['run', '--silent', 'lint:layers'], { cwd: ROOT, encoding: 'utf8' });
    assert.equal(run.status, 0, `${run.stdout}${run.stderr}`);
  });

  it('accepts an import from a higher layer to a lower one', () => {
    const run = cruise({
      'src/checks/judge.ts': "import { x } from '../spec/spec.ts';\nexport const y = x;\n",
      'src/spec/spec.ts': 'export const x = 1;\n',
    });
    assert.equal(run.code, 0, run.output);
  });

  it('fails a check that imports the transport', () => {
    const run = cruise({
      'src/checks/judge.ts': "import { send } from '../transport/http.ts';\nexport const y = send;\n",
      'src/transport/http.ts': 'export const send = 1;\n',
    });
    assert.notEqual(run.code, 0, run.output);
    assert.match(run.output, /checks-judge-data/);
  });

  it('fails a lower layer that imports a higher one', () => {
    const run = cruise({
      'src/config/config.ts': "import { plan } from '../run/plan.ts';\nexport const y = plan;\n",
      'src/run/plan.ts': 'export const plan = 1;\n',
    });
    assert.notEqual(run.code, 0, run.output);
    assert.match(run.output, /layer-config/);
  });

  it('fails a circle of type imports inside one layer', () => {
    const run = cruise({
      'src/config/a.ts': "import type { B } from './b.ts';\nexport type A = { b?: B };\n",
      'src/config/b.ts': "import type { A } from './a.ts';\nexport type B = { a?: A };\n",
    });
    assert.notEqual(run.code, 0, run.output);
    assert.match(run.output, /no-circular/);
  });

  it('fails a reporter that reaches the transport', () => {
    const run = cruise({
      'reporters/html.ts': "import { send } from '../src/transport/http.ts';\nexport const y = send;\n",
      'src/transport/http.ts': 'export const send = 1;\n',
    });
    assert.notEqual(run.code, 0, run.output);
    assert.match(run.output, /reports-never-send/);
  });
});
