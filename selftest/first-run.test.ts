/**
 * What a newcomer meets on a first run, held in place: the plan says where webhooks go and names a
 * variable this configuration ignores; a mock run's plan names no amount or payee after "nothing can
 * move money".
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { loadConfig, reportDirOf } from '../src/config/config.ts';
import { reportDirProblem } from '../src/run/report-dir.ts';
import { summariseLedger } from '../src/report/withdrawals.ts';
import { temporaryDir } from './support/temporary.ts';
import { TYPESCRIPT_LOADER } from './support/run-suite.ts';
import { certification } from './support/certification.ts';
import { renderConsole } from '../reporters/certification/console.ts';
import { describePlan, planFor } from '../src/run/plan.ts';
import { aboutDuration } from '../src/run/lifetime.ts';

const LIVE = {
  PIX_BASE_URL: 'https://sandbox.provider.example',
  PIX_CLIENT_ID: 'client-id',
  PIX_CLIENT_SECRET: 'client-secret-value',
  PIX_CERT_CLIENT: 'Y2VydA==',
  PIX_ALLOW_PAYOUTS: '1',
  PIX_PAYEE_KEY_TYPE: 'EVP',
  PIX_PAYEE_KEY: '123e4567-e89b-12d3-a456-426614174000',
  PIX_PAYEE_DOCUMENT: '52998224725',
  PIX_PAYEE_NAME: 'Payee',
};

const planOf = (env: Record<string, string>): string => {
  const config = loadConfig(env);
  return describePlan(config, planFor(config));
};

describe('the payout plan a run prints first', () => {
  it('against the mock, names no amount and no payee after "nothing can move money"', () => {
    const plan = planOf({});
    assert.match(plan, /nothing can move money/);
    assert.doesNotMatch(plan, /BRL|EVP|\*\*\*/);
  });

  it('live, says where the webhooks are received', () => {
    assert.match(planOf(LIVE), /^Webhooks: received by the suite's own receiver at its bound address on this machine \(PIX_WEBHOOK_HOST 127\.0\.0\.1, PIX_WEBHOOK_PORT any free port\), which only a provider on this machine reaches$/m);
    assert.match(planOf({ ...LIVE, PIX_WEBHOOK_PUBLIC_URL: 'https://tunnel.example', PIX_WEBHOOK_PORT: '8080' }), /^Webhooks: received by the suite's own receiver, which the provider reaches at https:\/\/tunnel\.example \(PIX_WEBHOOK_PUBLIC_URL\)$/m);
  }); // prettier-ignore

  it('names PIX_WEBHOOK_PORT as having no effect beside a remote receiver', () => {
    const plan = planOf({
      ...LIVE,
      PIX_WEBHOOK_RECEIVER_URL: 'https://hooks.example',
      PIX_WEBHOOK_RECEIVER_TOKEN: 'x'.repeat(40),
      PIX_WEBHOOK_PORT: '8080',
    });
    assert.match(plan, /^Webhooks: received by the remote receiver at https:\/\/hooks\.example/m);
    assert.match(plan, /^ {2}PIX_WEBHOOK_PORT has no effect here: the remote receiver/m);
    assert.doesNotMatch(plan, /PIX_WEBHOOK_HOST/);
  });
});

describe('the lifetime probe says how long it lasts in a unit that fits', () => {
  it('seconds for a short probe, minutes, then hours', () => {
    assert.deepEqual([20, 119, 600, 7_199, 7_200].map(aboutDuration), [
      '20 s',
      '119 s',
      '10 min',
      '120 min',
      '2.0 h',
    ]);
  });
});

