/**
 * The engine's layers are enforced by `npm run lint` (dependency-cruiser, .dependency-cruiser.cjs):
 * the real tree keeps them, and a deliberately wrong import, or a circle of type imports, fails.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { before, describe, it } from 'node:test';
import { temporaryDir } from './support/temporary.ts';

const ROOT = join(import.meta.dirname, '..');
const DEPCRUISE = join(ROOT, 'node_modules', '.bin', 'depcruise');
const CONFIG = join(ROOT, '.dependency-cruiser.cjs');

/** A line of depcruise's own report (`err`, as npm run lint:layers prints it) naming a broken rule. */
interface Violation {
  readonly severity: string;
  readonly rule: string;
  readonly from: string;
}

interface Cruise {
  readonly code: number | null;
  readonly output: string;
  readonly violations: readonly Violation[];
}

/** depcruise with the project's rules over a tree of the given files, from that tree's root. */
function cruise(files: Readonly<Record<string, string>>): Cruise {
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
    const run = spawnSync(DEPCRUISE, ['--config', CONFIG, ...folders], { cwd: dir, encoding: 'utf8' });
    const violations = [...run.stdout.matchAll(/^ {2}(\w+) ([\w-]+): (\S+) →/gm)].map(
      ([, severity = '', rule = '', from = '']) => ({ severity, rule, from }),
    );
    return { code: run.status, output: `${run.stdout}${run.stderr}`, violations };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

interface Case {
  readonly title: string;
  readonly files: Readonly<Record<string, string>>;
  /** The rule its import breaks; none for an import the layers allow. */
  readonly rule?: string;
}

const CASES: readonly Case[] = [
  {
    title: 'accepts an import from a higher layer to a lower one',
    files: {
      'src/checks/accepted.ts': "import { x } from '../spec/spec.ts';\nexport const y = x;\n",
      'src/spec/spec.ts': 'export const x = 1;\n',
    },
  },
  {
    title: 'fails a check that imports the transport',
    files: {
      'src/checks/judge.ts': "import { send } from '../transport/http.ts';\nexport const y = send;\n",
      'src/transport/http.ts': 'export const send = 1;\n',
    },
    rule: 'checks-judge-data',
  },
  {
    title: 'fails a lower layer that imports a higher one',
    files: {
      'src/config/config.ts': "import { plan } from '../run/plan.ts';\nexport const y = plan;\n",
      'src/run/plan.ts': 'export const plan = 1;\n',
    },
    rule: 'layer-config',
  },
  {
    title: 'fails a circle of type imports inside one layer',
    files: {
      'src/config/a.ts': "import type { B } from './b.ts';\nexport type A = { b?: B };\n",
      'src/config/b.ts': "import type { A } from './a.ts';\nexport type B = { a?: A };\n",
    },
    rule: 'no-circular',
  },
  {
    title: 'fails a reporter that reaches the transport',
    files: {
      'reporters/html.ts': "import { send } from '../src/transport/http.ts';\nexport const y = send;\n",
      'src/transport/http.ts': 'export const send = 1;\n',
    },
    rule: 'reports-never-send',
  },
];

describe('layers', () => {
  // Every case a corner of one tree, cruised once: a depcruise start costs about 2.5 s of processor time.
  let corners: Cruise;
  before(() => {
    corners = cruise(Object.assign({}, ...CASES.map((c) => c.files)) as Record<string, string>);
    // depcruise exits with the number of violations of severity error: every one of them was read.
    const errors = corners.violations.filter((v) => v.severity === 'error');
    assert.equal(corners.code, errors.length, corners.output);
  });

  it('holds on the real tree', () => {
    const run = spawnSync('npm', ['run', '--silent', 'lint:layers'], { cwd: ROOT, encoding: 'utf8' });
    assert.equal(run.status, 0, `${run.stdout}${run.stderr}`);
  });

  for (const { title, files, rule } of CASES)
    it(title, () => {
      const own = corners.violations.filter((v) => Object.hasOwn(files, v.from));
      assert.deepEqual(
        [...new Set(own.map((v) => v.rule))],
        rule === undefined ? [] : [rule],
        corners.output,
      );
      // Each fails npm run lint on its own: depcruise's exit code counts the errors.
      assert.ok(
        own.every((v) => v.severity === 'error'),
        corners.output,
      );
    });
});
