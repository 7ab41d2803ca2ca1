/**
 * The simulator integrators build against (docs/simulator.md), held to what it promises: each row of
 * `sandbox --outcomes --json`, sent as a valid withdrawal by a plain HTTP client, gets the answer and the
 * webhooks the row says; the control API and `sandbox trigger` work from a shell with the token and
 * refuse without it; namespaces never share state; webhooks leave loopback only for allowed hosts; and
 * thousands of malformed requests never stop it.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createServer } from 'node:http';
import { type AddressInfo, connect, type LookupFunction, type Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import type { OutcomeRow } from '../sandbox/outcomes.ts';
import { LENIENT_STATUS } from '../sandbox/webhook.ts';
import { type RunningSandbox, startSandbox } from '../sandbox/server.ts';
import { inventWithdrawal } from './support/data.ts';
import {
  control,
  createNamespace,
  createNamespaceOn,
  type Delivered,
  Handler,
  type Namespace,
  journalDeliveries,
  sandboxCli,
  send,
  tokenOf,
  withdrawalBody,
  withdrawalHeaders,
} from './support/simulator-client.ts';
const run = promisify(execFile);
/** Every delay of the table, a tenth as long: webhook-late's 30 s become 3 s. */
const TIME_SCALE = 0.1;

let sandbox: RunningSandbox;
const handler = new Handler();

before(async () => {
  await handler.start();
  sandbox = await startSandbox({ timeScale: TIME_SCALE });
});

after(async () => {
  await sandbox.close();
  await handler.close();
});

describe('the outcome table', () => {
  it('--outcomes --json: each row, sent as a valid withdrawal of its amount, gets its answer and its webhooks', async () => {
    const printed = await sandboxCli(['--outcomes', '--json']);
    assert.equal(printed.code, 0, printed.stderr);
    const rows = JSON.parse(printed.stdout) as OutcomeRow[];
    const served = (await (await control(sandbox, 'GET', '/_sim/outcomes')).json()) as OutcomeRow[];
    assert.deepEqual(served.map((r) => [r.name, r.amount, r.status]), rows.map((r) => [r.name, r.amount, r.status]));
    const names: readonly string[] = rows.map((r) => r.name);
    for (const name of ['paid', 'payout-failed', 'refused-400', 'error-500', 'error-500-paid', 'no-answer-paid', 'rate-limited-429', 'unauthorized-401', 'webhook-late', 'webhook-twice', 'out-of-order', 'webhook-retried', 'webhook-malformed', 'webhook-extra-fields'])
      assert.ok(names.includes(name), `the table has no ${name}`);

    // A namespace, the reference profile and a scenario: the table is the same in every one.
    const { clientId, clientSecret, certClient } = sandbox.credentials;
    const targets: Namespace[] = [
      await createNamespace(sandbox, 'outcomes'),
      { name: 'reference', baseUrl: sandbox.url, clientId, clientSecret, certClient },
      { name: 'lenient', baseUrl: `${sandbox.url}/s/lenient`, clientId, clientSecret, certClient },
    ];
    /** The client's time: no-answer-paid holds its answer far longer. */
    const clientTimeoutMs = 2_000;
    await Promise.all(
      targets.flatMap(async (namespace) => {
        const token = await tokenOf(namespace);
        await Promise.all(rows.map(async (row) => {
        const path = `/hooks/${namespace.name}/${row.name}`;
        const label = `${namespace.name}, ${row.name}`;
        // webhook-retried retries only while the handler refuses.
        if (row.name === 'webhook-retried') handler.refused.add(path);
        const answer = await send(`${namespace.baseUrl}/pix/payment`, withdrawalHeaders(namespace, token), withdrawalBody(row.amount, `${handler.url}${path}`), clientTimeoutMs);
        assert.equal(answer.status, row.status, `${label}: the answer`);
        if (row.retryAfterSeconds !== undefined) assert.ok(answer.json !== undefined, `${label}: a JSON refusal`);
        const from = row.status === null ? answer.sentAt : answer.answeredAt;
        const expected = row.webhooks.map((w) => ({ ...w, afterSeconds: w.afterSeconds * TIME_SCALE }));
        const last = Math.max(0, ...expected.map((w) => w.afterSeconds));
        const got = await handler.awaitDeliveries(path, expected.length, from + last * 1000 + 3_000);
        assert.equal(got.length, expected.length, `${label}: ${got.length} webhooks, the row says ${expected.length}`);
        expected.forEach((webhook, i) => {
          const delivered = got[i] as Delivered;
          const seconds = (delivered.at - from) / 1000;
          // Never early; how late depends on the machine's load, so it is bounded by the wait above, not asserted.
          assert.ok(seconds >= webhook.afterSeconds - 0.05, `${label}: webhook ${i + 1} after ${seconds.toFixed(2)} s, the row says ${webhook.afterSeconds} s`);
          if (webhook.kind === 'malformed') {
            assert.throws(() => JSON.parse(delivered.body), SyntaxError, `${label}: a malformed webhook parses`);
            return;
          }
          const payload = JSON.parse(delivered.body) as Record<string, unknown>;
          // The lenient profile reports in its own shape and words ({type, data: {status: 'sucesso'}}).
          const data = payload.data as { status?: string } | undefined;
          const status = payload.status ?? Object.entries(LENIENT_STATUS).find(([, word]) => word === data?.status)?.[0];
          assert.equal(status, webhook.status, `${label}: webhook ${i + 1}'s status`);
          if (webhook.kind === 'extra-fields') assert.ok('fee' in payload && 'schema_version' in payload, `${label}: no extra fields`);
          if (webhook.kind === 'duplicate' || webhook.kind === 'retry')
            assert.equal(delivered.headers['webhook-id'], got[i - 1]?.headers['webhook-id'], `${label}: a copy with another webhook-id`);
        });
        }));
        // Rows without webhooks got none while the others' came.
        for (const row of rows.filter((r) => r.webhooks.length === 0)) assert.equal(handler.at(`/hooks/${namespace.name}/${row.name}`).length, 0, `${namespace.name}, ${row.name}`);
      }),
    );
  }); // prettier-ignore
});

