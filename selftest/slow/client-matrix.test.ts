/**
 * pix-certify client end to end, on examples/integrator: the correct app is PASSED (exit 0), on this
 * machine's Node and with its own `npm test` on Node 24, and no secret of the namespace reaches an
 * artifact; each fault of the client fault matrix (INTEGRATOR_FAULT, declared with its band in
 * selftest/support/integrator-faults.ts) gets exactly its check's band and its exit code (a finding
 * that can cost money exits 1 whatever its level), as the provider matrix does
 * (selftest/matrix.test.ts); `--handler <url>` certifies a handler alone, in a directory of its own.
 * The hostile client: a command that forges the signed report from a child it leaves running, dumps
 * its environment, floods, never stops, or sends nothing.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import type { Certification } from '../../src/report/model.ts';
import { CODE_ROOT } from '../../src/base/paths.ts';
import { catalogue } from '../../src/checks/catalogue.ts';
import { fingerprintOf } from '../../src/secrets/signing.ts';
import { nodeReleases } from '../support/installed-package.ts';
import { INTEGRATOR_FAULTS } from '../support/integrator-faults.ts';
import { alive } from '../support/process-alive.ts';

const CLIENT = join(CODE_ROOT, 'bin', 'client.ts');
const EXAMPLE = join(CODE_ROOT, 'examples', 'integrator');
const EXAMPLE_TESTS = join(EXAMPLE, 'test', 'withdrawals.test.js');
const EXAMPLE_COMMAND = ['node', '--test', '--test-concurrency=1', EXAMPLE_TESTS];
/** The checks whose finding fails the gate whatever its level. */
const MONEY = new Set(
  catalogue('client')
    .filter((c) => c.money !== undefined)
    .map((c) => c.id),
);
/** Runs of the matrix at once: each mostly waits on timeouts of its own. */
const PARALLEL = 3;

interface Run {
  readonly code: number | null;
  readonly output: string;
  readonly reportDir: string;
}

/** This process's environment without node:test's own marker, under which the example's node --test would not run its tests. */
const OUTSIDE_TESTS = Object.fromEntries(
  Object.entries(process.env).filter(([name]) => name !== 'NODE_TEST_CONTEXT'),
);

function certifyClient(args: readonly string[], env: Record<string, string>, cwd = CODE_ROOT): Promise<Run> {
  const reportDir = mkdtempSync(join(tmpdir(), 'pix-client-matrix-'));
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', CLIENT, ...args], {
      cwd,
      env: {
        ...OUTSIDE_TESTS,
        PIX_REPORT_DIR: reportDir,
        PIX_CLIENT_TIMEOUT_S: '120',
        NO_COLOR: '1',
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('exit', (code) => resolve({ code, output, reportDir }));
  });
}

const certificationOf = (run: Run, subject: 'client' | 'handler' = 'client'): Certification =>
  JSON.parse(readFileSync(join(run.reportDir, subject, 'certification.json'), 'utf8')) as Certification;

const idsWith = (report: Certification, verdict: string): string[] =>
  report.checks
    .filter((c) => c.verdict === verdict)
    .map((c) => c.id)
    .sort();

test('the correct integrator app: PASSED, exit 0, no secret of the namespace in any artifact', async () => {
  const secretDir = mkdtempSync(join(tmpdir(), 'pix-client-secret-'));
  const secretFile = join(secretDir, 'secret');
  const run = await certifyClient(['--', 'sh', '-c', `printf %s "$PIX_CLIENT_SECRET" > ${secretFile} && exec "$@"`, 'sh', ...EXAMPLE_COMMAND], {});
  try {
    const report = certificationOf(run);
    assert.deepEqual(idsWith(report, 'FAILED'), [], run.output);
    assert.deepEqual(idsWith(report, 'WARNING'), [], run.output);
    // Only the checks no test of the default reading can exercise (slow answers, a PROCESSING webhook: --readings judges them).
    assert.deepEqual(idsWith(report, 'SKIPPED'), ['CLIENT-PROCESSING-NOT-FINAL', 'CLIENT-SLOW-ANSWER'], run.output);
    for (const id of ['CLIENT-PROCESSING-NOT-FINAL', 'CLIENT-SLOW-ANSWER']) assert.equal(report.checks.find((c) => c.id === id)?.notJudged?.cause, 'reading', id);
    assert.equal(report.verdict, 'PASSED');
    assert.equal(run.code, 0, run.output);
    const secret = readFileSync(secretFile, 'utf8');
    assert.ok(secret.length >= 16, 'the command was given the namespace secret');
    assert.ok(!run.output.includes(secret), 'the console never shows the secret');
    for (const name of readdirSync(join(run.reportDir, 'client')))
      assert.ok(!readFileSync(join(run.reportDir, 'client', name), 'utf8').includes(secret), name);
  } finally {
    rmSync(secretDir, { recursive: true, force: true });
    rmSync(run.reportDir, { recursive: true, force: true });
  }
}); // prettier-ignore

