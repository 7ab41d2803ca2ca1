/**
 * The tests of one header at a time, for either operation: each case sends one request, its check
 * judges the exchange and the status is observed under the case's topic. The token and withdrawal
 * spec files differ only in how a case's request is built and sent.
 */
import type { Check } from '../../src/checks/check.ts';
import { judging, titleOf, type Tag } from '../../src/checks/declare.ts';
import type { Exchange } from '../../src/evidence/exchange.ts';
import type { PixClient } from '../../src/run/client.ts';
import type { Inventor } from '../../src/spec/invent.ts';
import { test } from './fixtures.ts';

export interface HeaderCaseFamily<Case extends { readonly check: Check<Exchange> }> {
  readonly cases: readonly Case[];
  readonly tags: readonly Tag[];
  /** The observation's topic before the check id: `refusal.status`, `accept`. */
  readonly topic: string;
  readonly note: string;
  readonly send: (pix: PixClient, testCase: Case, invent: Inventor) => Promise<Exchange>;
}

export function headerCaseTests<Case extends { readonly check: Check<Exchange> }>(
  family: HeaderCaseFamily<Case>,
): void {
  for (const testCase of family.cases) {
    const { check } = testCase;
    test(
      titleOf(check.title, check.clause),
      judging({ checks: [check], tags: family.tags }),
      async ({ pix, verify, invent }) => {
        verify.requires([check]);
        const exchange = await family.send(pix, testCase, invent);
        verify.check(check, exchange, exchange);
        verify.observe(`${family.topic}.${check.id}`, check.clause, exchange.response.status, family.note);
      },
    );
  }
}