describe('the control API and trigger, from a shell', () => {
  it('works with the token and answers 401 without it', async () => {
    const namespace = await createNamespace(sandbox, 'shell');
    const token = await tokenOf(namespace);
    const { code } = inventWithdrawal();
    handler.refused.add('/hooks/shell-refusing');
    const paid = await send(`${namespace.baseUrl}/pix/payment`, withdrawalHeaders(namespace, token), withdrawalBody(0.01, `${handler.url}/hooks/shell`, code));
    assert.equal(paid.status, 200);
    await handler.awaitDeliveries('/hooks/shell', 1, performance.now() + 5_000);

    const curl = (args: string): Promise<{ stdout: string }> => run('sh', ['-c', `curl -s -w ' %{http_code}' ${args}`], { env: { ...process.env, URL: sandbox.url, TOKEN: sandbox.controlToken } });
    const journal = await curl('-H "Authorization: Bearer $TOKEN" "$URL/_sim/namespaces/shell/journal"');
    assert.match(journal.stdout, / 200$/);
    const parsed = JSON.parse(journal.stdout.replace(/ 200$/, '')) as { requests: { code?: string; departures: unknown[] }[]; deliveries: unknown[] };
    assert.ok(parsed.requests.some((r) => r.code === code && r.departures.length === 0));
    assert.ok(parsed.deliveries.length >= 1);
    assert.doesNotMatch(journal.stdout, new RegExp(`${namespace.clientSecret}|${token}`), 'a credential in the journal');
    for (const path of ['/_sim/namespaces/shell/journal', '/_sim/outcomes']) {
      assert.match((await curl(`"$URL${path}"`)).stdout, / 401$/);
      assert.match((await curl(`-H "Authorization: Bearer wrong-token" "$URL${path}"`)).stdout, / 401$/);
    }
    assert.match((await curl('-X POST -H "Authorization: Bearer wrong" "$URL/_sim/namespaces/shell/reset"')).stdout, / 401$/);

    const env = { PIX_SANDBOX_URL: sandbox.url, PIX_SANDBOX_CONTROL_TOKEN: sandbox.controlToken };
    const fired = await sandboxCli(['trigger', code, '--namespace', 'shell', '--status', 'FAILED', '--copies', '2'], env);
    assert.equal(fired.code, 0, fired.stderr);
    assert.match(fired.stdout, /^webhook POST http:\/\/127\.0\.0\.1:\d+\/hooks\/shell -> 200 \(\d+ ms\) attempt 1\/3$/m);
    assert.equal(fired.stdout.trim().split('\n').length, 2);
    const failed = handler.at('/hooks/shell').filter((d) => (JSON.parse(d.body) as { status: string }).status === 'FAILED');
    assert.equal(failed.length, 2);
    const elsewhere = await sandboxCli(['trigger', code, '--namespace', 'shell', '--url', `${handler.url}/hooks/shell-refusing`], env);
    assert.equal(elsewhere.code, 1, 'a handler that keeps refusing: exit 1');
    assert.match(elsewhere.stdout, /-> 500 \(\d+ ms\) attempt 3\/3$/m);
    const refused = await sandboxCli(['trigger', code, '--namespace', 'shell'], { ...env, PIX_SANDBOX_CONTROL_TOKEN: 'not-the-token-at-all' });
    assert.equal(refused.code, 2);
    assert.match(refused.stderr, /refused the control token/);

    assert.match((await curl('-X POST -H "Authorization: Bearer $TOKEN" "$URL/_sim/namespaces/shell/reset"')).stdout, / 204$/);
    const empty = (await (await control(sandbox, 'GET', '/_sim/namespaces/shell/journal')).json()) as { requests: unknown[] };
    assert.equal(empty.requests.length, 0);
    const stale = await send(`${namespace.baseUrl}/pix/payment`, withdrawalHeaders(namespace, token), withdrawalBody(0.01, `${handler.url}/hooks/shell`));
    assert.equal(stale.status, 401, 'reset forgets the tokens');
  }); // prettier-ignore
});

