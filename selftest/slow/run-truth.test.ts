/**
 * The story a whole run tells, against sandbox readings that conform to the document but behave as
 * real environments do (sandbox/scenarios.ts RUN_SCENARIOS) and two token faults: a rate limit is
 * waited out and every check is judged, the race too when it fits what the provider took in a
 * second; PIX_RATE_LIMIT holds at the provider; a withdrawal answered 504 that was paid is "unknown"
 * in the ledger and reconciled with its PAID webhook; a large webhook is judged whole; an id is found
 * only as a whole value; a token no header can carry is one finding.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startSandbox, type RunningSandbox } from '../../sandbox/server.ts';
import { sandboxEnv } from '../support/live-env.ts';
import { runSuite, type SuiteRun } from '../support/run-suite.ts';
import { temporaryDir } from '../support/temporary.ts';

interface Logged {
  readonly at: number;
  readonly line: string;
}

const flagged = (run: SuiteRun): string[] => [
  ...run.idsWith('FAILED').map((id) => `FAILED ${id}`),
  ...run.idsWith('WARNING').map((id) => `WARNING ${id}`),
];

/** The most requests to one scenario that any second of the sandbox's arrivals holds. */
function busiestSecond(arrivals: readonly Logged[], scenario: string): number {
  const times = arrivals.filter((l) => l.line.startsWith(`/s/${scenario}/`)).map((l) => l.at);
  return Math.max(0, ...times.map((start) => times.filter((t) => t >= start && t < start + 1_000).length));
}

/** The temporary directory of the run the credentials check stops: it must leave none of its own there. */
const STOPPED_RUN_TMPDIR = temporaryDir('pix-stopped-run-');

/** The runs this file judges, each a scenario and the variables that differ from a plain live run. */
const RUNS = {
  rateLimited: ['rate-limited', {}],
  // Lenient alone: its arrivals are counted, so no other run of this file may use it.
  paced: ['lenient', { PIX_RATE_LIMIT: '5', PIX_TOKEN_FIELD: 'token' }],
  paidBehind504: ['paid-behind-504', {}],
  webhookLarge: ['webhook-large', {}],
  idStatus: ['id-status', {}],
  lineBreakToken: ['token-line-break', {}],
  hugeToken: ['token-huge', {}],
  wrongClientId: ['reference', { PIX_CLIENT_ID: 'not-the-registered-client', TMPDIR: STOPPED_RUN_TMPDIR }],
  wrongSecret: ['reference', { PIX_CLIENT_SECRET: 'a-wrong-secret-of-some-length' }],
} as const satisfies Record<string, readonly [string, Readonly<Record<string, string>>]>;

