/**
 * The preflight tells a wrong PIX_BASE_URL from a provider that breaks the document, with one line
 * naming the variable, and lets every answer a real provider may give through to the checks.
 */
import assert from 'node:assert/strict';
import { createServer as createTcpServer } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { SCENARIOS } from '../sandbox/scenarios.ts';
import { scenarioUrl, startSandbox, type RunningSandbox } from '../sandbox/server.ts';
import { ConfigError } from '../tests/_support/config.ts';
import { preflight, PreflightError, TRUST_FIX } from '../tests/_support/preflight.ts';
import { closing, json, listen, routerNotFound, serve, type Handler } from './support/answering-double.ts';
import { selfSigned, type Certificate } from './support/certificates.ts';

/** The one-line message preflight stops with, or undefined when it lets the run go on. */
async function verdict(
  baseUrl: string,
  { timeoutMs = 5_000, ca }: { timeoutMs?: number; ca?: string } = {},
): Promise<string | undefined> {
  try {
    await preflight(baseUrl, timeoutMs, ca === undefined ? {} : { ca });
    return undefined;
  } catch (error) {
    assert.ok(error instanceof PreflightError, `expected a PreflightError, got ${String(error)}`);
    assert.ok(error instanceof ConfigError, 'certify stops on it as on any configuration problem');
    assert.equal(error.variable, 'PIX_BASE_URL');
    assert.equal(error.message.split('\n').length, 1, 'one line');
    return error.message;
  }
}

describe('preflight: what a provider may answer goes on to the checks', () => {
  const answers: [string, Handler][] = [
    ['403 JSON, as §5.4 names', (_, res) => json(res, 403, { error: 'forbidden' })],
    ['401 JSON', (_, res) => json(res, 401, { message: 'unauthorized' })],
    ['400 as text', (_, res) => res.writeHead(400, { 'content-type': 'text/plain' }).end('missing client_id')],
    ["400 as an app server's HTML error page", (_, res) => res.writeHead(400, { 'content-type': 'text/html' }).end('<!doctype html><h1>HTTP Status 400</h1>')],
    ['500 JSON', (_, res) => json(res, 500, { error: 'internal' })],
    ['a gateway error page (502, HTML)', (_, res) => res.writeHead(502, { 'content-type': 'text/html' }).end('<html>Bad gateway</html>')],
    ['a token without credentials (200)', (_, res) => json(res, 200, { access_token: 'x' })],
    [
      "the provider's own JSON 404, unlike its router's",
      (path, res) => {
        if (path.endsWith('/auth/token')) json(res, 404, { error: 'client_not_found', message: 'client_id not informed' });
        else routerNotFound(path, res);
      },
    ],
  ]; // prettier-ignore
  for (const [what, handler] of answers) {
    it(`lets ${what} through`, async (t) => {
      const double = await serve(handler);
      t.after(() => double.close());
      assert.equal(await verdict(`${double.url}/v1`), undefined);
      const first = double.received[0];
      assert.equal(first?.method, 'POST');
      assert.equal(first.path, '/v1/auth/token');
      assert.equal(first.body, '', 'no body');
      for (const credential of ['client_id', 'client_secret', 'cert_client', 'authorization'])
        assert.equal(first.headers[credential], undefined, `no ${credential}`);
    });
  }
});

describe('preflight: nothing of this interface answers', () => {
  const mistakes: [string, Handler, RegExp][] = [
    ['a wrong base path on a JSON router (404 like any path)', routerNotFound, /got 404, the same answer as a made-up path/],
    ['a 404 page in plain text', (_, res) => res.writeHead(404, { 'content-type': 'text/plain' }).end('Not Found'), /got 404 \(text\/plain\)/],
    ['a 405', (_, res) => json(res, 405, { error: 'method not allowed' }), /got 405/],
    ['an HTML page on the token path', (_, res) => res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end('<!doctype html><title>Portal</title>'), /got a web page \(200, HTML\)/],
    ['a redirect', (_, res) => res.writeHead(301, { location: 'https://api.example.com/v2/auth/token' }).end(), /got a redirect \(301\) to https:\/\/api\.example\.com\/v2\/auth\/token/],
  ]; // prettier-ignore
  for (const [what, handler, expected] of mistakes) {
    it(`stops on ${what}, naming PIX_BASE_URL and the URL tried`, async (t) => {
      const double = await serve(handler);
      t.after(() => double.close());
      const message = await verdict(`${double.url}/wrong`);
      assert.match(message ?? '', expected);
      assert.ok(
        message?.startsWith(
          `PIX_BASE_URL: nothing of this interface answers at ${double.url}/wrong: POST ${double.url}/wrong/auth/token got`,
        ),
        message,
      );
    });
  }

  it('never shows the user-info of the base URL', async (t) => {
    const double = await serve(routerNotFound);
    t.after(() => double.close());
    const message = await verdict(double.url.replace('//', '//user:s3cret-canary@'));
    assert.ok(message !== undefined && !message.includes('s3cret-canary'), message);
  });
});

