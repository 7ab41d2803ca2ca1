/**
 * The tool as an integrator installs it: `npm pack`, then the tarball with --omit=dev into an empty
 * directory, run from another empty directory as `pix-certify` under this machine's Node 20 and under
 * Node 22 and 24 (releases shipped as npm packages, selftest/node-versions): the mock certification,
 * --version, list, the sandbox's reference reading. A broken installation and an unsupported Node (a
 * real Node 18) get one line and exit 2; action.yml's run steps install the tarball and certify. The Node
 * guard's table is held to package.json's engines.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { generateKeyPairSync } from 'node:crypto';
import { delimiter, dirname, join, sep } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { enginesRange, nodeProblem } from '../../bin/installation.ts';
import { startSandbox, type RunningSandbox } from '../../sandbox/server.ts';
import { catalogue } from '../../src/checks/catalogue.ts';
import { withdrawalPlan } from '../../src/run/plan.ts';
import { DEFAULT_RUN_SHAPE } from '../../src/checks/family.ts';
import { loadSpec } from '../../src/spec/spec.ts';
import { readAction, runComposite, type ActionRun } from '../support/composite-action.ts';
import {
  installPacked,
  nodeReleases,
  packTarball,
  type InstalledPackage,
} from '../support/installed-package.ts';
import { sandboxEnv } from '../support/live-env.ts';
import { cleanEnvironment, runCommand, type SuiteRun } from '../support/run-suite.ts';
import { temporaryDir } from '../support/temporary.ts';

const ROOT = join(import.meta.dirname, '..', '..');
const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  version: string;
  engines: { node: string };
};

describe('the Node guard', () => {
  it('is the range package.json engines states', () => {
    assert.equal(manifest.engines.node, enginesRange());
  });

  it('refuses what is older than a tested line or between them, and lets newer majors through', () => {
    for (const version of ['18.20.8', '20.18.3', '21.7.3', '22.11.0', '23.11.1'])
      assert.match(
        nodeProblem(version) ?? '',
        new RegExp(`^Node ${version.replaceAll('.', '\\.')} cannot run`),
      );
    for (const version of ['20.19.0', '20.20.2', '22.12.0', '22.23.3', '24.0.0', '24.21.0', '26.1.0'])
      assert.equal(nodeProblem(version), undefined, version);
  });
});

/** The releases are Linux x64 builds; elsewhere this part says why it did not run. */
const elsewhere =
  process.platform === 'linux' && process.arch === 'x64'
    ? false
    : 'the Node releases used here are Linux x64 builds';

/** The Prism packages the mock runs on: each installation must resolve the versions of this repository's lock. */
const PRISM = [
  '@stoplight/prism-cli',
  '@stoplight/prism-core',
  '@stoplight/prism-http',
  '@stoplight/prism-http-server',
];
const SUPPORTED = ['node20', 'node22', 'node24'] as const;

/** Every copy of `name` in an installation's node_modules, nested ones included, by version. */
function versionsOf(nodeModules: string, name: string): string[] {
  const found = readdirSync(nodeModules, { recursive: true })
    .map(String)
    .filter((path) => path === name || path.endsWith(`${sep}node_modules${sep}${name}`))
    .map(
      (path) =>
        (JSON.parse(readFileSync(join(nodeModules, path, 'package.json'), 'utf8')) as { version: string })
          .version,
    );
  return [...new Set(found)];
}

