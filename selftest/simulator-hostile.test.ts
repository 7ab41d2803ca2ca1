/**
 * The simulator against hostile and careless requests (issue 50): a resend of a paid code is told the
 * payment exists, never to use a new code; rate-limited-429 lets the resend through; secrets placed at
 * every cut point never leave 8 of their characters in the journal, a refusal or a log line; control
 * characters reach no console raw; a reset cancels what was still due; names are echoed cut.
 */
import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { after, before, describe, it } from 'node:test';
import type { JournalRequest } from '../src/evidence/journal.ts';
import { type RunningSandbox, startSandbox } from '../sandbox/server.ts';
import { inventWithdrawal } from './support/data.ts';
import { secretRunsIn } from './support/leaks.ts';
import {
  control,
  createNamespace,
  Handler,
  journalDeliveries,
  type Namespace,
  sandboxCli,
  send,
  tokenOf,
  withdrawalBody,
  withdrawalHeaders,
} from './support/simulator-client.ts';

// eslint-disable-next-line no-control-regex -- finding control characters is the point.
const CONTROL_CHARACTERS = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/;

let sandbox: RunningSandbox;
const lines: string[] = [];
const handler = new Handler();

before(async () => {
  await handler.start();
  sandbox = await startSandbox({ timeScale: 0.01, log: (line) => lines.push(line) });
});

after(async () => {
  await sandbox.close();
  await handler.close();
});

const journalText = async (name: string): Promise<{ status: number; text: string }> => {
  const response = await control(sandbox, 'GET', `/_sim/namespaces/${name}/journal`);
  return { status: response.status, text: await response.text() };
};

describe('money first', () => {
  it('a resend of a 500-but-paid withdrawal with its code is told the payment exists, never to use a new code', async () => {
    const namespace = await createNamespace(sandbox, 'resend');
    const token = await tokenOf(namespace);
    const { code } = inventWithdrawal();
    const body = withdrawalBody(0.51, `${handler.url}/hooks/resend`, code);
    assert.equal((await send(`${namespace.baseUrl}/pix/payment`, withdrawalHeaders(namespace, token), body)).status, 500);
    const again = await send(`${namespace.baseUrl}/pix/payment`, withdrawalHeaders(namespace, token), body);
    assert.equal(again.status, 400);
    const taught = JSON.stringify(again.json);
    assert.match(taught, /exists already/);
    assert.match(taught, /wait for its webhook/);
    assert.doesNotMatch(taught, /use a new code|new code, or/i);
  }); // prettier-ignore

  it('rate-limited-429 answers a code 429 once: its resend after Retry-After is served and paid', async () => {
    const namespace = await createNamespace(sandbox, 'limited');
    const token = await tokenOf(namespace);
    const { code } = inventWithdrawal();
    const body = withdrawalBody(0.29, `${handler.url}/hooks/limited`, code);
    const first = await send(`${namespace.baseUrl}/pix/payment`, withdrawalHeaders(namespace, token), body);
    assert.equal(first.status, 429);
    const resent = await send(`${namespace.baseUrl}/pix/payment`, withdrawalHeaders(namespace, token), body);
    assert.equal(resent.status, 200);
    assert.equal((await handler.awaitDeliveries('/hooks/limited', 1, performance.now() + 5_000)).length, 1);
    const other = await send(`${namespace.baseUrl}/pix/payment`, withdrawalHeaders(namespace, token), withdrawalBody(0.29, `${handler.url}/hooks/limited`));
    assert.equal(other.status, 429, 'another code is limited once too');
  }); // prettier-ignore
});

