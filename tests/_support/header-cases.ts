/**
 * The test of one family of header cases, for either operation: each case sends one request with one
 * header missing or wrong, its check judges that exchange and the status is observed under the case's
 * topic. The cases do not depend on each other, so they are sent together (within the run's gate) and
 * each is judged by its own recorder. The token and withdrawal spec files differ only in how a case's
 * request is built and sent.
 */
import type { Check } from '../../src/checks/check.ts';
import { judging, titleOf, type Tag } from '../../src/checks/declare.ts';
import type { Exchange } from '../../src/evidence/exchange.ts';
import type { JsonValue } from '../../src/base/json.ts';
import type { PixClient } from '../../src/run/pix-client.ts';
import type { Inventor } from '../../src/spec/invent.ts';
import { test } from './fixtures.ts';

export interface HeaderCaseFamily<Input, Case extends { readonly check: Check<Input> }> {
  readonly cases: readonly Case[];
  readonly tags: readonly Tag[];
  /** The observation's topic before the check id: `refusal.status`, `accept`. */
  readonly topic: string;
  readonly note: string;
  readonly send: (pix: PixClient, testCase: Case, invent: Inventor) => Promise<Input>;
  /** The exchange a finding is reproduced with, what the case observed (its status) and any more it did. */
  readonly evidence: (testCase: Case, input: Input) => CaseEvidence;
}

export interface CaseEvidence {
  readonly exchange: Exchange | undefined;
  readonly observed: JsonValue;
  readonly also?: { readonly topic: string; readonly value: JsonValue; readonly note: string };
}

/** The evidence of a case that sends one request: that exchange and its status. */
export const ONE_EXCHANGE = {
  evidence: (_testCase: unknown, exchange: Exchange) => ({ exchange, observed: exchange.response.status }),
};

/**
 * The family's title from its checks': the words they share at the start and at the end around what
 * each case does, then their clauses: `refuses a token request without client_id, with a wrong
 * client_id, … (§4.1, §5.4)`. It reads like the clauses, and --grep finds a case's words in it.
 */
export function familyTitle(checks: readonly Pick<Check<Exchange>, 'title' | 'clause'>[]): string {
  const words = checks.map((c) => c.title.split(' '));
  const shortest = Math.min(...words.map((w) => w.length));
  const sharedAt = (index: (w: string[]) => string | undefined): boolean =>
    words.every((w) => index(w) === index(words[0] ?? []));
  let head = 0;
  while (head < shortest - 1 && sharedAt((w) => w[head])) head++;
  let tail = 0;
  while (head + tail < shortest - 1 && sharedAt((w) => w[w.length - 1 - tail])) tail++;
  const first = words[0] ?? [];
  const each = words.map((w) => w.slice(head, w.length - tail).join(' '));
  const tailWords = first.slice(first.length - tail);
  const cases = tail === 0 ? each.join(', ') : `${each.join(', ')},`;
  const clauses = [...new Set(checks.flatMap((c) => c.clause.split(', ')))];
  return titleOf([...first.slice(0, head), cases, ...tailWords].join(' '), clauses.join(', '));
}

export function headerCaseTests<Input, Case extends { readonly check: Check<Input> }>(
  family: HeaderCaseFamily<Input, Case>,
): void {
  const checks = family.cases.map((c) => c.check);
  test(familyTitle(checks), judging({ checks, tags: family.tags }), async ({ together }) => {
    await together(family.cases, async (testCase, { pix, verify, invent }) => {
      const { check } = testCase;
      const input = await family.send(pix, testCase, invent);
      const { exchange, observed, also } = family.evidence(testCase, input);
      verify.check(check, input, exchange);
      verify.observe(`${family.topic}.${check.id}`, check.clause, observed, family.note);
      if (also !== undefined)
        verify.observe(`${also.topic}.${check.id}`, check.clause, also.value, also.note);
    });
  });
}