describe('the packed tool, installed into an empty directory', { skip: elsewhere }, () => {
  /** The installation npm made running on this machine's Node. */
  let installed: InstalledPackage;
  /** The installation npm made running on each supported Node, as each of its users installs. */
  const installedBy = new Map<string, InstalledPackage>();
  let node: Record<'node18' | 'node20' | 'node22' | 'node24', string>;
  /** The directories this test made: the installation's and each user's. */
  const made: string[] = [];
  const userDir = (): string => {
    const dir = temporaryDir('pix-user-');
    made.push(dir);
    return dir;
  };

  before(
    async () => {
      const work = temporaryDir('pix-package-');
      made.push(work);
      const [packed, releases] = await Promise.all([packTarball(work), nodeReleases()]);
      node = { ...releases, node20: dirname(process.execPath) };
      for (const release of SUPPORTED)
        installedBy.set(
          node[release],
          await installPacked(packed, work, `project-${release}`, node[release]),
        );
      installed = installedBy.get(node.node20) ?? assert.fail('no installation');
    },
    { timeout: 600_000 },
  );
  after(() => {
    for (const dir of made) rmSync(dir, { recursive: true, force: true });
  });

  /** `pix-certify <args>` with the Node in binDir first on PATH, from a fresh directory (or cwd). */
  const pixCertify = (
    binDir: string,
    args: readonly string[],
    options: { cwd?: string; env?: Record<string, string> } = {},
  ): Promise<SuiteRun> => {
    const cwd = options.cwd ?? userDir();
    const PATH = `${binDir}${delimiter}${process.env.PATH ?? ''}`;
    return runCommand((installedBy.get(binDir) ?? installed).bin, args, {
      cwd,
      env: cleanEnvironment({ ...options.env, PATH }),
      timeoutMs: 120_000,
      reportDir: join(cwd, 'reports'),
    });
  };

  it('packs the compiled tool and its data only: no sources, self-tests, .env or source maps', () => {
    const data = [
      '.env.example',
      'LICENSE',
      'README.md',
      'package.json',
      'openapi/pix-withdrawal.yaml',
      'openapi/simulator-control.yaml',
      'reporters/certification.schema.json',
    ];
    const unexpected = installed.packedFiles.filter(
      (path) =>
        !data.includes(path) && !/^docs\/[a-z-]+\.md$/.test(path) && !/^dist\/[\w./-]+\.c?js$/.test(path),
    );
    assert.deepEqual(unexpected, []);
    for (const path of ['dist/bin/pix-certify.js', 'dist/playwright.config.js', 'dist/sandbox/main.js'])
      assert.ok(installed.packedFiles.includes(path), path);
    assert.ok(installed.packedFiles.some((path) => path.endsWith('.spec.js')));
  });

  it("ships the users' docs, at most 150 KB of them, not the contributors'", () => {
    const docs = installed.packedFiles.filter((path) => path.startsWith('docs/'));
    for (const path of ['docs/architecture.md', 'docs/contributing.md', 'docs/performance.md'])
      assert.ok(!docs.includes(path), path);
    const bytes = docs.reduce((sum, path) => sum + statSync(join(installed.packageDir, path)).size, 0);
    assert.ok(bytes <= 150_000, `${bytes} bytes of docs`);
  });

  it("resolves the Prism of this repository's lock, whichever Node npm runs on", () => {
    const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as {
      packages: Record<string, { version: string }>;
    };
    for (const release of SUPPORTED) {
      const nodeModules = join((installedBy.get(node[release]) ?? assert.fail(release)).dir, 'node_modules');
      for (const name of PRISM)
        assert.deepEqual(
          versionsOf(nodeModules, name),
          [lock.packages[`node_modules/${name}`]?.version],
          `${name} installed by npm on ${release}`,
        );
    }
  });

  it('installs no TypeScript loader or compiler', () => {
    const names = readdirSync(join(installed.dir, 'node_modules'), { recursive: true }).map(String);
    const loaders = names.filter((path) =>
      /(^|\/)(tsx|typescript|ts-node|esbuild)$/.test(path.split(sep).join('/')),
    );
    assert.deepEqual(loaders, []);
  });

  for (const release of ['node20', 'node22', 'node24'] as const) {
    it(`under ${release}: the mock certification writes ./reports, --version and list answer`, async () => {
      // --version and list run beside the certification, as they would in another terminal.
      const [mockRun, version, list] = await Promise.all([
        pixCertify(node[release], []),
        pixCertify(node[release], ['--version']),
        pixCertify(node[release], ['list']),
      ]);
      assert.equal(mockRun.code, 0, mockRun.stderr);
      assert.doesNotMatch(mockRun.stdout + list.stdout, /npm run/, 'the installed tool names pix-certify');
      assert.equal(
        mockRun.report?.verdict,
        'INCOMPLETE',
        'certification.json in ./reports of the current directory',
      );

      assert.equal(version.code, 0, version.stderr);
      assert.match(version.stdout, new RegExp(`^pix-withdrawal-conformance ${manifest.version}$`, 'm'));
      const expectedNode = release === 'node20' ? process.versions.node : release.slice('node'.length);
      assert.match(version.stdout, new RegExp(`^Node ${expectedNode}[.\\d]*$`, 'm'));

      assert.equal(list.code, 0, list.stderr);
      const total = catalogue('provider').length;
      assert.match(list.stdout, new RegExp(`^${total} of ${total} checks`, 'm'));
      assert.equal(existsSync(list.reportDir), false, 'a listing writes no report');
    });
  }

  for (const release of ['node20', 'node22', 'node24'] as const) {
    const cached = release !== 'node20';
    it(`under ${release}: ${cached ? 'compiles through' : 'leaves alone'} Node's compile cache`, async () => {
      // No NODE_COMPILE_CACHE: a cache in the temporary directory is one pix-certify turned on itself.
      const temporary = userDir();
      const run = await pixCertify(node[release], [], { env: { TMPDIR: temporary } });
      assert.equal(run.code, 0, run.stderr);
      const cache = join(temporary, 'node-compile-cache');
      assert.equal(
        existsSync(cache) && readdirSync(cache).length > 0,
        cached,
        `a compile cache in ${temporary}`,
      );
    });
  }

  describe("the sandbox's reference reading, under the other Node lines", () => {
    let sandbox: RunningSandbox;
    before(async () => {
      sandbox = await startSandbox();
    });
    after(() => sandbox.close());
    // The run's first withdrawal (live, payouts allowed) is in the plan of its configuration.
    const planned = withdrawalPlan(loadSpec(), 0.01, DEFAULT_RUN_SHAPE, true).requests;

    for (const release of ['node22', 'node24'] as const)
      it(`under ${release}: no FAILED, exit 0, exactly the planned withdrawals`, async () => {
        const before = sandbox.withdrawalsReceived('reference');
        const run = await pixCertify(node[release], [], { env: sandboxEnv(sandbox, 'reference') });
        assert.deepEqual(run.idsWith('FAILED'), [], run.stderr);
        assert.equal(run.code, 0, run.stderr);
        assert.equal(sandbox.withdrawalsReceived('reference') - before, planned);
      });
  });

  it('reads .env from the current directory', async () => {
    const cwd = userDir();
    writeFileSync(join(cwd, '.env'), 'PIX_AMONT=1\n');
    const run = await pixCertify(node.node20, [], { cwd });
    assert.equal(run.code, 2, run.stdout);
    assert.match(run.stderr, /^pix-certify: PIX_AMONT: .*Did you mean PIX_AMOUNT\?/m);
  });

  /** Exit 2 and one line, the given one, on stderr; nothing on stdout and no report. */
  const assertOneLine = (run: SuiteRun, line: RegExp): void => {
    assert.equal(run.code, 2, run.stdout + run.stderr);
    assert.equal(run.stdout, '');
    assert.equal(run.report, undefined);
    const lines = run.stderr.trimEnd().split('\n');
    assert.equal(lines.length, 1, run.stderr);
    assert.match(lines[0] ?? '', line);
  };

  it('names its own commands, never an npm script: help, usage errors, hints, closing lines', async () => {
    const cwd = userDir();
    const key = join(cwd, 'signing.pem');
    writeFileSync(
      key,
      generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    );
    const runs = await Promise.all([
      pixCertify(node.node20, ['--help']),
      pixCertify(node.node20, ['verify', '--help']),
      pixCertify(node.node20, ['verify']),
      pixCertify(node.node20, ['verify', '--nonsense']),
      pixCertify(node.node20, ['compare']),
      pixCertify(node.node20, ['history']),
      pixCertify(node.node20, [], { env: { PIX_UNKNOWN_THING: '1' } }),
      pixCertify(node.node20, [], { cwd, env: { PIX_SIGNING_KEY_FILE: key } }),
    ]);
    const [help, , , , , , , signed] = runs;
    assert.match(signed.stdout, /^Signed: .*; pix-certify verify \S+ checks the report\.$/m);
    assert.match(help.stdout, /^Usage: pix-certify \[command\]/m);
    for (const run of runs) assert.doesNotMatch(run.stdout + run.stderr, /npm run/);
  });

  it('under an unsupported Node (a real 18): one line and exit 2', async () => {
    assertOneLine(
      await pixCertify(node.node18, []),
      /^pix-certify: Node 18\.[.\d]+ cannot run the suite: use Node 20\.19 or later 20\.x, 22\.12 or later 22\.x, 24/,
    );
  });

  /** Runs with the path moved aside, then puts it back (also when the run fails). */
  const without = async (path: string, action: () => Promise<SuiteRun>): Promise<SuiteRun> => {
    renameSync(path, `${path}.away`);
    try {
      return await action();
    } finally {
      renameSync(`${path}.away`, path);
    }
  };

  it('without a dependency: one line naming it and exit 2', async () => {
    const run = await without(join(installed.dir, 'node_modules', 'ajv'), () => pixCertify(node.node20, []));
    assertOneLine(
      run,
      /^pix-certify: the dependency ajv is missing from this installation: install the suite again/,
    );
  });

  it('without one of its own files: one line and exit 2', async () => {
    const config = join(installed.packageDir, 'dist', 'src', 'config', 'config.js');
    const run = await without(config, () => pixCertify(node.node20, ['--version']));
    assertOneLine(
      run,
      /^pix-certify: a file of this installation is missing \(Cannot find module .*config\.js.*\): install the suite again/,
    );
  });

  describe("action.yml's run steps, the GitHub Action's, installing this tarball", () => {
    const runAction = async (
      inputs: Record<string, string>,
      env: Record<string, string> = {},
    ): Promise<{ cwd: string; ran: ActionRun }> => {
      const cwd = userDir();
      const ran = await runComposite(readAction(join(ROOT, 'action.yml')), {
        actionPath: ROOT,
        inputs: { package: installed.tarball, ...inputs },
        env: cleanEnvironment(env) as Record<string, string>,
        cwd,
      });
      return { cwd, ran };
    };

    it('installs the tool and certifies the mock: INCOMPLETE, so the gate fails (exit 1), reports kept and summed up', async () => {
      // An input is a value, never code: the label reaches the report as typed.
      const label = 'UAT $(touch pwned) `touch pwned2` "; exit 7';
      const { cwd, ran } = await runAction({ 'env-name': label });
      // require-complete is on by default: a gate never passes on what it could not judge.
      assert.equal(ran.code, 1, ran.log);
      assert.deepEqual(ran.skippedUses, ['actions/setup-node@v4', 'actions/upload-artifact@v4']);
      assert.deepEqual(ran.outputs, {
        verdict: 'INCOMPLETE',
        'exit-code': '1',
        'report-dir': join(cwd, 'reports'),
      });
      const report = readFileSync(join(cwd, 'reports', 'certification.json'), 'utf8');
      assert.equal((JSON.parse(report) as { verdict: string }).verdict, 'INCOMPLETE');
      assert.ok(report.includes(JSON.stringify(label).slice(1, -1)), 'the label as typed');
      assert.ok(!existsSync(join(cwd, 'pwned')) && !existsSync(join(cwd, 'pwned2')));
      assert.match(ran.summary, /INCOMPLETE/);
      assert.match(ran.log, /pix-certify: verdict INCOMPLETE, exit 1/);
    });

    it('an empty input leaves the env alone; a configuration error is verdict ERROR and exit 2', async () => {
      // Payouts allowed in the env, as a secret store would set them, and no base URL anywhere.
      const { ran } = await runAction({ 'base-url': '' }, { PIX_ALLOW_PAYOUTS: '1' });
      assert.equal(ran.code, 2, ran.log);
      assert.deepEqual([ran.outputs.verdict, ran.outputs['exit-code']], ['ERROR', '2']);
      assert.match(ran.log, /PIX_BASE_URL/);
      assert.match(ran.summary, /stopped with exit 2/);
    });
  });
});
