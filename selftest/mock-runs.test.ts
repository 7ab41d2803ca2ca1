/**
 * Runs against the embedded mock. A plain run ends with no FAILED and writes every report (two shards
 * merged: selftest/slow/mock-shards.test.ts); and the mock never outlives its run: after a passing
 * run, a failing one, Ctrl-C, or even a SIGKILL of the suite, no mock is left listening (certify
 * serves it from its own process; Playwright started alone starts a Prism process, which exits with
 * it). The tests run one after another because they count Prism processes.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { runSuite, TYPESCRIPT_LOADER } from './support/run-suite.ts';
import { answers } from '../src/run/mock/prism.ts';
import { temporaryDir } from './support/temporary.ts';
import { watchProcessTree } from './support/process-tree.ts';
import { YOUNG_GENERATION_FLAG } from '../src/base/young-generation.ts';

const ROOT = join(import.meta.dirname, '..');

/** PIDs of Prism mock processes serving this repository's spec. */
function prismProcesses(): number[] {
  const lines = execFileSync('ps', ['-eo', 'pid=,args='], { encoding: 'utf8' }).split('\n');
  return lines
    .filter(
      (line) => line.includes('prism-cli') && line.includes(' mock ') && line.includes(join(ROOT, 'openapi')),
    )
    .map((line) => Number(line.trim().split(/\s+/)[0]));
}

/** Bounded wait for a condition that another process makes true. */
async function eventually(condition: () => Promise<boolean>, what: string, limitMs = 20_000): Promise<void> {
  const deadline = Date.now() + limitMs;
  while (!(await condition())) {
    assert.ok(Date.now() < deadline, `timed out waiting until ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The embedded mock's address, from the environment of a process of the run with this report directory. */
function mockUrlOfRun(reportDir: string): string | undefined {
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    let environment: string[];
    try {
      environment = readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');
    } catch {
      continue;
    }
    if (!environment.includes(`PIX_REPORT_DIR=${reportDir}`)) continue;
    const url = environment.find((entry) => entry.startsWith('PIX_MOCK_URL='))?.slice('PIX_MOCK_URL='.length);
    if (url !== undefined) return url;
  }
  return undefined;
}

function occupiedPort(): Promise<{ server: Server; port: number }> {
  return new Promise((resolve) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      resolve({ server, port: typeof address === 'object' && address !== null ? address.port : 0 });
    });
  });
}

describe('runs against the embedded mock', { concurrency: 1 }, () => {
  it('ends INCOMPLETE with exit 0, no FAILED and no WARNING, writes only its reports, and leaves no Prism behind', async () => {
    const before = prismProcesses();
    const reportDir = join(temporaryDir('pix-run-'), 'reports');
    const tree = watchProcessTree(`PIX_REPORT_DIR=${reportDir}`);
    const run = await runSuite({ PIX_REPORT_DIR: reportDir });
    tree.stop();
    // First, so that a run that failed says why rather than which of its processes are missing.
    assert.equal(run.code, 0, run.stdout.slice(-2000));
    // Playwright's runner and Prism's thread live in pix-certify's process: the tree is it and one worker.
    const nodes = tree.commands.filter((command) => /^\S*node /.test(command));
    assert.equal(
      nodes.length,
      2,
      `pix-certify and one Playwright worker, seen in ${tree.samples} samples: ${tree.commands.join('; ')}`,
    );
    // The young generation's bound reaches the worker as it runs, and npm run certify's own process.
    const worker = nodes.find((command) => command.includes('workerProcessEntry')) ?? '';
    assert.ok(worker.split(' ').includes(YOUNG_GENERATION_FLAG), worker);
    const scripts = (
      JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }
    ).scripts;
    assert.ok(scripts.certify?.split(' ').includes(YOUNG_GENERATION_FLAG), scripts.certify);
    assert.deepEqual(run.idsWith('FAILED'), []);
    // The mock answers as the document reads (a missing key 403, §5.4): no WARNING describes only it.
    assert.deepEqual(run.idsWith('WARNING'), []);
    // Playwright's output directory is elsewhere: the report directory holds the reports and the ledger only.
    assert.deepEqual(readdirSync(run.reportDir).sort(), [
      'certification.html',
      'certification.json',
      'junit.xml',
      'ledger.jsonl',
      'summary.md',
    ]);
    assert.match(run.stdout, /^Verdict: INCOMPLETE$/m);
    assert.match(
      run.stdout.replace(/\s+/g, ' '),
      /A run against the embedded mock certifies nothing about a provider/,
    );
    assert.deepEqual(
      prismProcesses().filter((pid) => !before.includes(pid)),
      [],
    );
  });

  it('leaves no Prism behind when the run fails to set up (webhook port taken)', async () => {
    const { server, port } = await occupiedPort();
    try {
      const before = prismProcesses();
      const run = await runSuite({ PIX_WEBHOOK_PORT: String(port) });
      assert.equal(run.code, 2, run.stdout.slice(-2000));
      assert.deepEqual(
        prismProcesses().filter((pid) => !before.includes(pid)),
        [],
      );
    } finally {
      server.close();
    }
  });

  for (const signal of ['SIGINT', 'SIGKILL'] as const) {
    it(`leaves no mock listening when the suite is stopped with ${signal}`, async () => {
      const before = prismProcesses();
      const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('PIX_')));
      const reportDir = temporaryDir(`pix-lifecycle-${signal}-`);
      const child = spawn(
        process.execPath,
        ['--import', TYPESCRIPT_LOADER, join(ROOT, 'bin', 'certify.ts')],
        {
          cwd: ROOT,
          env: { ...env, PIX_REPORT_DIR: reportDir },
          stdio: 'ignore',
          detached: true,
        },
      );
      const exited = new Promise((resolve) => child.once('exit', resolve));
      const pid = child.pid ?? 0;
      // The mock is served from the suite's own process: its address is in the run state Playwright got.
      let url: string | undefined;
      const answering = async (): Promise<boolean> => {
        url ??= mockUrlOfRun(reportDir);
        return url !== undefined && (await answers(url));
      };
      await eventually(answering, 'the mock answers');
      // SIGINT goes to the whole process group, as Ctrl-C in a terminal does; SIGKILL only to the suite.
      if (signal === 'SIGINT') process.kill(-pid, 'SIGINT');
      else process.kill(pid, 'SIGKILL');
      await eventually(async () => !(await answering()), 'no mock is left listening');
      assert.deepEqual(
        prismProcesses().filter((p) => !before.includes(p)),
        [],
        'no Prism process of its own',
      );
      await exited;
      try {
        process.kill(-pid, 'SIGKILL');
      } catch {
        // The whole group is already gone.
      }
    });
  }
});
