/**
 * §2.1 check_code: true makes the service refuse a second record with the same code; false skips
 * that check; the default when it is left out is not shown and only observed.
 */
import { paymentAccepted } from '../../src/checks/bodies.ts';
import {
  checkCodeDefault,
  concurrentDuplicateRefused,
  DUPLICATE_CASES,
  type DuplicateCase,
  type DuplicatePair,
  duplicateRefusedWhenChecked,
  raceUnjudgeable,
} from '../../src/checks/check-code.ts';
import { judging, titleOf } from '../../src/checks/declare.ts';
import { test } from '../_support/fixtures.ts';
import type { PixClient } from '../../src/run/pix-client.ts';
import { blockerOf, type Recorder } from '../../src/run/recorder.ts';
import type { Exchange } from '../../src/evidence/exchange.ts';

/** The checks whose needs gate a case: its own, or for the default the one that needs the same. */
const gateOf = (testCase: DuplicateCase) => testCase.check ?? duplicateRefusedWhenChecked;

/** Sends a withdrawal and then a second one with the same code; check_code undefined leaves the field out. */
async function sendDuplicate(
  pix: PixClient,
  verify: Recorder,
  testCase: DuplicateCase,
): Promise<DuplicatePair> {
  const gate = gateOf(testCase);
  const headers = await pix.paymentHeaders([gate]);
  const first = await pix.newWithdrawal();
  const second = await pix.newWithdrawal();
  const body = (postBackUrl: string): string =>
    JSON.stringify({ ...first.body, PostBackUrl: postBackUrl, check_code: testCase.checkCode });
  const firstExchange = await pix.withdraw(gate.id, first, headers, body(first.url));
  if (firstExchange.response.status !== 200) {
    // The default's case judges no check: it stops without a verdict, its observation left out.
    verify.skip(
      testCase.check === undefined ? [] : [testCase.check],
      `the first withdrawal was not accepted (${firstExchange.response.status}), so a duplicate proves nothing; see ${paymentAccepted.id}`,
      blockerOf(firstExchange, paymentAccepted),
    );
  }
  // The duplicate reuses the first code on purpose: the ledger records it under that code too.
  const secondExchange = await pix.withdraw(
    gate.id,
    { ...second, code: first.code },
    headers,
    body(second.url),
  );
  return { first: firstExchange, second: secondExchange };
}

/** Judges the pair with the case's check, or records the default the document does not show. */
function verifyPair(verify: Recorder, testCase: DuplicateCase, pair: DuplicatePair): void {
  if (testCase.check === undefined) {
    verify.observe(
      'check_code.default',
      testCase.clause,
      checkCodeDefault(pair.second),
      'whether a repeated code is refused when check_code is left out',
    );
    return;
  }
  verify.check(testCase.check, pair, pair.second);
}

/**
 * The pairs depend on no other (each has a code of its own), so they are sent together: each is a
 * withdrawal and then its duplicate, one after the other, judged on its own recorder.
 */
test(
  titleOf(
    'Refuses a second withdrawal with the same code under check_code true, accepts it under false, and records what the service does when check_code is left out',
    '§2.1',
  ),
  judging({ checks: DUPLICATE_CASES.flatMap((c) => c.check ?? []), tags: ['@payout', '@mutating'] }),
  async ({ together }) => {
    const cases = DUPLICATE_CASES.map((duplicate) => ({ check: gateOf(duplicate), duplicate }));
    await together(cases, async ({ duplicate }, { pix, verify }) =>
      verifyPair(verify, duplicate, await sendDuplicate(pix, verify, duplicate)),
    );
  },
);

/**
 * PIX_RACE_WIDTH withdrawals with one new code and check_code true, released together, then one
 * more copy after their answers, one after another (it tells a provider that checks, but not
 * atomically, from one that never checks). Each has a webhook address of its own, so that a second
 * payout's webhook is told apart.
 */
async function sendRace(pix: PixClient, verify: Recorder): Promise<readonly Exchange[]> {
  const check = concurrentDuplicateRefused;
  const headers = await pix.paymentHeaders([check]);
  const withdrawals = await Promise.all(
    Array.from({ length: pix.config.raceWidth + 1 }, () => pix.newWithdrawal()),
  );
  const [first] = withdrawals;
  if (first === undefined) throw new Error('PIX_RACE_WIDTH is at least 2');
  // Every copy carries the first code on purpose: the ledger records each under it.
  const copies = withdrawals.map((withdrawal) => ({
    withdrawal: { ...withdrawal, code: first.code },
    body: JSON.stringify({ ...first.body, PostBackUrl: withdrawal.url, check_code: true }),
  }));
  const last = copies.pop();
  if (last === undefined) throw new Error('the copy sent afterwards');
  const race = await pix.race(check.id, copies, headers);
  const afterwards = await pix.withdraw(check.id, last.withdrawal, headers, last.body);
  const unjudgeable = raceUnjudgeable(race, afterwards);
  if (unjudgeable !== undefined)
    verify.skip([check], unjudgeable.why, blockerOf(unjudgeable.exchange, unjudgeable.judgedBy));
  return race;
}

test(
  titleOf(concurrentDuplicateRefused.title, concurrentDuplicateRefused.clause),
  judging({ checks: [concurrentDuplicateRefused], tags: ['@payout', '@mutating'] }),
  async ({ pix, verify }) => {
    verify.requires([concurrentDuplicateRefused]);
    const exchanges = await sendRace(pix, verify);
    verify.check(
      concurrentDuplicateRefused,
      exchanges,
      exchanges.filter((e) => e.response.status === 200)[1] ?? exchanges[0],
    );
  },
);