test('each fault of the client fault matrix gets exactly its check band', async () => {
  const faults = Object.keys(INTEGRATOR_FAULTS);
  assert.ok(faults.filter((f) => !f.startsWith('handler-')).length >= 12);
  assert.ok(faults.filter((f) => f.startsWith('handler-')).length >= 5);
  const problems: string[] = [];
  const queue = [...faults];
  const worker = async (): Promise<void> => {
    for (let fault = queue.shift(); fault !== undefined; fault = queue.shift()) {
      // The band's exit alone: a fault that also leaves checks unexercised would exit 1 for that (tested below).
      const run = await certifyClient(['--', ...EXAMPLE_COMMAND], { INTEGRATOR_FAULT: fault, PIX_REQUIRE_COMPLETE: '0' });
      try {
        const report = certificationOf(run);
        const band = INTEGRATOR_FAULTS[fault] ?? {};
        const failed = idsWith(report, 'FAILED');
        const warned = idsWith(report, 'WARNING');
        if (JSON.stringify(failed) !== JSON.stringify([...(band.failed ?? [])].sort()) || JSON.stringify(warned) !== JSON.stringify([...(band.warned ?? [])].sort()))
          problems.push(`${fault}: FAILED ${failed.join(' ') || '-'}, WARNING ${warned.join(' ') || '-'}`);
        const exit = (band.failed ?? []).length > 0 || (band.warned ?? []).some((id) => MONEY.has(id)) ? 1 : 0;
        if (run.code !== exit) problems.push(`${fault}: exit ${String(run.code)}, expected ${exit}`);
      } catch (error) {
        problems.push(`${fault}: ${String(error)}\n${run.output.slice(-2000)}`);
      } finally {
        rmSync(run.reportDir, { recursive: true, force: true });
      }
    }
  };
  await Promise.all(Array.from({ length: PARALLEL }, worker));
  assert.deepEqual(problems, []);
}); // prettier-ignore

/** The checks of one reading's column of a matrix report with that verdict. */
const cellsWith = (report: Certification, reading: string, verdict: string): string[] =>
  report.checks
    .filter((c) => c.readings?.find((cell) => cell.reading === reading)?.verdict === verdict)
    .map((c) => c.id)
    .sort();

test('--readings all: the correct app PASSES in every column of one report, exit 0', async () => {
  const run = await certifyClient(['--readings', 'all', '--', ...EXAMPLE_COMMAND], {});
  try {
    const report = certificationOf(run);
    const columns = report.readings ?? [];
    assert.ok(columns.length >= 9, `${columns.length} readings`);
    assert.deepEqual(columns.filter((c) => c.verdict !== 'PASSED').map((c) => `${c.name}: ${c.verdict}`), [], run.output.slice(-3000));
    assert.equal(report.verdict, 'PASSED');
    assert.equal(run.code, 0, run.output.slice(-2000));
    assert.deepEqual(readdirSync(run.reportDir), ['client'], 'one report');
  } finally {
    rmSync(run.reportDir, { recursive: true, force: true });
  }
}); // prettier-ignore

