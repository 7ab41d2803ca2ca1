/**
 * One console escaping (issue 50 item 6, the suite's side): what pix-certify client, the receiver and
 * the reporters print goes through consoleLine, so an ESC sequence, a C1 byte or a line break in a
 * value (a PostBackUrl from the journal, a run's address at the receiver) never reaches a terminal
 * raw, and credentials in a query string or a URL's user-info are masked.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { renderArtifacts } from '../reporters/certification/artifacts.ts';
import { startReceiver } from '../src/receiver/receiver.ts';
import { consoleLine } from '../src/secrets/redact.ts';
import { clientCertificationOf, openNamespace, simulatorForTests } from './support/simulator-namespace.ts';

/** C0 but tab, DEL and C1: what a terminal may obey. */
// eslint-disable-next-line no-control-regex -- finding control characters is the point
const RAW_CONTROL = /[\u0000-\u0008\u000a-\u001f\u007f-\u009f]/;
const HOSTILE = 'x\u001b[2J\u001b]0;owned\u0007\u009b31m\u007f\nPASSED  forged line';

describe('a console line', () => {
  it('shows controls, C1 bytes and line breaks escaped, never raw', () => {
    const line = consoleLine(`value ${HOSTILE}`);
    assert.doesNotMatch(line, RAW_CONTROL);
    assert.equal(line, 'value x\\x1b[2J\\x1b]0;owned\\x07\\x9b31m\\x7f\\x0aPASSED  forged line');
  });

  it('masks credentials in a query string and in user-info, and leaves other parameters', () => {
    const line = consoleLine(
      'POST /hooks/a?token=t0k3n-value&api_key=k3y-value&sig=s1g-value&page=2 from https://ana:pa55word-value@hooks.example.test/x',
    );
    for (const secret of ['t0k3n-value', 'k3y-value', 's1g-value', 'pa55word-value'])
      assert.ok(!line.includes(secret), `${secret} in ${line}`);
    assert.match(line, /page=2/);
    assert.match(line, /https:\/\/\*\*\*@hooks\.example\.test/);
  });
});

describe('what the commands print', () => {
  const simulator = simulatorForTests();

  it("pix-certify client's closing lines: a PostBackUrl from the journal with an ESC sequence, a C1 byte and a line break", async () => {
    const sandbox = simulator();
    const { ns, token } = await openNamespace(sandbox, 'console-line');
    await fetch(`${ns.baseUrl}/pix/payment`, {
      method: 'POST',
      headers: {
        Accept: 'application/json',
        client_id: ns.clientId,
        client_secret: ns.clientSecret,
        Authorization: `Bearer ${token}`,
        'content-type': 'application/json',
      },
      body: JSON.stringify({
        amount: 0.01,
        code: 'console-line-1',
        name: 'Ana',
        key_type: 'EMAIL',
        document: '12345678909',
        key_pix: 'ana@example.com',
        PostBackUrl: HOSTILE,
        check_code: true,
      }),
    });
    const { report } = await clientCertificationOf(sandbox, ns);
    const printed = renderArtifacts(
      report,
      { html: 'h', json: 'j', markdown: 'm', junit: 'x' },
      { width: 100, colour: false },
    ).console;
    assert.match(printed, /owned/, 'the PostBackUrl is among the findings printed');
    for (const line of printed.split('\n')) {
      assert.doesNotMatch(line, RAW_CONTROL, line);
      assert.doesNotMatch(line, /^\s*PASSED\s+forged/, 'a line forged by the value');
    }
  });

  it("the receiver's log: a run's address with a password in its user-info is masked", async () => {
    const lines: string[] = [];
    const token = 'receiver-token-0123456789abcdef';
    const receiver = await startReceiver({
      host: '127.0.0.1',
      port: 0,
      token,
      shared: true,
      log: (line) => lines.push(line),
    });
    try {
      const base = 'https://ana:pa55word-of-the-hooks@hooks.example.test/in';
      const opened = await fetch(`${receiver.url}/_receiver/v1/runs?base=${encodeURIComponent(base)}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}` },
      });
      assert.equal(opened.status, 201);
      const told = lines.find((line) => line.includes('opened'));
      assert.ok(told !== undefined, lines.join('\n'));
      assert.ok(!told.includes('pa55word-of-the-hooks'), told);
      assert.match(told, /https:\/\/\*\*\*@hooks\.example\.test\/in/);
      assert.doesNotMatch(told, RAW_CONTROL);
    } finally {
      await receiver.close();
    }
  });
});