describe('mask, then cut', () => {
  it('a client_secret in a header value, a field name, the code, the name and PostBackUrl leaves no 8 of its characters anywhere', async () => {
    const namespace = await createNamespace(sandbox, 'leaky');
    const token = await tokenOf(namespace);
    const secret = namespace.clientSecret;
    const padded = `${'x'.repeat(60)}${secret}`;
    const headers = { ...withdrawalHeaders(namespace, token), accept: `text/${padded}`, 'x-note': padded };
    const body = JSON.stringify({ amount: 0.01, code: padded, name: padded, key_type: padded, document: '52998224725', key_pix: 'k', PostBackUrl: `not a url ${padded}`, [padded]: 1, [secret.slice(1)]: 2 });
    const refused = await send(`${namespace.baseUrl}/pix/payment`, headers, body);
    assert.equal(refused.status, 400);
    const journal = await journalText('leaky');
    assert.equal(journal.status, 200);
    assert.deepEqual(secretRunsIn(journal.text, secret), [], 'the journal');
    assert.deepEqual(secretRunsIn(JSON.stringify(refused.json), secret), [], 'the refusal');
    assert.deepEqual(secretRunsIn(lines.join('\n'), secret), [], 'the log');
  }); // prettier-ignore

  it('a control token or a client_secret in a query string, and a URL’s user-info, are masked in the log', async () => {
    const namespace = await createNamespace(sandbox, 'query');
    await fetch(`${namespace.baseUrl}/auth/token?client_secret=${namespace.clientSecret}&token=${sandbox.controlToken}`, { method: 'POST' });
    const token = await tokenOf(namespace);
    const url = `http://user:hunter2-password@${handler.url.slice('http://'.length)}/hooks/userinfo`;
    assert.equal((await send(`${namespace.baseUrl}/pix/payment`, withdrawalHeaders(namespace, token), withdrawalBody(0.01, url))).status, 200);
    await journalDeliveries(sandbox, 'query', 1, performance.now() + 5_000);
    const log = lines.join('\n');
    assert.deepEqual(secretRunsIn(log, namespace.clientSecret), []);
    assert.deepEqual(secretRunsIn(log, sandbox.controlToken), []);
    assert.ok(!log.includes('hunter2'), 'user-info masked');
    assert.match(log, /client_secret=\*\*\*/);
  }); // prettier-ignore
});

describe('bounds', () => {
  it('a withdrawal over 1 MiB is answered 413 yet journaled: headers judged, the body its masked start, marked past the limit, never its fields', async () => {
    const namespace = await createNamespace(sandbox, 'oversize');
    const token = await tokenOf(namespace);
    const secret = namespace.clientSecret;
    // The secret straddles the 4 KiB a refused body keeps: masked first, then cut.
    const padding = `${'x'.repeat(4096 - 60)}${secret}${'x'.repeat(2_000_000)}`;
    const body = JSON.stringify({ amount: '0.01', PostBackUrl: '/pix/webhook', padding });
    const headers = Object.fromEntries(
      Object.entries(withdrawalHeaders(namespace, token)).filter(([name]) => name !== 'accept'),
    );
    const announced = await send(`${namespace.baseUrl}/pix/payment`, headers, body);
    assert.equal(announced.status, 413);
    assert.equal(announced.json?.error, 'body_too_large');
    const chunked = await new Promise<number | undefined>((resolve) => {
      const request = httpRequest(`${namespace.baseUrl}/pix/payment`, { method: 'POST', headers });
      request.on('response', (response) => {
        response.resume();
        resolve(response.statusCode);
      });
      request.on('error', () => undefined);
      for (let at = 0; at < body.length; at += 64 * 1024) request.write(body.slice(at, at + 64 * 1024));
      request.end();
    });
    assert.equal(chunked, 413, 'a chunked body without Content-Length too');
    const journal = await journalText('oversize');
    const requests = (JSON.parse(journal.text) as { requests: JournalRequest[] }).requests.slice(1);
    assert.equal(requests.length, 2);
    for (const [request, bytes] of requests.map(
      (r, i) => [r, i === 0 ? Buffer.byteLength(body) : undefined] as const,
    )) {
      assert.equal(request.answer.status, 413);
      assert.equal(request.operation, 'withdraw');
      assert.equal(request.body.limitBytes, 1024 * 1024);
      assert.equal(request.body.truncated, true);
      assert.equal(request.body.value, undefined);
      assert.ok(
        bytes === undefined ? request.body.bytes > 1024 * 1024 : request.body.bytes === bytes,
        `its size: ${request.body.bytes}`,
      );
      assert.ok(
        (request.body.text ?? '').startsWith('{"amount":"0.01","PostBackUrl":"/pix/webhook"'),
        'its start',
      );
      assert.ok((request.body.text ?? '').length <= 4096 + 1, 'cut to what a refused body keeps');
      assert.equal(request.credentials.token, 'valid', 'its headers are judged');
      assert.equal(request.headers.authorization, 'Bearer ***');
      assert.deepEqual(
        request.departures.map((d) => d.code),
        ['accept-missing'],
        'its headers departed, its fields were never judged',
      );
    }
    assert.deepEqual(secretRunsIn(journal.text, secret), [], 'the journal');
  });
});