test('--readings all: each fault a reading shows gets its band in that column and its plain band in every other', async () => {
  const faults = Object.entries(INTEGRATOR_FAULTS).filter(([, band]) => band.readings !== undefined);
  assert.ok(faults.length >= 4);
  const problems: string[] = [];
  const queue = [...faults];
  const worker = async (): Promise<void> => {
    for (let entry = queue.shift(); entry !== undefined; entry = queue.shift()) {
      const [fault, band] = entry;
      const run = await certifyClient(['--readings', 'all', '--', ...EXAMPLE_COMMAND], { INTEGRATOR_FAULT: fault, PIX_REQUIRE_COMPLETE: '0' });
      try {
        const report = certificationOf(run);
        for (const { name } of report.readings ?? []) {
          const want = band.readings?.[name] ?? band;
          const failed = cellsWith(report, name, 'FAILED');
          const warned = cellsWith(report, name, 'WARNING');
          if (JSON.stringify(failed) !== JSON.stringify([...(want.failed ?? [])].sort()) || JSON.stringify(warned) !== JSON.stringify([...(want.warned ?? [])].sort()))
            problems.push(`${fault} in ${name}: FAILED ${failed.join(' ') || '-'}, WARNING ${warned.join(' ') || '-'}`);
        }
      } catch (error) {
        problems.push(`${fault}: ${String(error)}\n${run.output.slice(-2000)}`);
      } finally {
        rmSync(run.reportDir, { recursive: true, force: true });
      }
    }
  };
  await Promise.all(Array.from({ length: 2 }, worker));
  assert.deepEqual(problems, []);
}); // prettier-ignore

/** A handler server for --handler: 400 to a body it cannot read, 200 otherwise; `duplicate500` answers a repeat 500. */
async function handlerServer(duplicate500: boolean): Promise<{ url: string; close: () => void }> {
  const { createServer } = await import('node:http');
  const seen = new Set<string>();
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      let payload: { code?: string; status?: string };
      try {
        payload = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { code?: string; status?: string };
      } catch {
        response.statusCode = 400;
        response.end();
        return;
      }
      const key = `${payload.code ?? ''} ${payload.status ?? ''}`;
      response.statusCode = duplicate500 && seen.has(key) ? 500 : 200;
      seen.add(key);
      response.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  return { url: `http://127.0.0.1:${port}/hook`, close: () => { server.closeAllConnections(); server.close(); } };
} // prettier-ignore

test('--handler <url>: a correct handler PASSES; one that answers 500 to a duplicate does not; the last client report stays', async () => {
  for (const [duplicate500, verdict] of [
    [false, 'PASSED'],
    [true, 'WARNING'],
  ] as const) {
    const handler = await handlerServer(duplicate500);
    const run = await certifyClient(['--handler', handler.url], {});
    try {
      const report = certificationOf(run, 'handler');
      assert.equal(report.verdict, verdict, run.output);
      assert.deepEqual(idsWith(report, 'WARNING'), duplicate500 ? ['HANDLER-DUPLICATE-2XX'] : []);
      assert.equal(existsSync(join(run.reportDir, 'client')), false, 'the client report is not replaced');
    } finally {
      handler.close();
      rmSync(run.reportDir, { recursive: true, force: true });
    }
  }
});

test('a client that never stops is stopped at --timeout; one that sends over 10,000 requests is judged within the journal bound', async () => {
  const forever = `setInterval(() => fetch(process.env.PIX_BASE_URL + '/auth/token', { method: 'POST' }).catch(() => {}), 5)`;
  const stopped = await certifyClient(['--timeout', '2', '--', process.execPath, '-e', forever], {});
  try {
    const report = certificationOf(stopped);
    const command = report.observations.find((o) => o.topic === 'client.command');
    assert.deepEqual((command?.value as { timedOut?: boolean } | undefined)?.timedOut, true, stopped.output);
    assert.notEqual(report.verdict, 'PASSED');
  } finally {
    rmSync(stopped.reportDir, { recursive: true, force: true });
  }
  const flood = `const u = process.env.PIX_BASE_URL + '/auth/token'; let left = 10500; const one = async () => { while (left-- > 0) await fetch(u, { method: 'POST' }).then((r) => r.arrayBuffer()).catch(() => {}); }; await Promise.all(Array.from({ length: 16 }, one));`;
  const flooded = await certifyClient(['--', process.execPath, '--input-type=module', '-e', flood], {});
  try {
    const report = certificationOf(flooded);
    const dropped = report.observations.find((o) => o.topic === 'client.journal.dropped');
    assert.ok(dropped !== undefined, flooded.output.slice(-2000));
    assert.deepEqual(idsWith(report, 'FAILED'), ['CLIENT-TOKEN-ACCEPT', 'CLIENT-TOKEN-CERT-CLIENT', 'CLIENT-TOKEN-CLIENT-ID']);
    const accept = report.checks.find((c) => c.id === 'CLIENT-TOKEN-ACCEPT');
    assert.ok((accept?.evidenceCount ?? 0) <= 10_000, 'judged within the journal bound');
  } finally {
    rmSync(flooded.reportDir, { recursive: true, force: true });
  }
}); // prettier-ignore