describe('namespaces', () => {
  it('never share state: the same code is accepted in both; one namespace’s credentials and tokens fail in the other', async () => {
    const [a, b] = await Promise.all([createNamespace(sandbox, 'job-a'), createNamespace(sandbox, 'job-b')]);
    assert.notEqual(a.clientSecret, b.clientSecret);
    assert.deepEqual((await createNamespace(sandbox, 'job-a')).clientSecret, a.clientSecret, 'the same name, the same credentials');
    const [tokenA, tokenB] = await Promise.all([tokenOf(a), tokenOf(b)]);
    const { code } = inventWithdrawal();
    for (const [ns, token] of [[a, tokenA], [b, tokenB]] as const) {
      const answer = await send(`${ns.baseUrl}/pix/payment`, withdrawalHeaders(ns, token), withdrawalBody(0.01, `${handler.url}/hooks/ns`, code));
      assert.equal(answer.status, 200, `${ns.name} refused the code the other took`);
    }
    const again = await send(`${a.baseUrl}/pix/payment`, withdrawalHeaders(a, tokenA), withdrawalBody(0.01, `${handler.url}/hooks/ns`, code));
    assert.equal(again.status, 400, 'a repeated code with check_code true');
    const foreignToken = await send(`${b.baseUrl}/pix/payment`, withdrawalHeaders(b, tokenA), withdrawalBody(0.01, `${handler.url}/hooks/ns`));
    assert.equal(foreignToken.status, 401);
    const foreignCredentials = await send(`${b.baseUrl}/pix/payment`, withdrawalHeaders(a, tokenB), withdrawalBody(0.01, `${handler.url}/hooks/ns`));
    assert.equal(foreignCredentials.status, 403);
    const journalB = (await (await control(sandbox, 'GET', '/_sim/namespaces/job-b/journal')).json()) as { requests: { departures: { code: string }[] }[] };
    assert.equal(journalB.requests.length, 4);
    assert.deepEqual(journalB.requests.at(-1)?.departures.map((d) => d.code), ['client-id-wrong', 'client-secret-wrong']);
  }); // prettier-ignore

  it('teaches the document in a refusal and journals every departure, not only the first', async () => {
    const namespace = await createNamespace(sandbox, 'teach');
    const token = await tokenOf(namespace);
    const body = JSON.stringify({ amount: '0.01', code: 'c', name: 'n', key_type: 'EVP', document: 'd', key_pix: 'k', postbackurl: `${handler.url}/x` });
    const answer = await send(`${namespace.baseUrl}/pix/payment`, { ...withdrawalHeaders(namespace, token), accept: 'text/html' }, body);
    assert.equal(answer.status, 400);
    const departures = answer.json?.departures as { code: string; message: string }[];
    assert.deepEqual(departures.map((d) => d.code), ['accept-not-json', 'field-type', 'field-case']);
    assert.equal(departures[2]?.message, 'PostBackUrl is required (§2.1); this body has postbackurl: field names are case-sensitive.');
    const misspelt = await send(`${namespace.baseUrl}/pix/payment`, { accept: 'application/json', 'client-id': namespace.clientId, 'Client-Secret': namespace.clientSecret, authorization: `Token ${token}` }, `client_secret=${namespace.clientSecret}&cert_client=${namespace.certClient}`);
    assert.equal(misspelt.status, 403);
    const journal = await (await control(sandbox, 'GET', '/_sim/namespaces/teach/journal')).text();
    const requests = (JSON.parse(journal) as { requests: { departures: { code: string; got?: string }[] }[] }).requests;
    assert.equal(requests.at(-2)?.departures.length, 3);
    assert.deepEqual(requests.at(-1)?.departures.map((d) => [d.code, d.got]), [['client-id-missing', 'client-id'], ['client-secret-missing', 'Client-Secret'], ['authorization-not-bearer', undefined], ['body-not-json', undefined]]);
    for (const secret of [namespace.clientSecret, namespace.certClient, token]) assert.ok(!journal.includes(secret), 'a credential in the journal');
  }); // prettier-ignore
});

