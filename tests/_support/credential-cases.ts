/**
 * How a credential case is sent and evidenced, for either operation: its own wrong value and, for the
 * cases that have them, the real value's near misses, all sent together within the run's gate.
 */
import { allSettledInOrder } from '../../src/base/settled.ts';
import {
  applyCredentialCase,
  type CredentialAnswer,
  NEAR_MISS_NOTE,
  type CredentialCase,
  nearMissHeaders,
  representativeAnswer,
} from '../../src/checks/credentials.ts';
import { NEAR_MISS_WORDS } from '../../src/checks/near-miss.ts';
import type { Exchange } from '../../src/evidence/exchange.ts';
import type { Inventor } from '../../src/spec/invent.ts';
import type { Headers } from '../../src/spec/requests.ts';
import type { CaseEvidence } from './header-cases.ts';

export async function sendCredentialCase(
  headers: Headers,
  testCase: CredentialCase,
  token: string | undefined,
  invent: Inventor,
  send: (headers: Headers) => Promise<Exchange>,
): Promise<CredentialAnswer[]> {
  const nearMisses = await nearMissHeaders(headers, testCase, token);
  return allSettledInOrder([
    send(applyCredentialCase(headers, testCase, token, invent)).then((exchange) => ({ exchange })),
    ...nearMisses.map(({ nearMiss, headers: sent }) =>
      send(sent).then((exchange) => ({ nearMiss, exchange })),
    ),
  ]);
}

/** The case's own status, and with near misses each one's status by what it was. */
export function credentialEvidence(
  testCase: CredentialCase,
  answers: readonly CredentialAnswer[],
): CaseEvidence {
  const exchange = representativeAnswer(testCase, answers);
  const [own, ...nearMisses] = answers;
  const observed = own?.exchange.response.status ?? null;
  if (nearMisses.length === 0) return { exchange, observed };
  const value = Object.fromEntries(
    nearMisses.map((a) => [
      a.nearMiss === undefined ? '' : NEAR_MISS_WORDS[a.nearMiss],
      a.exchange.response.status,
    ]),
  );
  return { exchange, observed, also: { topic: 'near-miss.status', value, note: NEAR_MISS_NOTE } };
}
