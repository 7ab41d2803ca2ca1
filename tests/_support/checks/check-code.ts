/** check_code (§2.1): when true the service refuses a second record with the same code; when false it does not check. */
import { describeResponse, type Exchange } from '../exchange.ts';
import { defineCheck, violation } from './check.ts';

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
    needs: ['provider', 'payout'],
  },
  ({ second }) => {
    const { status } = second.response;
    if (status >= 400 && status < 500) return [];
    const actual =
      status < 300 ? `accepted: ${describeResponse(second.response)}` : describeResponse(second.response);
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
    needs: ['provider', 'payout'],
  },
  ({ second }) =>
    second.response.status === 200
      ? []
      : [violation('must', 'the second withdrawal accepted (200)', describeResponse(second.response))],
);

/** What a repeated code without check_code tells of the default, which the document does not show. */
export function checkCodeDefault(second: Exchange): string {
  const { status } = second.response;
  return status >= 400 && status < 500
    ? `true (a repeated code is refused with ${status})`
    : `false (a repeated code is answered ${status})`;
}