describe('one console escaping', () => {
  it('an ESC sequence and a line break in a PostBackUrl reach no log line raw; the journal carries no raw C1 byte', async () => {
    const namespace = await createNamespace(sandbox, 'escapes');
    const token = await tokenOf(namespace);
    const url = `${handler.url}/hooks/esc?x=\u001b[2J\u001b]0;owned\u0007\nFORGED LINE\u0085`;
    assert.equal((await send(`${namespace.baseUrl}/pix/payment`, withdrawalHeaders(namespace, token), withdrawalBody(0.01, url))).status, 200);
    await journalDeliveries(sandbox, 'escapes', 1, performance.now() + 5_000);
    assert.deepEqual(lines.filter((line) => CONTROL_CHARACTERS.test(line) || line.includes('\n')), []);
    assert.ok(lines.some((line) => line.includes('\\x1b[2J')), 'shown escaped, not dropped');
    const journal = await journalText('escapes');
    assert.ok(!/[\u0080-\u009f]/.test(journal.text), 'no raw C1 character in the journal text');
    assert.match(journal.text, /\\u0085/);
  }); // prettier-ignore

  it('unknown namespace names are echoed cut and escaped', async () => {
    const long = 'n'.repeat(20_000);
    const answer = await fetch(`${sandbox.url}/ns/${long}/auth/token`, { method: 'POST' });
    assert.equal(answer.status, 404);
    assert.ok((await answer.text()).length < 400);
    const controlled = await control(sandbox, 'GET', `/_sim/namespaces/${long}/journal`);
    assert.equal(controlled.status, 404);
    assert.ok((await controlled.text()).length < 400);
  }); // prettier-ignore
});

describe('trigger', () => {
  let namespace: Namespace;
  let code: string;
  before(async () => {
    namespace = await createNamespace(sandbox, 'trigger-hostile');
    const token = await tokenOf(namespace);
    code = inventWithdrawal().code;
    await send(
      `${namespace.baseUrl}/pix/payment`,
      withdrawalHeaders(namespace, token),
      withdrawalBody(0.01, `${handler.url}/hooks/strict`, code),
    );
  });
  const env = (): Record<string, string> => ({
    PIX_SANDBOX_URL: sandbox.url,
    PIX_SANDBOX_CONTROL_TOKEN: sandbox.controlToken,
  });

  it('refuses a URL that is not http(s), naming the command as typed, and the control API refuses it too', async () => {
    const refused = await sandboxCli(['trigger', code, '--namespace', 'trigger-hostile', '--url', 'file:///etc/passwd'], env());
    assert.equal(refused.code, 2);
    assert.match(refused.stderr, /sandbox(?: --)? trigger: --url must be an absolute http\(s\) URL/);
    const direct = await control(sandbox, 'POST', '/_sim/namespaces/trigger-hostile/trigger', { withdrawal: code, url: 'file:///etc/passwd' });
    assert.equal(direct.status, 400);
  }); // prettier-ignore

  it('--malformed counts a handler’s 4xx as its right answer', async () => {
    handler.answers.set('/hooks/strict', 400);
    const malformed = await sandboxCli(['trigger', code, '--namespace', 'trigger-hostile', '--malformed'], env());
    assert.equal(malformed.code, 0, malformed.stdout + malformed.stderr);
    const valid = await sandboxCli(['trigger', code, '--namespace', 'trigger-hostile'], env());
    assert.equal(valid.code, 1, 'a valid webhook answered 400 is still a failure');
  }); // prettier-ignore
});

describe('reset', () => {
  it('cancels the deliveries still due: none of a withdrawal made before it is sent or journaled after it', async () => {
    const namespace = await createNamespace(sandbox, 'reset-due');
    const token = await tokenOf(namespace);
    // webhook-late: due 30 s (0.3 s at this scale) after the answer.
    assert.equal((await send(`${namespace.baseUrl}/pix/payment`, withdrawalHeaders(namespace, token), withdrawalBody(0.3, `${handler.url}/hooks/before-reset`))).status, 200);
    assert.equal((await control(sandbox, 'POST', '/_sim/namespaces/reset-due/reset')).status, 204);
    const again = await tokenOf(namespace);
    assert.equal((await send(`${namespace.baseUrl}/pix/payment`, withdrawalHeaders(namespace, again), withdrawalBody(0.3, `${handler.url}/hooks/after-reset`))).status, 200);
    // The later one is due after the earlier one: once it came, the earlier one would have.
    await handler.awaitDeliveries('/hooks/after-reset', 1, performance.now() + 5_000);
    assert.equal(handler.at('/hooks/before-reset').length, 0);
    const deliveries = await journalDeliveries(sandbox, 'reset-due', 1, performance.now() + 5_000);
    assert.deepEqual(deliveries.map((d) => new URL(d.url).pathname), ['/hooks/after-reset']);
  }); // prettier-ignore
});