describe('the run tells one true story', () => {
  let sandbox: RunningSandbox;
  const log: Logged[] = [];
  const arrivals: Logged[] = [];
  const runs = new Map<keyof typeof RUNS, SuiteRun>();
  const runOf = (name: keyof typeof RUNS): SuiteRun => {
    const run = runs.get(name);
    assert.ok(run !== undefined, `${name} ran`);
    return run;
  };

  before(async () => {
    sandbox = await startSandbox({
      log: (line) => log.push({ at: Date.now(), line }),
      onArrival: (path) => arrivals.push({ at: Date.now(), line: path }),
    });
    // Two at a time: the machine has two cores, and each run mostly waits on loopback.
    const queue = Object.keys(RUNS) as (keyof typeof RUNS)[];
    const lane = async (): Promise<void> => {
      for (let name = queue.shift(); name !== undefined; name = queue.shift()) {
        const [scenario, extra] = RUNS[name];
        runs.set(name, await runSuite(sandboxEnv(sandbox, scenario, extra)));
      }
    };
    await Promise.all([lane(), lane()]);
  });
  after(() => sandbox.close());

  it('waits out a rate limit and judges every check but a race that did not race, with no FAILED', () => {
    const run = runOf('rateLimited');
    assert.ok(
      log.some((l) => l.line.includes('/s/rate-limited/') && l.line.endsWith('-> 429')),
      'the sandbox did rate-limit this run',
    );
    assert.deepEqual(flagged(run), [], run.stdout);
    // The race leaves in one burst after a quiet window when three fit what the provider took in a
    // second (four here); where none fits, or its copies still did not overlap, it judged nothing and
    // says so (SKIPPED, INCOMPLETE), never passing copies that never overlapped.
    const race = run.report?.checks.find((c) => c.id === 'CHECK-CODE-TRUE-REFUSES-CONCURRENT-DUPLICATE');
    const raced = race?.verdict === 'PASSED';
    if (!raced)
      assert.match(
        run.stdout.replace(/\s+/g, ' '),
        /the copies did not overlap at the provider|no window the environment's rate allows holds the copies/,
      );
    assert.deepEqual(run.idsWith('SKIPPED'), raced ? [] : [race?.id]);
    assert.equal(run.report?.verdict, raced ? 'PASSED' : 'INCOMPLETE', run.stdout);
    assert.equal(run.code, raced ? 0 : 1, run.stderr);
    assert.match(run.stderr, /429 on POST .*: the whole run waits 1 s, as Retry-After asks/);
    // The held-back requests do not meet the limit again at once: the run keeps the pace it learnt.
    assert.match(
      run.stderr,
      /the environment limits its rate: the run now starts one request every \d\.\d\d s/,
    );
  });

  it('keeps every second at the provider within PIX_RATE_LIMIT, and still judges every check', () => {
    const run = runOf('paced');
    assert.equal(run.idsWith('FAILED').length, 0, run.stdout);
    assert.equal(run.report?.complete, true, run.stdout);
    const busiest = busiestSecond(arrivals, 'lenient');
    assert.ok(busiest <= 5 && busiest > 0, `the busiest second held ${busiest} requests`);
  });

  it('records a withdrawal answered 504 but paid as unknown, reconciled with its PAID webhook', () => {
    const run = runOf('paidBehind504');
    assert.deepEqual(flagged(run), ['FAILED PAYMENT-ACCEPTED', 'FAILED RESPONSE-STATUS-DOCUMENTED']);
    const answered504 = log.filter((l) => l.line.includes('/s/paid-behind-504/pix/payment -> 504')).length;
    const ledger = readFileSync(join(run.reportDir, 'ledger.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { type: string; outcome?: string; statuses?: string[] });
    const unknown = ledger.filter((l) => l.type === 'outcome' && l.outcome === 'unknown');
    assert.ok(answered504 > 0);
    assert.equal(unknown.length, answered504, 'every 504 is an unknown outcome, none "refused"');
    assert.equal(
      ledger.filter((l) => l.type === 'webhook' && l.statuses?.includes('PAID')).length,
      answered504,
    );
    const withdrawals = run.report?.withdrawals as { unknown: { webhook: string }[] } | undefined;
    assert.ok(withdrawals?.unknown.every((u) => u.webhook === 'paid'));
    const line = new RegExp(
      `${answered504} with an UNKNOWN outcome \\(${answered504} reported paid by their webhook: `,
    );
    assert.match(run.stdout.replace(/\s+/g, ' '), line);
    assert.match(readFileSync(join(run.reportDir, 'summary.md'), 'utf8').replace(/\s+/g, ' '), line);
  });

  it('judges a large webhook from its whole body, and finds an id only as a whole value', () => {
    const large = runOf('webhookLarge');
    assert.deepEqual(flagged(large), [], large.stdout);
    assert.equal(large.verdictOf('WEBHOOK-JSON'), 'PASSED');
    assert.deepEqual(flagged(runOf('idStatus')), ['WARNING WEBHOOK-REFERS-TO-WITHDRAWAL']);
  });

  it('makes a token no header can carry one finding, and sends no withdrawal with it', () => {
    const run = runOf('lineBreakToken');
    assert.deepEqual(flagged(run), ['FAILED TOKEN-USABLE']);
    assert.equal(run.report?.withdrawals, undefined, 'no withdrawal was written to the ledger');
    const incomplete = run.report?.incomplete as { cause: string; reason: string }[];
    assert.deepEqual(
      incomplete.map((i) => i.cause),
      ['environment'],
    );
    assert.match(incomplete[0]?.reason ?? '', /issued a token no header can carry .*judged by TOKEN-USABLE/);
  });

  it('warns once about a 30 KB token, masks it, and judges everything else', () => {
    const run = runOf('hugeToken');
    assert.deepEqual(flagged(run), ['WARNING TOKEN-SIZE']);
    assert.equal(run.report?.complete, true);
    assert.doesNotMatch(
      readFileSync(join(run.reportDir, 'certification.json'), 'utf8'),
      /[A-Za-z0-9_-]{2000}/,
    );
  });

  it('stops with exit 2 naming PIX_CLIENT_ID when the provider refuses the configured credentials', () => {
    const run = runOf('wrongClientId');
    assert.equal(run.code, 2, run.stdout + run.stderr);
    assert.equal(run.report, undefined, 'no test ran, no certification');
    assert.match(
      run.stderr,
      /PIX_CLIENT_ID: a token request with PIX_CLIENT_ID and PIX_CERT_CLIENT \(or PIX_CERT_FILE\) was refused: 403/,
    );
    assert.match(run.stderr, /If they are right, the provider refuses a request §4\.1 allows/);
    const left = readdirSync(STOPPED_RUN_TMPDIR).filter((name) => name.startsWith('pix-'));
    assert.deepEqual(left, [], 'the stopped run removed its temporary directories');
  });

  it('stops a wrong PIX_CLIENT_SECRET at the first withdrawal: exit 2 naming it, no finding blamed on the provider', () => {
    const run = runOf('wrongSecret');
    assert.equal(run.code, 2, run.stdout + run.stderr);
    assert.equal(run.report, undefined);
    assert.match(run.stdout + run.stderr, /PIX_CLIENT_SECRET: the first withdrawal, valid and sent with/);
    assert.match(run.stdout + run.stderr, /no other withdrawal was sent/);
  });
});