test('a command that prints its secret and the token it was issued, split across two writes: the console shows their masks, not them', async () => {
  const script = `const answer = await fetch(process.env.PIX_BASE_URL + '/auth/token', { method: 'POST', headers: { Accept: 'application/json', client_id: process.env.PIX_CLIENT_ID, cert_client: process.env.PIX_CERT_CLIENT } });
const { access_token: token } = await answer.json();
(await import('node:fs')).writeFileSync(process.env.DUMP, JSON.stringify([token, process.env.PIX_CLIENT_SECRET]));
const wait = () => new Promise((r) => setTimeout(r, 20));
process.stdout.write('token ' + token.slice(0, 30));
await wait();
process.stdout.write(token.slice(30) + '\\n');
process.stderr.write('secret ' + process.env.PIX_CLIENT_SECRET + '\\n');
process.stdout.write('token again ' + token + ' secret ' + process.env.PIX_CLIENT_SECRET + '\\n');`;
  const dump = join(mkdtempSync(join(tmpdir(), 'pix-client-console-')), 'printed.json');
  const run = await certifyClient(['--', process.execPath, '--input-type=module', '-e', script], {
    DUMP: dump,
  });
  try {
    const printed = JSON.parse(readFileSync(dump, 'utf8')) as string[];
    assert.equal(printed.length, 2);
    for (const value of printed)
      assert.ok(
        value.length === 64 && !run.output.includes(value),
        'neither the token nor the secret is shown',
      );
    assert.match(run.output, /^token \*\*\*\(64 chars, …[0-9a-f]{4}\)$/m, run.output);
    assert.match(run.output, /^secret \*\*\*\(64 chars\)$/m, run.output);
    assert.match(
      run.output,
      /^token again \*\*\*\(64 chars, …[0-9a-f]{4}\) secret \*\*\*\(64 chars\)$/m,
      run.output,
    );
  } finally {
    rmSync(dirname(dump), { recursive: true, force: true });
    rmSync(run.reportDir, { recursive: true, force: true });
  }
});

/** The hostile command: dumps its environment, sends one token request without Accept, and leaves a child in a session of its own that waits for the report to re-sign it PASSED. */
const FORGER = `
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
writeFileSync(process.env.ENV_DUMP, JSON.stringify(process.env));
await fetch(process.env.PIX_BASE_URL + '/auth/token', { method: 'POST', headers: { client_id: process.env.PIX_CLIENT_ID, cert_client: process.env.PIX_CERT_CLIENT } });
spawn(process.execPath, ['--import', 'tsx', process.env.RESIGNER, 'forge-the-report'], { detached: true, stdio: 'ignore' }).unref();
`;

/** The child: waits (bounded) for certification.json, then rewrites it PASSED and signs it with the key whose path it learnt. */
const RESIGNER = `
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeSealedCertification } from ${JSON.stringify(join(CODE_ROOT, 'src', 'report', 'integrity.ts'))};
import { readSigningKey } from ${JSON.stringify(join(CODE_ROOT, 'src', 'config', 'signing-key.ts'))};
const dir = join(process.env.FORGE_DIR, 'client');
for (let i = 0; i < 2400 && !existsSync(join(dir, 'certification.json')); i++) await new Promise((r) => setTimeout(r, 50));
const report = JSON.parse(readFileSync(join(dir, 'certification.json'), 'utf8'));
await writeSealedCertification(dir, { ...report, verdict: 'PASSED', exitCode: 0 }, readSigningKey(process.env.FORGE_KEY));
`;

