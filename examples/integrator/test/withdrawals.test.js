// The integrator's own tests, run against whatever PIX_BASE_URL names: under `pix-certify client`, the
// simulator, whose amounts choose what happens (pix-certify sandbox --outcomes; docs/simulator.md).
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
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

test('two withdrawals are accepted and each is PAID by webhook', async () => {
  const first = payment(PAID, 'Ana Souza');
  const second = payment(PAID, 'Bruno Lima');
  assert.equal((await client.withdraw(first)).status, 200);
  assert.equal((await client.withdraw(second)).status, 200);
  assert.equal(await webhooks.waitFor(first.code, 'PAID'), 'PAID');
  assert.equal(await webhooks.waitFor(second.code, 'PAID'), 'PAID');
});

const PAID_IN_THE_END = [
  ['a webhook the handler cannot read does not stop the next one', WEBHOOK_MALFORMED, 'Carla Dias'],
  ['a webhook with fields the handler does not know is taken', WEBHOOK_EXTRA_FIELDS, 'Davi Rocha'],
  ['a 500 that was paid is resent with the same code, not paid twice', ERROR_500_PAID, 'Elisa Melo'],
  ['a withdrawal left unanswered is resent with the same code', NO_ANSWER_PAID, 'Fabio Nunes'],
];

for (const [title, amount, who] of PAID_IN_THE_END) {
  test(title, async () => {
    const p = payment(amount, who);
    assert.equal((await client.withdraw(p)).status, 200);
    assert.equal(await webhooks.waitFor(p.code, 'PAID'), 'PAID');
  });
}

test('a 429 is retried once, after Retry-After, and the resend is served and PAID by webhook', async () => {
  const p = payment(RATE_LIMITED, 'Gabi Reis');
  assert.equal((await client.withdraw(p)).status, 200);
  assert.equal(await webhooks.waitFor(p.code, 'PAID'), 'PAID');
});

test('a 401 is sent again once with a new token, then left to the caller', async () => {
  const answer = await client.withdraw(payment(UNAUTHORIZED, 'Hugo Alves'));
  assert.equal(answer.status, 401);
});

test('UnknownOutcome is what the caller sees when the outcome stays unknown', () => {
  assert.ok(new UnknownOutcome('x') instanceof Error);
});
