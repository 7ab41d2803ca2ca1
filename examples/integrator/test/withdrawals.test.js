// The integrator's own tests, run against whatever PIX_BASE_URL names: under `pix-certify client`, the
// simulator, whose amounts choose what happens (pix-certify sandbox --outcomes; docs/simulator.md).
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import { payOut } from '../src/payouts.js';
import { PixClient, UnknownOutcome } from '../src/pix-client.js';
import { startWebhookServer } from '../src/webhook-server.js';

// The simulator's outcome amounts (docs/simulator.md): the cents choose.
const PAID = 0.01;
const ERROR_500_PAID = 0.51;
const NO_ANSWER_PAID = 0.52;
const RATE_LIMITED = 0.29;
const UNAUTHORIZED = 0.41;
const WEBHOOK_MALFORMED = 0.24;
const WEBHOOK_EXTRA_FIELDS = 0.25;

let webhooks;
const client = new PixClient();

before(async () => {
  webhooks = await startWebhookServer();
});
after(() => webhooks.close());

function payment(amount, who) {
  return {
    amount,
    code: `ex-${randomUUID()}`,
    name: who,
    keyType: 'EMAIL',
    document: '12345678909',
    keyPix: `${who.toLowerCase().replace(/\W/g, '')}@example.com`,
    postBackUrl: webhooks.url,
  };
}

const paidOut = (amount, who) => payOut(client, webhooks, payment(amount, who));

test('two withdrawals are accepted and each is PAID by webhook', async () => {
  const first = await paidOut(PAID, 'Ana Souza');
  const second = await paidOut(PAID, 'Bruno Lima');
  assert.equal(first.answer.status, 200);
  assert.equal(first.status, 'PAID');
  assert.equal(second.status, 'PAID');
});

const PAID_IN_THE_END = [
  ['a webhook the handler cannot read does not stop the next one', WEBHOOK_MALFORMED, 'Carla Dias'],
  ['a webhook with fields the handler does not know is taken', WEBHOOK_EXTRA_FIELDS, 'Davi Rocha'],
  ['a 500 that was paid is resent with the same code, not paid twice', ERROR_500_PAID, 'Elisa Melo'],
  ['a withdrawal left unanswered is resent with the same code', NO_ANSWER_PAID, 'Fabio Nunes'],
];

for (const [title, amount, who] of PAID_IN_THE_END) {
  test(title, async () => {
    assert.equal((await paidOut(amount, who)).status, 'PAID');
  });
}

test('a 429 is sent again after Retry-After, and the resend is served and PAID by webhook', async () => {
  assert.equal((await paidOut(RATE_LIMITED, 'Gabi Reis')).status, 'PAID');
});

test('a 401 is sent again once with a new token, then left to the caller', async () => {
  const answer = await client.withdraw(payment(UNAUTHORIZED, 'Hugo Alves'));
  assert.equal(answer.status, 401);
});

test('UnknownOutcome is what the caller sees when the outcome stays unknown', () => {
  assert.ok(new UnknownOutcome('x') instanceof Error);
});
