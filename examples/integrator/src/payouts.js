// The application's payout: a withdrawal, then its final status as the webhooks tell it. PROCESSING is
// a step on the way, never the end: the payout waits for PAID or FAILED and never pays again meanwhile.
import { FAULT } from './faults.js';

export async function payOut(client, webhooks, payment, payAgain = FAULT === 'processing-as-final') {
  const answer = await client.withdraw(payment);
  if (answer.status !== 200) return { answer, status: undefined };
  webhooks.stored(payment.code);
  // processing-as-final: a first webhook other than PAID is taken for a failed payout, paid again anew.
  if (payAgain && (await webhooks.firstStatus(payment.code)) !== 'PAID')
    return payOut(client, webhooks, { ...payment, code: `${payment.code}-again` }, false);
  return { answer, status: await webhooks.waitFor(payment.code, 'PAID') };
}