describe('webhook hosts', () => {
  /** Every name resolves to this machine: the allow-list is tested without leaving 127.0.0.1. */
  const toLoopback: LookupFunction = (_hostname, options, callback) => {
    if (options.all === true) (callback as unknown as (e: null, a: { address: string; family: number }[]) => void)(null, [{ address: '127.0.0.1', family: 4 }]);
    else callback(null, '127.0.0.1', 4);
  }; // prettier-ignore

  it('refuses a host other than loopback unless PIX_SANDBOX_WEBHOOK_HOSTS names it; named, it is sent', async () => {
    const allowing = await startSandbox({ webhookHosts: ['app.ci.internal'], webhookLookup: toLoopback });
    try {
      const port = new URL(handler.url).port;
      for (const [simulator, host, sent] of [[sandbox, 'app.ci.internal', false], [allowing, 'app.ci.internal', true], [allowing, 'other.ci.internal', false]] as const) {
        const namespace = await createNamespaceOn(simulator, 'hosts');
        const token = await tokenOf(namespace);
        const path = `/hooks/hosts-${simulator === sandbox ? 'default' : 'allowing'}-${host}`;
        const answer = await send(`${namespace.baseUrl}/pix/payment`, withdrawalHeaders(namespace, token), withdrawalBody(0.01, `http://${host}:${port}${path}`));
        assert.equal(answer.status, 200, 'the withdrawal is served all the same');
        const deadline = performance.now() + 3_000;
        const journal = (await journalDeliveries(simulator, 'hosts', 1, deadline)).at(-1);
        assert.equal(journal?.answer.status === null ? journal.answer.error : 'sent', sent ? 'sent' : 'host-not-allowed', host);
        assert.equal((await handler.awaitDeliveries(path, 1, sent ? deadline : 0)).length, sent ? 1 : 0);
      }
    } finally {
      await allowing.close();
    }
  }); // prettier-ignore
});

