/**
 * pix-certify client end to end, on examples/integrator: the correct app gets no FAILED and no WARNING
 * (INCOMPLETE names only what would exercise the rest), and no secret of the namespace reaches an
 * artifact; each fault of the client fault matrix (INTEGRATOR_FAULT) gets exactly its check's band,
 * as the provider matrix does (selftest/matrix.test.ts); `--handler <url>` certifies a handler alone.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import type { Certification } from '../../src/report/model.ts';
import { CODE_ROOT } from '../../src/base/paths.ts';

const CLIENT = join(CODE_ROOT, 'bin', 'client.ts');
const EXAMPLE_TESTS = join(CODE_ROOT, 'examples', 'integrator', 'test');
const EXAMPLE_COMMAND = ['node', '--test', '--test-concurrency=1', EXAMPLE_TESTS];
/** Runs of the matrix at once: each mostly waits on timeouts of its own. */
const PARALLEL = 3;

interface Band {
  readonly failed?: readonly string[];
  readonly warned?: readonly string[];
}

/** Each fault of the example and exactly what it must be found as. */
const MATRIX: Readonly<Record<string, Band>> = {
  'no-bearer': { failed: ['CLIENT-WITHDRAW-BEARER'] },
  'no-accept-token': { failed: ['CLIENT-TOKEN-ACCEPT'] },
  'no-accept': { failed: ['CLIENT-WITHDRAW-ACCEPT'] },
  'no-client-secret': { failed: ['CLIENT-WITHDRAW-CREDENTIALS'] },
  'private-key-cert': { failed: ['CLIENT-TOKEN-CERT-CLIENT'] },
  'cert-not-base64': { failed: ['CLIENT-TOKEN-CERT-CLIENT'] },
  'postbackurl-case': { failed: ['CLIENT-BODY-FIELD-NAMES'] },
  'amount-string': { failed: ['CLIENT-BODY-TYPES'] },
  'check-code-string': { failed: ['CLIENT-BODY-TYPES'] },
  'postback-relative': { failed: ['CLIENT-BODY-POSTBACK'] },
  'body-form': { failed: ['CLIENT-BODY-JSON'] },
  'wrong-path': { failed: ['CLIENT-OPERATIONS'] },
  'no-document': { warned: ['CLIENT-BODY-FIELDS'] },
  'token-per-withdrawal': { warned: ['CLIENT-TOKEN-REUSED'] },
  'new-code-after-5xx': { warned: ['CLIENT-UNKNOWN-OUTCOME'] },
  'resend-without-check-code': { warned: ['CLIENT-UNKNOWN-OUTCOME'] },
  'ignore-retry-after': { warned: ['CLIENT-AFTER-429'] },
  'renew-loop': { warned: ['CLIENT-AFTER-401'] },
  'handler-500': { warned: ['HANDLER-VALID-2XX'] },
  'handler-slow': { warned: ['HANDLER-VALID-2XX'] },
  'handler-500-on-duplicate': { warned: ['HANDLER-DUPLICATE-2XX'] },
  'handler-409-out-of-order': { warned: ['HANDLER-OUT-OF-ORDER-2XX'] },
  'handler-strict-fields': { warned: ['HANDLER-EXTRA-FIELDS-2XX'] },
  'handler-500-on-malformed': { warned: ['HANDLER-MALFORMED-4XX'] },
  'handler-crash-on-malformed': { warned: ['HANDLER-MALFORMED-4XX'] },
};

interface Run {
  readonly code: number | null;
  readonly output: string;
  readonly reportDir: string;
}

/** This process's environment without node:test's own marker, under which the example's node --test would not run its tests. */
const OUTSIDE_TESTS = Object.fromEntries(
  Object.entries(process.env).filter(([name]) => name !== 'NODE_TEST_CONTEXT'),
);

function certifyClient(args: readonly string[], env: Record<string, string>): Promise<Run> {
  const reportDir = mkdtempSync(join(tmpdir(), 'pix-client-matrix-'));
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', CLIENT, ...args], {
      cwd: CODE_ROOT,
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

const certificationOf = (run: Run): Certification =>
  JSON.parse(readFileSync(join(run.reportDir, 'client', 'certification.json'), 'utf8')) as Certification;

const idsWith = (report: Certification, verdict: string): string[] =>
  report.checks
    .filter((c) => c.verdict === verdict)
    .map((c) => c.id)
    .sort();

test('the correct integrator app: no FAILED, no WARNING, exit 0, no secret of the namespace in any artifact', async () => {
  const secretDir = mkdtempSync(join(tmpdir(), 'pix-client-secret-'));
  const secretFile = join(secretDir, 'secret');
  const run = await certifyClient(['--', 'sh', '-c', `printf %s "$PIX_CLIENT_SECRET" > ${secretFile} && exec "$@"`, 'sh', ...EXAMPLE_COMMAND], {});
  try {
    const report = certificationOf(run);
    assert.deepEqual(idsWith(report, 'FAILED'), [], run.output);
    assert.deepEqual(idsWith(report, 'WARNING'), [], run.output);
    assert.ok(['PASSED', 'INCOMPLETE'].includes(report.verdict), report.verdict);
    for (const check of report.checks.filter((c) => c.verdict === 'SKIPPED'))
      assert.match(check.evidence?.[0]?.reason ?? '', /would exercise it|HANDLER-VALID-2XX/, check.id);
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
  const faults = Object.keys(MATRIX);
  assert.ok(faults.filter((f) => !f.startsWith('handler-')).length >= 12);
  assert.ok(faults.filter((f) => f.startsWith('handler-')).length >= 5);
  const problems: string[] = [];
  const queue = [...faults];
  const worker = async (): Promise<void> => {
    for (let fault = queue.shift(); fault !== undefined; fault = queue.shift()) {
      const run = await certifyClient(['--', ...EXAMPLE_COMMAND], { INTEGRATOR_FAULT: fault });
      try {
        const report = certificationOf(run);
        const band = MATRIX[fault] ?? {};
        const failed = idsWith(report, 'FAILED');
        const warned = idsWith(report, 'WARNING');
        if (JSON.stringify(failed) !== JSON.stringify([...(band.failed ?? [])].sort()) || JSON.stringify(warned) !== JSON.stringify([...(band.warned ?? [])].sort()))
          problems.push(`${fault}: FAILED ${failed.join(' ') || '-'}, WARNING ${warned.join(' ') || '-'}`);
        const exit = (band.failed ?? []).length > 0 ? 1 : 0;
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

test('--handler <url>: a correct handler PASSES; one that answers 500 to a duplicate does not', async () => {
  for (const [duplicate500, verdict] of [
    [false, 'PASSED'],
    [true, 'WARNING'],
  ] as const) {
    const handler = await handlerServer(duplicate500);
    const run = await certifyClient(['--handler', handler.url], {});
    try {
      const report = certificationOf(run);
      assert.equal(report.verdict, verdict, run.output);
      assert.deepEqual(idsWith(report, 'WARNING'), duplicate500 ? ['HANDLER-DUPLICATE-2XX'] : []);
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