describe('preflight against the sandbox, our reference provider', () => {
  let sandbox: RunningSandbox;
  before(async () => {
    sandbox = await startSandbox();
  });
  after(() => sandbox.close());

  it('lets every reading and every fault through to the checks', async () => {
    for (const { name } of SCENARIOS)
      assert.equal(await verdict(scenarioUrl(sandbox, name)), undefined, name);
  });

  for (const wrong of ['/s/reference/v1', '/v1', '/s/no-such-scenario']) {
    it(`stops on the wrong base path ${wrong}`, async () => {
      assert.match(
        (await verdict(`${sandbox.url}${wrong}`)) ?? '',
        /got 404, the same answer as a made-up path/,
      );
    });
  }
});

describe('preflight: transport and TLS, one line each with the fix', () => {
  let valid: Certificate;
  before(() => {
    valid = selfSigned();
  });

  it('an https:// URL to a plain-http port', async (t) => {
    const double = await serve(routerNotFound);
    t.after(() => double.close());
    const message = await verdict(double.url.replace('http:', 'https:'));
    assert.match(message ?? '', /^PIX_BASE_URL: 127\.0\.0\.1:\d+ answers in plain HTTP, not TLS/);
    assert.match(message ?? '', /http:\/\/127\.0\.0\.1:\d+/);
    assert.deepEqual(double.received, [], 'nothing was sent in clear');
  });

  it('an untrusted, self-signed certificate, and nothing is sent', async (t) => {
    const double = await serve(routerNotFound, valid);
    t.after(() => double.close());
    const message = await verdict(double.url);
    assert.match(message ?? '', /the certificate of 127\.0\.0\.1 is not trusted \(self-signed/);
    assert.ok(message?.endsWith(TRUST_FIX), message);
    assert.deepEqual(double.received, []);
  });

  it('a trusted certificate: the probe goes through', async (t) => {
    const double = await serve((_, res) => json(res, 401, {}), valid);
    t.after(() => double.close());
    assert.equal(await verdict(double.url, { ca: valid.cert }), undefined);
    assert.equal(double.received.length, 1);
  });

  it('a certificate for another host name', async (t) => {
    const other = selfSigned({ names: ['pix.other.example'] });
    const double = await serve(routerNotFound, other);
    t.after(() => double.close());
    const message = await verdict(double.url, { ca: other.cert });
    assert.match(
      message ?? '',
      /the certificate of 127\.0\.0\.1 is for DNS:pix\.other\.example, not for 127\.0\.0\.1/,
    );
    assert.deepEqual(double.received, []);
  });

  it('an expired certificate', async (t) => {
    const expired = selfSigned({ expired: true });
    const double = await serve(routerNotFound, expired);
    t.after(() => double.close());
    const message = await verdict(double.url, { ca: expired.cert });
    assert.match(message ?? '', /the certificate of 127\.0\.0\.1 expired on Jan {2}2 00:00:00 2020 GMT/);
  });

  it('a connection refused', async () => {
    const closed = await serve(routerNotFound);
    await closed.close();
    assert.match((await verdict(closed.url)) ?? '', /could not connect to 127\.0\.0\.1:\d+: ECONNREFUSED/);
  });

  describe('a server that accepts and never answers', () => {
    const silent = createTcpServer((socket) => socket.resume());
    let url = '';
    before(async () => {
      url = await listen(silent, 'http');
    });
    after(closing(silent));

    it('is bounded by PIX_REQUEST_TIMEOUT_MS', async () => {
      assert.match(
        (await verdict(url, { timeoutMs: 300 })) ?? '',
        /did not answer within 300 ms \(time-out\).*PIX_REQUEST_TIMEOUT_MS/,
      );
    });
  });
});
