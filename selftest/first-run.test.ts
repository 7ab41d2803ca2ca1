/**
 * What a newcomer meets on a first run, held in place: the plan says where webhooks go and names a
 * variable this configuration ignores; a mock run's plan names no amount or payee after "nothing can
 * move money".
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { loadConfig } from '../src/config/config.ts';
import { describePlan, planFor } from '../src/run/plan.ts';
import { aboutDuration } from '../src/run/lifetime.ts';

const LIVE = {
  PIX_BASE_URL: 'https://sandbox.provider.example',
  PIX_CLIENT_ID: 'client-id',
  PIX_CLIENT_SECRET: 'client-secret-value',
  PIX_CERT_CLIENT: 'Y2VydA==',
  PIX_ALLOW_PAYOUTS: '1',
  PIX_PAYEE_KEY_TYPE: 'EVP',
  PIX_PAYEE_KEY: '123e4567-e89b-12d3-a456-426614174000',
  PIX_PAYEE_DOCUMENT: '52998224725',
  PIX_PAYEE_NAME: 'Payee',
};

const planOf = (env: Record<string, string>): string => {
  const config = loadConfig(env);
  return describePlan(config, planFor(config));
};

describe('the payout plan a run prints first', () => {
  it('against the mock, names no amount and no payee after "nothing can move money"', () => {
    const plan = planOf({});
    assert.match(plan, /nothing can move money/);
    assert.doesNotMatch(plan, /BRL|EVP|\*\*\*/);
  });

  it('live, says where the webhooks are received', () => {
    assert.match(planOf(LIVE), /^Webhooks: received by this machine's receiver on 127\.0\.0\.1:<a free port>, which only a provider on this machine reaches/m);
    assert.match(planOf({ ...LIVE, PIX_WEBHOOK_PUBLIC_URL: 'https://tunnel.example', PIX_WEBHOOK_PORT: '8080' }), /^Webhooks: received by this machine's receiver on 127\.0\.0\.1:8080, through https:\/\/tunnel\.example \(PIX_WEBHOOK_PUBLIC_URL\)$/m);
  }); // prettier-ignore

  it('names PIX_WEBHOOK_PORT as having no effect beside a remote receiver', () => {
    const plan = planOf({
      ...LIVE,
      PIX_WEBHOOK_RECEIVER_URL: 'https://hooks.example',
      PIX_WEBHOOK_RECEIVER_TOKEN: 'x'.repeat(40),
      PIX_WEBHOOK_PORT: '8080',
    });
    assert.match(plan, /^Webhooks: received by the remote receiver at https:\/\/hooks\.example/m);
    assert.match(plan, /^ {2}PIX_WEBHOOK_PORT has no effect here: the remote receiver/m);
    assert.doesNotMatch(plan, /PIX_WEBHOOK_HOST/);
  });
});

describe('the lifetime probe says how long it lasts in a unit that fits', () => {
  it('seconds for a short probe, minutes, then hours', () => {
    assert.deepEqual([20, 119, 600, 7_199, 7_200].map(aboutDuration), [
      '20 s',
      '119 s',
      '10 min',
      '120 min',
      '2.0 h',
    ]);
  });
});