test('a command that leaves a child to re-sign the report: the child is ended and named, the signed verdict is the honest one, and the command never had PIX_SIGNING_KEY_FILE', async () => {
  const work = mkdtempSync(join(tmpdir(), 'pix-client-forge-'));
  const keyFile = join(work, 'signing.pem');
  const { privateKey } = generateKeyPairSync('ed25519');
  writeFileSync(keyFile, privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600 });
  const forger = join(work, 'forger.mjs');
  const resigner = join(work, 'resigner.mts');
  writeFileSync(forger, FORGER);
  writeFileSync(resigner, RESIGNER);
  const envDump = join(work, 'env.json');
  const reportDir = mkdtempSync(join(tmpdir(), 'pix-client-forge-reports-'));
  // The attacker knows where the key is (same user): the suite must not give it, and must end the child before it signs.
  const run = await certifyClient(['--', process.execPath, forger], { PIX_REPORT_DIR: reportDir, PIX_SIGNING_KEY_FILE: keyFile, ENV_DUMP: envDump, RESIGNER: resigner, FORGE_DIR: reportDir, FORGE_KEY: keyFile });
  try {
    const env = JSON.parse(readFileSync(envDump, 'utf8')) as Record<string, string>;
    assert.equal(env.PIX_SIGNING_KEY_FILE, undefined, 'the command never gets the signing key');
    assert.equal(env.PIX_REPORT_DIR, undefined, "nor any other of the suite's own variables");
    assert.ok(env.PIX_BASE_URL?.includes('/ns/client-'), 'it gets the namespace');
    const report = JSON.parse(readFileSync(join(reportDir, 'client', 'certification.json'), 'utf8')) as Certification;
    assert.equal(report.verdict, 'FAILED', run.output);
    assert.equal(run.code, 1, run.output);
    const command = report.observations.find((o) => o.topic === 'client.command');
    const leftovers = (command?.value as { leftovers?: { pid: number; command: string }[] } | undefined)?.leftovers ?? [];
    const child = leftovers.find((l) => l.command.includes('forge-the-report'));
    assert.ok(child !== undefined, JSON.stringify(command));
    assert.equal(alive(child.pid), false, 'the child was ended');
    assert.match(run.output, /ended process \d+ the command left running: .*forge-the-report/);
    const fingerprint = fingerprintOf(privateKey);
    const verify = spawnSync(process.execPath, ['--import', 'tsx', join(CODE_ROOT, 'bin', 'verify.ts'), join(reportDir, 'client'), '--fingerprint', fingerprint], { cwd: CODE_ROOT, encoding: 'utf8' });
    assert.equal(verify.status, 0, verify.stdout + verify.stderr);
    assert.equal((JSON.parse(readFileSync(join(reportDir, 'client', 'certification.json'), 'utf8')) as Certification).verdict, 'FAILED');
  } finally {
    rmSync(work, { recursive: true, force: true });
    rmSync(reportDir, { recursive: true, force: true });
    rmSync(run.reportDir, { recursive: true, force: true });
  }
}); // prettier-ignore

test('a run that proves nothing fails: a command that sends no request exits 2 naming it and its exit code; INCOMPLETE exits 1 unless PIX_REQUIRE_COMPLETE=0', async () => {
  const silent = await certifyClient(['--', process.execPath, '-e', 'process.exit(3)'], {});
  try {
    assert.equal(silent.code, 2, silent.output);
    assert.match(silent.output.replace(/\s+/g, ' '), /the command `[^`]*-e process\.exit\(3\)` exited 3, and it sent no request to the simulator/);
    assert.equal(certificationOf(silent).verdict, 'ERROR');
  } finally {
    rmSync(silent.reportDir, { recursive: true, force: true });
  }
  const partial = ['--', 'node', '--test', '--test-name-pattern=two withdrawals', EXAMPLE_TESTS];
  for (const [env, exit] of [[{}, 1], [{ PIX_REQUIRE_COMPLETE: '0' }, 0]] as const) {
    const run = await certifyClient(partial, env);
    try {
      assert.equal(certificationOf(run).verdict, 'INCOMPLETE', run.output);
      assert.equal(run.code, exit, run.output);
    } finally {
      rmSync(run.reportDir, { recursive: true, force: true });
    }
  }
}); // prettier-ignore

test("the example's own npm test, on Node 24 (the reference runtime): PASSED", { timeout: 900_000 }, async () => {
  const { node24 } = await nodeReleases();
  const run = await certifyClient(['--', 'npm', 'test'], { PATH: `${node24}:${process.env.PATH ?? ''}` }, EXAMPLE);
  try {
    assert.equal(certificationOf(run).verdict, 'PASSED', run.output.slice(-3000));
    assert.equal(run.code, 0);
  } finally {
    rmSync(run.reportDir, { recursive: true, force: true });
  }
}); // prettier-ignore
