/**
 * Safety against real environments (payout opt-in, budget, write-ahead ledger, no resend, transport),
 * shown by running the real suite against a provider double that watches what arrives.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { DOUBLE_CREDENTIALS, startProviderDouble, type ProviderDouble } from './support/provider-double.ts';
import { TEST_PAYEE } from './support/live-env.ts';
import { runSuite } from './support/run-suite.ts';
import { budgetProblem, planFor, withdrawalPlan } from '../src/run/plan.ts';
import { loadConfig } from '../src/config/config.ts';
import { loadSpec } from '../src/spec/spec.ts';
import { DEFAULT_RUN_SHAPE } from '../src/checks/family.ts';
import { temporaryDir } from './support/temporary.ts';

/** The complete suite's plan at the default amount of 0.01. */
const PLAN = withdrawalPlan(loadSpec(), 0.01);

function liveAgainst(
  double: ProviderDouble,
  reportDir: string,
  extra: Record<string, string> = {},
): Record<string, string> {
  return {
    PIX_BASE_URL: double.url,
    ...DOUBLE_CREDENTIALS,
    PIX_REPORT_DIR: reportDir,
    PIX_WEBHOOK_TIMEOUT_MS: '300',
    ...extra,
  };
}

describe('safety against a live environment', () => {
  describe('without PIX_ALLOW_PAYOUTS', () => {
    const reportDir = temporaryDir('pix-safety-');
    let double: ProviderDouble;
    before(async () => {
      double = await startProviderDouble({ reportDir });
    });
    after(() => double.close());

    it('sends no withdrawal at all, and says the certification is incomplete', async () => {
      // One worker: what it proves holds for each; the @payout run below has two, sharing one token.
      const run = await runSuite(liveAgainst(double, reportDir), ['--workers=1']);
      assert.deepEqual(double.withdrawals, []);
      assert.ok(double.issuedTokens.length > 0, 'the token checks did run');
      assert.equal(run.verdictOf('PAYMENT-ACCEPTED'), 'SKIPPED');
      assert.equal(run.report?.complete, false);
      // Never PASSED: INCOMPLETE, and a live gate fails closed: exit 1 unless PIX_REQUIRE_COMPLETE=0.
      assert.equal(run.report.verdict, 'INCOMPLETE');
      assert.equal(run.code, 1, run.stderr);
      assert.match(run.stdout, /^Verdict: INCOMPLETE$/m);
      const incomplete = run.report.incomplete as readonly { cause: string; checks: string[] }[];
      assert.deepEqual(
        incomplete.map((i) => i.cause),
        ['payout'],
      );
      // The webhook test stops at its first check; the checks after it are not judged for the same reason.
      assert.ok(incomplete[0]?.checks.includes('WEBHOOK-POST'));
    });
  });

  describe('with PIX_ALLOW_PAYOUTS=1', () => {
    const reportDir = temporaryDir('pix-safety-');
    let double: ProviderDouble;
    before(async () => {
      double = await startProviderDouble({ reportDir });
    });
    after(() => double.close());

    it('refuses to start when the plan exceeds the budget, before any request', async () => {
      const run = await runSuite(liveAgainst(double, reportDir, { ...TEST_PAYEE, PIX_MAX_PAYOUTS: '5' }));
      assert.equal(run.code, 2);
      assert.match(run.stderr, /PIX_MAX_PAYOUTS/);
      assert.equal(double.issuedTokens.length + double.withdrawals.length, 0);
    });

    it('refuses it too when Playwright is started directly, before any request', async () => {
      const env = liveAgainst(double, reportDir, { ...TEST_PAYEE, PIX_MAX_TOTAL: '0.10' });
      const run = await runSuite(env, [], 120_000, 'playwright');
      assert.notEqual(run.code, 0);
      assert.ok(
        (run.stdout + run.stderr).includes(
          `PIX_MAX_TOTAL: the plan may pay out ${planFor(loadConfig(env)).total.toFixed(2)} BRL`,
        ),
        run.stdout + run.stderr,
      );
      assert.equal(double.issuedTokens.length + double.withdrawals.length, 0);
    });

    it('writes each withdrawal to the ledger before the provider receives it', async () => {
      const run = await runSuite(liveAgainst(double, reportDir, TEST_PAYEE), ['--grep', '@payout']);
      assert.notEqual(run.code, 2, run.stderr);
      assert.ok(double.withdrawals.length >= 30, `only ${double.withdrawals.length} withdrawals arrived`);
      assert.deepEqual(double.unledgered, []);
      // The first token issued is the credentials check's (the preflight's request carries none): the
      // workers use it rather than each asking for a token of their own.
      assert.ok(double.bearers.includes(double.issuedTokens[0] ?? '(none issued)'));
      const ledger = readFileSync(join(reportDir, 'ledger.jsonl'), 'utf8');
      const intents = ledger.split('\n').filter((line) => line.includes('"type":"intent"'));
      assert.equal(intents.length, double.withdrawals.length, 'one intent line per withdrawal that arrived');
      for (const secret of [
        DOUBLE_CREDENTIALS.PIX_CLIENT_SECRET,
        DOUBLE_CREDENTIALS.PIX_CERT_CLIENT,
        ...double.issuedTokens,
      ]) {
        assert.ok(!ledger.includes(secret), 'the ledger holds no secret');
      }
      assert.ok(!ledger.includes(TEST_PAYEE.PIX_PAYEE_KEY), 'the payee key is masked');
    });
  });

  describe('a withdrawal that times out', () => {
    const reportDir = temporaryDir('pix-safety-');
    let double: ProviderDouble;
    before(async () => {
      double = await startProviderDouble({ reportDir, hangWithdrawals: true });
    });
    after(() => double.close());

    it("is sent once, recorded as outcome unknown, and the run fails on the environment's silence", async () => {
      const env = liveAgainst(double, reportDir, {
        ...TEST_PAYEE,
        PIX_REQUEST_TIMEOUT_MS: '400',
      });
      const run = await runSuite(env, ['--grep', 'accepts a valid withdrawal']);
      // The run's first withdrawal (global setup's) and the test's: each sent once, neither again.
      assert.equal(double.withdrawals.length, 2);
      // No answer in time is the environment's failure (RESPONSE-COMPLETE), never the suite's.
      assert.equal(run.code, 1, run.stdout);
      assert.equal(run.verdictOf('RESPONSE-COMPLETE'), 'FAILED');
      assert.deepEqual(run.report?.suiteErrors, []);
      assert.ok(!run.stdout.includes('\u001b'), 'the colours of Playwright stay out of a log');
      assert.match(run.stdout.replace(/\s+/g, ' '), /timed out after 400 ms \(PIX_REQUEST_TIMEOUT_MS\)/);
      const outcomes = readFileSync(join(reportDir, 'ledger.jsonl'), 'utf8')
        .split('\n')
        .filter((l) => l.includes('"outcome"'));
      assert.equal(outcomes.length, 2);
      for (const outcome of outcomes) assert.match(outcome, /"outcome":"unknown"/);
    });
  });

  describe('asked to retry failed tests', () => {
    const reportDir = temporaryDir('pix-safety-');
    let double: ProviderDouble;
    before(async () => {
      double = await startProviderDouble({ reportDir, hangWithdrawals: true });
    });
    after(() => double.close());

    it('still sends a withdrawal only once', async () => {
      const env = liveAgainst(double, reportDir, {
        ...TEST_PAYEE,
        PIX_REQUEST_TIMEOUT_MS: '400',
      });
      const run = await runSuite(env, ['--grep', 'accepts a valid withdrawal', '--retries=2']);
      // The run's first withdrawal (global setup's, never retried) and the test's, once each.
      assert.equal(double.withdrawals.length, 2);
      assert.equal(run.code, 1, run.stdout);
      assert.equal(run.verdictOf('RESPONSE-COMPLETE'), 'FAILED');
    });
  });

  describe('transport and preflight', () => {
    it('refuses plain http to another host before sending anything', async () => {
      const run = await runSuite({ PIX_BASE_URL: 'http://pix.example.invalid', ...DOUBLE_CREDENTIALS });
      assert.equal(run.code, 2);
      assert.match(run.stderr, /PIX_BASE_URL: is plain http to pix\.example\.invalid/);
    });

    it('says clearly when the environment cannot be reached', async () => {
      const run = await runSuite({ PIX_BASE_URL: 'http://127.0.0.1:9', ...DOUBLE_CREDENTIALS });
      assert.equal(run.code, 2);
      assert.match(run.stderr, /PIX_BASE_URL: could not connect to 127\.0\.0\.1:9: ECONNREFUSED/);
    });

    it('names the variable of a misconfiguration in one line', async () => {
      const run = await runSuite({ PIX_AMOUNT: '0.001' });
      assert.equal(run.code, 2);
      assert.equal(run.stderr.trim().split('\n').length, 1);
      assert.match(run.stderr, /^pix-certify: PIX_AMOUNT/);
    });
  });

  it('counts the retry probe in the plan, one withdrawal, only when PIX_WEBHOOK_RETRY_WAIT_S turns it on', async () => {
    const probing = withdrawalPlan(loadSpec(), 0.01, { ...DEFAULT_RUN_SHAPE, webhookRetryProbe: true });
    assert.equal(probing.requests, PLAN.requests + 1);
    assert.equal(probing.total, Math.round((PLAN.requests + 1) * 0.01 * 100) / 100);
    const webhookLine = (plan: typeof PLAN): number | undefined =>
      plan.lines.find((line) => line.group === 'webhook')?.requests;
    assert.equal(webhookLine(probing), (webhookLine(PLAN) ?? 0) + 1);
    // The budget holds the probe's withdrawal too: a budget of exactly the plan without it is refused.
    const live = {
      PIX_BASE_URL: 'http://127.0.0.1:9',
      ...DOUBLE_CREDENTIALS,
      ...TEST_PAYEE,
      // The run's first withdrawal, sent live with payouts allowed, is one more.
      PIX_MAX_PAYOUTS: String(PLAN.requests + 1),
    };
    const fits = loadConfig(live);
    assert.equal(budgetProblem(fits, planFor(fits)), undefined);
    const probe = loadConfig({ ...live, PIX_WEBHOOK_RETRY_WAIT_S: '5' });
    assert.match(
      budgetProblem(probe, planFor(probe)) ?? '',
      /^PIX_MAX_PAYOUTS: the plan may make \d+ payouts/,
    );
    const [run, wrong] = await Promise.all([
      runSuite({ PIX_DRY_RUN: '1', PIX_WEBHOOK_RETRY_WAIT_S: '5' }),
      runSuite({ PIX_WEBHOOK_RETRY_WAIT_S: 'soon' }),
    ]);
    assert.equal(run.code, 0, run.stderr);
    assert.ok(run.stdout.includes(`${probing.requests}  withdrawal requests in all`), run.stdout);
    assert.equal(wrong.code, 2);
    assert.match(wrong.stderr.trim(), /^pix-certify: PIX_WEBHOOK_RETRY_WAIT_S: is 'soon'\./);
  });

  it('prints the plan in a dry run and sends nothing', async () => {
    const run = await runSuite({ PIX_DRY_RUN: '1' });
    assert.equal(run.code, 0);
    assert.ok(run.stdout.includes(`${PLAN.requests}  withdrawal requests in all`), run.stdout);
    assert.match(run.stdout, /Listed only: nothing was sent and no report was written/);
  });
});
