/** The withdraw operation's success path (§4.2). */
import { describeResponse, type Exchange } from '../exchange.ts';
import { defineCheck, violation } from './check.ts';

export const paymentAccepted = defineCheck<Exchange>(
  {
    id: 'PAYMENT-ACCEPTED',
    title: 'Accepts a valid withdrawal with every credential and every field of §2.1',
    clause: '§4.2, §2.1, §5.2',
    level: 'must',
    reason:
      'A withdrawal with client_id, client_secret, accept, the Bearer token and a complete body gets status 200 (§4.2).',
    needs: ['payout'],
  },
  (exchange) =>
    exchange.response.status === 200 ? [] : [violation('must', '200', describeResponse(exchange.response))],
);
