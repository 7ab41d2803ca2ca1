/**
 * check_code family (§2.1): when true the service refuses a second record with the same code; when
 * false it does not check; the default when it is left out is not shown and only observed. Each
 * case sends a withdrawal and then its duplicate; the race sends copies together.
 */
import { describeResponse, type Exchange } from '../evidence/exchange.ts';
import { isClientError, isSuccess } from '../base/status.ts';
import { type Check, defineCheck, violation } from './check.ts';
import { familyFile, type Family } from './family.ts';
import { paymentAccepted } from './bodies.ts';

export interface DuplicatePair {
  readonly first: Exchange;
  readonly second: Exchange;
}

export const duplicateRefusedWhenChecked = defineCheck<DuplicatePair>(
  {
    id: 'CHECK-CODE-TRUE-REFUSES-DUPLICATE',
    title: 'With check_code true, refuses a second withdrawal with the same code',
    clause: '§2.1',
    level: 'must',
    reason:
      'When check_code is true "the service validates whether another record exists for the same user code" (§2.1).',
    remedy:
      'When check_code is true, look for an earlier withdrawal of the same client with the same code and refuse the new one with a 4xx.',
    needs: ['provider', 'payout'],
  },
  ({ second }) => {
    const { status } = second.response;
    if (isClientError(status)) return [];
    const actual = isSuccess(status)
      ? `accepted: ${describeResponse(second.response)}`
      : describeResponse(second.response);
    return [violation('must', 'the duplicate refused with a 4xx', actual)];
  },
);

export const duplicateAllowedWhenUnchecked = defineCheck<DuplicatePair>(
  {
    id: 'CHECK-CODE-FALSE-ALLOWS-DUPLICATE',
    title: 'With check_code false, accepts a second withdrawal with the same code',
    clause: '§2.1',
    level: 'must',
    reason:
      'When check_code is false "that check is not made" (§2.1), so a repeated code is no reason to refuse.',
    remedy:
      'When check_code is false, skip the duplicate-code check and process the withdrawal as any other.',
    needs: ['provider', 'payout'],
  },
  ({ second }) =>
    second.response.status === 200
      ? []
      : [violation('must', 'the second withdrawal accepted (200)', describeResponse(second.response))],
);

/**
 * The least time between the run's first withdrawal's acceptance and its code sent again near the run's end:
 * past a duplicate memory of a few seconds (a cache's time to live) also where the run itself is shorter.
 */
export const LATER_DUPLICATE_GAP_MS = 5_000;

/** A withdrawal sent again with a code the provider accepted earlier, how long after that acceptance, and when in the run. */
export interface LaterDuplicate {
  readonly exchange: Exchange;
  readonly afterMs: number;
  /** When it was sent, for the finding: `once its webhook had arrived`, `near the end of the run`. */
  readonly moment: string;
}

export const laterDuplicateRefused = defineCheck<LaterDuplicate>(
  {
    id: 'CHECK-CODE-TRUE-REFUSES-LATER-DUPLICATE',
    title: 'With check_code true, refuses a code it accepted earlier in the run, however long before',
    clause: '§2.1',
    level: 'must',
    reason:
      'When check_code is true "the service validates whether another record exists for the same user code" (§2.1): a record does not stop existing after a while, and a duplicate memory that expires (a cache with a time to live, a check against withdrawals still processing) pays twice.',
    remedy:
      'Check the code against every earlier withdrawal of the client, not a cache that expires or the withdrawals still in flight, and refuse a repeated code with a 4xx however long after the first.',
    needs: ['provider', 'payout'],
    subsumedBy: 'CHECK-CODE-TRUE-REFUSES-DUPLICATE',
  },
  ({ exchange, afterMs, moment }) => {
    const { status } = exchange.response;
    if (isClientError(status)) return [];
    const answered = isSuccess(status) ? 'accepted' : 'answered';
    return [
      violation(
        'must',
        'the code refused with a 4xx, however long after its first withdrawal',
        `${answered} ${(afterMs / 1000).toFixed(1)} s after the first withdrawal with the code was accepted, ${moment}: ${describeResponse(exchange.response)}`,
      ),
    ];
  },
);

/** The observation's topic; its afterSeconds differ on every run, so a comparison leaves them out. */
export const LATER_DUPLICATE_TOPIC = 'check_code.later-duplicate';

/**
 * What a later duplicate proved, as an observation: how long after its acceptance the code went again, so that
 * a report names the longest duplicate memory the run could have found, not "however long".
 */
export function laterDuplicateObservation({ exchange, afterMs, moment }: LaterDuplicate): {
  topic: string;
  value: { moment: string; afterSeconds: number; status: number };
  note: string;
} {
  const afterSeconds = Math.round(afterMs / 100) / 10;
  return {
    topic: LATER_DUPLICATE_TOPIC,
    value: { moment, afterSeconds, status: exchange.response.status },
    note: `a duplicate memory that lapses within ${afterSeconds} s is found; a longer one only by a longer run`,
  };
}

