/**
 * A wrong PIX_CLIENT_SECRET is the user's mistake: the token request (client_id and certificate)
 * passes, and the run's first withdrawal, refused once and again with a renewed token, stops the run
 * with exit 2 naming PIX_CLIENT_SECRET before any other withdrawal is sent.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startSandbox, type RunningSandbox } from '../../sandbox/server.ts';
import { sandboxEnv } from '../support/live-env.ts';
import { runSuite } from '../support/run-suite.ts';

describe('a wrong PIX_CLIENT_SECRET', () => {
  let sandbox: RunningSandbox;
  before(async () => {
    sandbox = await startSandbox();
  });
  after(() => sandbox.close());

  it('stops the run with exit 2 naming PIX_CLIENT_SECRET, after at most 3 withdrawal requests', async () => {
    const secret = sandbox.credentials.clientSecret;
    const wrong = `${secret.slice(0, -1)}${secret.endsWith('x') ? 'y' : 'x'}`;
    const run = await runSuite(sandboxEnv(sandbox, 'reference', { PIX_CLIENT_SECRET: wrong }));
    assert.equal(run.code, 2, run.stdout + run.stderr);
    assert.match(run.stdout + run.stderr, /PIX_CLIENT_SECRET: the first withdrawal/);
    // The first withdrawal went before the stop: the line says the ledger holds it, with one period.
    assert.match(
      run.stderr,
      /allows\. No report in .* was changed; its ledger\.jsonl records every withdrawal sent\./,
    );
    assert.ok(
      sandbox.withdrawalsReceived('reference') <= 3,
      `${sandbox.withdrawalsReceived('reference')} sent`,
    );
    assert.ok(!(run.stdout + run.stderr).includes(wrong), 'the secret is masked');
  });
});