describe('a report directory that lives in a repository or CI', () => {
  const work = temporaryDir('pix-first-run-');
  after(() => rmSync(work, { recursive: true, force: true }));

  it('is accepted with .gitkeep, .gitignore, a README and the lifetime and client directories of other commands', () => {
    const dir = join(work, 'reports');
    mkdirSync(join(dir, 'lifetime-mhx1run0a1b'), { recursive: true });
    mkdirSync(join(dir, 'client'));
    for (const name of ['.gitkeep', '.gitignore', 'README.md', 'certification.json', 'ledger.jsonl'])
      writeFileSync(join(dir, name), '');
    assert.equal(reportDirProblem(dir), undefined);
    writeFileSync(join(dir, 'thesis.tex'), '');
    assert.match(reportDirProblem(dir) ?? '', /holds files this suite did not write \(thesis\.tex\)/);
  });

  it('refuses a .gitkeep that is a directory, or a client that is a file', () => {
    const dir = join(work, 'odd');
    mkdirSync(join(dir, '.gitkeep'), { recursive: true });
    writeFileSync(join(dir, 'client'), '');
    assert.match(reportDirProblem(dir) ?? '', /\((\.gitkeep, client|client, \.gitkeep)\)/);
  });

  it('keeps every run apart with {runId} in PIX_REPORT_DIR', () => {
    assert.equal(
      reportDirOf('reports/{runId}', () => 'mhx1run'),
      'reports/mhx1run',
    );
    assert.equal(
      reportDirOf('reports', () => assert.fail('no run id is decided for a plain directory')),
      'reports',
    );
    assert.match(loadConfig({ PIX_REPORT_DIR: join(work, 'runs', '{runId}') }).reportDir, /runs\/[0-9a-z]+$/);
  });

  it("counts in a run's money line only its own lines of a ledger that two runs share", () => {
    const line = (runId: string, type: string, code: string, extra: object = {}): string =>
      JSON.stringify({ runId, type, code, ...extra });
    const ledger = [
      line('first', 'intent', 'a'),
      line('first', 'outcome', 'a', { outcome: 'accepted', status: 201 }),
      line('second', 'intent', 'b'),
      line('second', 'outcome', 'b', { outcome: 'refused', status: 400 }),
      line('first', 'intent', 'c'),
      line('first', 'outcome', 'c', { outcome: 'accepted', status: 201 }),
    ].join('\n');
    const second = summariseLedger(ledger, 'second', 'reports/ledger.jsonl');
    assert.equal(second?.sent, 1);
    assert.equal(second.outcomes.refused, 1);
    assert.equal(second.outcomes.accepted, 0);
  });
});

describe("the sandbox's copy-paste line", () => {
  it('runs the certification with PIX_CERT_FILE, the file the README uses, holding the public key', async () => {
    const child = spawn(process.execPath, ['--import', TYPESCRIPT_LOADER, join(import.meta.dirname, '..', 'bin', 'sandbox.ts')], {
      env: { ...process.env, PIX_SANDBOX_PORT: '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    try {
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no copy-paste line within 30 s: ${output}`)), 30_000);
        child.stdout.on('data', (chunk: Buffer) => {
          output += chunk.toString('utf8');
          if (!/^ {2}PIX_BASE_URL=.*\n/m.test(output)) return;
          clearTimeout(timer);
          resolve();
        });
        child.once('exit', (code) => reject(new Error(`the sandbox exited with ${String(code)}: ${output}`)));
      });
    } finally {
      child.kill('SIGTERM');
    }
    const line = /^ {2}(PIX_BASE_URL=.*)$/m.exec(output)?.[1] ?? '';
    assert.match(line, / npm run certify$/);
    assert.doesNotMatch(line, /PIX_CERT_CLIENT/);
    const certFile = / PIX_CERT_FILE=(\S+) /.exec(line)?.[1] ?? '';
    assert.ok(existsSync(certFile), line);
    assert.match(readFileSync(certFile, 'utf8'), /^-----BEGIN PUBLIC KEY-----/);
  }); // prettier-ignore
});

describe('the console says what happened', () => {
  it('where webhooks were received, and what the retry and lifetime probes and the revocation found', () => {
    const base = certification({ checks: { 'TOKEN-SURVIVES-NEWER-TOKEN': 'PASSED' } });
    const report = {
      ...base,
      run: { ...base.run, options: { webhookCollection: 'the remote receiver at https://hooks.example' } },
      observations: [
        { topic: 'webhook.retry', clause: '§6 (not shown)', value: { retried: true }, note: 'retried after 1 s, 2 attempts within 60 s' },
        { topic: 'token.lifetime-probe', clause: '§5.3', value: { accepted: true }, note: 'a token kept apart was accepted at 20 s' },
      ],
    };
    const paths = { html: 'r/certification.html', json: 'r/certification.json', markdown: 'r/summary.md', junit: 'r/junit.xml' };
    const text = renderConsole(report, paths, { width: 200, colour: false });
    assert.match(text, /^Webhooks: the remote receiver at https:\/\/hooks\.example$/m);
    assert.match(text, /^Retry probe: retried after 1 s, 2 attempts within 60 s$/m);
    assert.match(text, /^Lifetime probe: a token kept apart was accepted at 20 s$/m);
    assert.match(text, /^Revocation: a token still worked after a newer one was issued$/m);
  }); // prettier-ignore
});