export const concurrentDuplicateRefused = defineCheck<readonly Exchange[]>(
  {
    id: 'CHECK-CODE-TRUE-REFUSES-CONCURRENT-DUPLICATE',
    title: 'With check_code true, accepts at most one of several withdrawals with one code sent together',
    clause: '§2.1',
    level: 'must',
    reason:
      'When check_code is true "the service validates whether another record exists for the same user code" (§2.1): a service that checks and then writes lets copies that arrive together through, and pays twice.',
    remedy:
      'Make the duplicate check and the write of the code one atomic step (a unique constraint on client and code, or a lock per code), so that of several withdrawals with one code only one is accepted, however close together they arrive.',
    needs: ['provider', 'payout'],
  },
  (exchanges) => {
    const accepted = exchanges.filter((e) => isSuccess(e.response.status));
    if (accepted.length <= 1) return [];
    return [
      violation(
        'must',
        `at most one of ${exchanges.length} withdrawals with one code accepted`,
        `${accepted.length} accepted: ${exchanges.map((e) => e.response.status).join(', ')}`,
      ),
    ];
  },
  (exchanges) =>
    exchanges.length < 2 ? `${exchanges.length} withdrawals answered: no race to judge` : undefined,
);

/** The first answer and how long before the last copy left it came, when the copies never overlapped. */
function notOverlapping(race: readonly Exchange[]): { first: Exchange; ms: number } | undefined {
  const timed = race.flatMap((e) => (e.sentAt === undefined ? [] : [{ e, sentAt: e.sentAt }]));
  if (timed.length < 2 || timed.length < race.length) return undefined;
  const lastSent = Math.max(...timed.map((t) => t.sentAt));
  const first = timed.reduce((a, b) => (b.sentAt + b.e.durationMs < a.sentAt + a.e.durationMs ? b : a));
  const gap = lastSent - (first.sentAt + first.e.durationMs);
  return gap > 0 ? { first: first.e, ms: Math.round(gap) } : undefined;
}

/**
 * Why a race's answers cannot be judged, or undefined when they can. Several accepted are judged
 * whatever the others say, unless a copy sent after the race, one after another, was accepted too:
 * then the provider does not check the code at all, CHECK-CODE-TRUE-REFUSES-DUPLICATE's one finding,
 * not a race. Copies that never overlapped at the provider raced nothing. Otherwise: none accepted for the credentials (PAYMENT-ACCEPTED's finding), or an
 * answer that leaves its outcome unknown (a 5xx or no clear status may have paid).
 */
export function raceUnjudgeable(
  race: readonly Exchange[],
  afterwards: Exchange,
): { why: string; exchange: Exchange; judgedBy: Check<never> | undefined } | undefined {
  // judgedBy: the check whose finding the answer is, which a person reads first; none for a race that did not race.
  const accepted = race.filter((e) => isSuccess(e.response.status)).length;
  if (accepted > 1 && isSuccess(afterwards.response.status))
    return {
      why: `a copy sent after the race, one after another, was accepted too (${afterwards.response.status}): the provider does not refuse a repeated code at all, which ${duplicateRefusedWhenChecked.id} finds`,
      exchange: afterwards,
      judgedBy: duplicateRefusedWhenChecked,
    };
  const apart = notOverlapping(race);
  if (apart !== undefined)
    return {
      why: `the copies did not overlap at the provider: the first was answered ${apart.ms} ms before the last was sent, so nothing raced and the race judged nothing (the run's pace spaced them: the environment's 429s, or a PIX_RATE_LIMIT lower than the race's width)`,
      exchange: apart.first,
      judgedBy: undefined,
    };
  if (accepted > 1) return undefined;
  const unclear = race.find((e) => !isSuccess(e.response.status) && !isClientError(e.response.status));
  if (unclear !== undefined)
    return {
      why: `one of the withdrawals sent together was answered ${unclear.response.status}, which may have paid, so how many were accepted is unknown (the ledger marks it unknown)`,
      exchange: unclear,
      judgedBy: paymentAccepted,
    };
  const forCredentials = race.find((e) => e.response.status === 401 || e.response.status === 403);
  if (accepted === 0 && forCredentials !== undefined)
    return {
      why: `none of the withdrawals sent together was accepted (${forCredentials.response.status} for the credentials), so the race shows nothing of duplicates`,
      exchange: forCredentials,
      judgedBy: paymentAccepted,
    };
  return undefined;
}

/** What a repeated code without check_code tells of the default, which the document does not show. */
export function checkCodeDefault(second: Exchange): string {
  const { status } = second.response;
  return isClientError(status)
    ? `true (a repeated code is refused with ${status})`
    : `false (a repeated code is answered ${status})`;
}

export interface DuplicateCase {
  readonly clause: string;
  /** undefined: the field is left out of both withdrawals. */
  readonly checkCode: boolean | undefined;
  /** The check that judges the pair, or undefined when the pair only shows the default. */
  readonly check: Check<DuplicatePair> | undefined;
}

export const DUPLICATE_CASES: readonly DuplicateCase[] = [
  {
    clause: duplicateRefusedWhenChecked.clause,
    checkCode: true,
    check: duplicateRefusedWhenChecked,
  },
  {
    clause: duplicateAllowedWhenUnchecked.clause,
    checkCode: false,
    check: duplicateAllowedWhenUnchecked,
  },
  {
    clause: '§2.1 (not shown)',
    checkCode: undefined,
    check: undefined,
  },
];

/** A withdrawal and its duplicate. */
const WITHDRAWALS_PER_CASE = 2;

export const checkCodeFamily: Family = {
  name: 'check_code',
  file: familyFile(import.meta.url),
  checks: () => [
    duplicateRefusedWhenChecked,
    duplicateAllowedWhenUnchecked,
    laterDuplicateRefused,
    concurrentDuplicateRefused,
  ],
  /**
   * Each case's pair, the race's withdrawals and the copy sent after them, the webhook test's accepted
   * code sent again once its webhook arrived, and the run's first code sent again near its end.
   */
  withdrawals: (_spec, { raceWidth }) => DUPLICATE_CASES.length * WITHDRAWALS_PER_CASE + raceWidth + 3,
};