describe('webhook failures', () => {
  it('journals a handler that never answers as timeout at the limit, one that resets as reset, none listening as refused; userinfo goes as Basic', async () => {
    const limitMs = 300;
    const simulator = await startSandbox({ webhookTimeoutMs: limitMs });
    const held: Socket[] = [];
    const silent = createServer((request) => {
      held.push(request.socket);
    });
    const resetting = createServer((request) => request.socket.destroy());
    const closed = createServer();
    try {
      const ports = await Promise.all([silent, resetting, closed].map((server) => new Promise<number>((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)))));
      await new Promise((resolve) => closed.close(resolve));
      const namespace = await createNamespaceOn(simulator, 'failures');
      const token = await tokenOf(namespace);
      const targets = [...ports.map((port, i) => `http://127.0.0.1:${port}/hooks/failure-${i}`), `http://user:p%40ss@${handler.url.slice('http://'.length)}/hooks/userinfo`];
      for (const url of targets) assert.equal((await send(`${namespace.baseUrl}/pix/payment`, withdrawalHeaders(namespace, token), withdrawalBody(0.01, url))).status, 200);
      const deliveries = await journalDeliveries(simulator, 'failures', targets.length, performance.now() + 5_000);
      const byUrl = new Map(deliveries.map((d) => [d.url, d]));
      assert.ok(!JSON.stringify(deliveries).includes('p%40ss'), "the journal masks the URL's user-info");
      assert.deepEqual(targets.map((url) => byUrl.get(url.replace('user:p%40ss@', '***@'))?.answer), [{ status: null, error: 'timeout' }, { status: null, error: 'reset' }, { status: null, error: 'refused' }, { status: 200 }]);
      assert.ok((byUrl.get(targets[0] ?? '')?.durationMs ?? 0) >= limitMs, 'cut before its limit');
      const [delivered] = handler.at('/hooks/userinfo');
      assert.equal(delivered?.headers.authorization, `Basic ${Buffer.from('user:p@ss').toString('base64')}`);
      assert.match(String((JSON.parse(delivered.body) as { end_to_end_id?: unknown }).end_to_end_id), /^E\d{8}\d{12}[A-Z0-9]{11}$/, 'a Pix end-to-end id: E, ISPB, yyyyMMddHHmm, 11 alphanumerics');
    } finally {
      for (const socket of held) socket.destroy();
      await simulator.close();
      for (const server of [silent, resetting]) server.close();
    }
  }); // prettier-ignore
});

describe('bad input', () => {
  /** One raw request on its own connection; resolves when the server closed it or answered. */
  function raw(bytes: string | Buffer, options: { slowMs?: number; end?: boolean } = {}): Promise<void> {
    const { port } = new URL(sandbox.url);
    return new Promise((resolve) => {
      const socket = connect(Number(port), '127.0.0.1');
      const done = (): void => {
        clearTimeout(timer);
        socket.destroy();
        resolve();
      };
      const timer = setTimeout(done, options.slowMs ?? 2_000);
      socket.on('error', done);
      socket.on('close', done);
      socket.on('data', () => {
        if (options.slowMs === undefined) done();
      });
      socket.write(bytes);
      if (options.end === true) socket.end();
    });
  }

  it('2,400 malformed requests, and the next valid withdrawal is still served', async () => {
    const namespace = await createNamespace(sandbox, 'hostile');
    const base = new URL(namespace.baseUrl).pathname;
    /** Garbage and truncated bodies end the connection; the others wait for the answer. */
    const junk = (i: number): string | Buffer => {
      switch (i % 6) {
        case 0:
          return Buffer.from(Array.from({ length: 200 }, (_, j) => (i * 31 + j * 7) % 256));
        case 1:
          return `POST ${base}/pix/payment HTTP/1.1\r\nHost: x\r\nX-Huge: ${'a'.repeat(70_000)}\r\n\r\n`;
        case 2:
          return `POST ${base}/pix/payment HTTP/1.1\r\nHost: x\r\nContent-Length: 500\r\nContent-Type: application/json\r\n\r\n{"amount":0.0`;
        case 3:
          return `POST ${i % 2 === 0 ? '/_sim/namespaces' : `${base}/auth/token`} HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n`;
        case 4:
          return `POST ${base}/pix/payment HTTP/1.1\r\nHost: x\r\nContent-Length: 9\r\n\r\n[[[[[[[[[`;
        default:
          return `GET /ns/%ff%00/../${'x'.repeat(i % 300)} HTTP/1.1\r\nHost: x\r\n\r\n`;
      }
    };
    const total = 2_400;
    const width = 50;
    for (let start = 0; start < total; start += width) {
      await Promise.all(Array.from({ length: width }, (_, k) => raw(junk(start + k), { end: (start + k) % 6 === 0 || (start + k) % 6 === 2 })));
    }
    // Slow bodies: headers, then a trickle that never ends while the valid withdrawal is sent.
    const slow = Array.from({ length: 20 }, () => raw(`POST ${base}/pix/payment HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n{`, { slowMs: 1_500 }));
    const token = await tokenOf(namespace);
    const answer = await send(`${namespace.baseUrl}/pix/payment`, withdrawalHeaders(namespace, token), withdrawalBody(0.01, `${handler.url}/hooks/after-junk`));
    assert.equal(answer.status, 200);
    assert.equal((await handler.awaitDeliveries('/hooks/after-junk', 1, performance.now() + 5_000)).length, 1);
    await Promise.all(slow);
  }); // prettier-ignore
});
