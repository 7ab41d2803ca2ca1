/**
 * The preflight tells a wrong PIX_BASE_URL from a provider that breaks the document, with one line
 * naming the variable, and lets every answer a real provider may give through to the checks.
 */
import assert from 'node:assert/strict';
import { createServer as createTcpServer } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { SCENARIOS } from '../sandbox/scenarios.ts';
import { scenarioUrl, startSandbox, type RunningSandbox } from '../sandbox/server.ts';
import { preflight } from '../src/preflight/preflight.ts';
import { checkCredentials } from '../src/preflight/credentials.ts';
import { loadConfig, type Config } from '../src/config/config.ts';
import { closing, json, listen, routerNotFound, serve, type Handler } from './support/answering-double.ts';
import { DOUBLE_CREDENTIALS } from './support/provider-double.ts';
import {
  certificateAuthority,
  pkcs12,
  selfSigned,
  type Authority,
  type Certificate,
} from './support/certificates.ts';
import type { TlsSettings } from '../src/transport/tls.ts';
import { ConfigError } from '../src/config/errors.ts';
import { PreflightError, TRUST_FIX } from '../src/preflight/errors.ts';

/** The one-line message preflight stops with, or undefined when it lets the run go on. */
async function verdict(
  baseUrl: string,
  {
    timeoutMs = 5_000,
    tls = {},
    variable = 'PIX_BASE_URL',
  }: { timeoutMs?: number; tls?: TlsSettings; variable?: string } = {},
): Promise<string | undefined> {
  try {
    await preflight(baseUrl, timeoutMs, tls);
    return undefined;
  } catch (error) {
    assert.ok(error instanceof PreflightError, `expected a PreflightError, got ${String(error)}`);
    assert.ok(error instanceof ConfigError, 'certify stops on it as on any configuration problem');
    assert.equal(error.variable, variable, error.message);
    assert.ok(error.message.startsWith(`${variable}: `), 'the line names its variable first');
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

  it('asks the made-up path with a time-out of its own: a slow first answer leaves it its whole time', async (t) => {
    // The token path answers after 70% of the time-out, the made-up one after 40%: sharing one deadline, the second would time out.
    const slowFirst: Handler = (path, res) => {
      setTimeout(() => routerNotFound(path, res), path.endsWith('/auth/token') ? 700 : 400);
    };
    const double = await serve(slowFirst);
    t.after(() => double.close());
    assert.match(
      (await verdict(`${double.url}/wrong`, { timeoutMs: 1_000 })) ?? '',
      /the same answer as a made-up path/,
    );
  });

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
    const message = await verdict(`${double.url.replace('http:', 'https:')}/api/v2`);
    assert.match(message ?? '', /^PIX_BASE_URL: 127\.0\.0\.1:\d+ answers in plain HTTP, not TLS/);
    assert.match(
      message ?? '',
      /or http:\/\/127\.0\.0\.1:\d+\/api\/v2 if the environment really serves plain http/,
    );
    assert.deepEqual(double.received, [], 'nothing was sent in clear');
  });

  it('an untrusted, self-signed certificate, and nothing is sent', async (t) => {
    const double = await serve(routerNotFound, valid);
    t.after(() => double.close());
    const message = await verdict(double.url, { variable: 'PIX_CA_FILE' });
    assert.match(message ?? '', /the certificate of 127\.0\.0\.1 is not trusted \(self-signed/);
    assert.ok(message?.endsWith(TRUST_FIX), message);
    assert.match(TRUST_FIX, /set PIX_CA_FILE to its certificate/);
    assert.deepEqual(double.received, []);
  });

  it('a trusted certificate: the probe goes through', async (t) => {
    const double = await serve((_, res) => json(res, 401, {}), valid);
    t.after(() => double.close());
    assert.equal(await verdict(double.url, { tls: { ca: valid.cert } }), undefined);
    assert.equal(double.received.length, 1);
  });

  it('a certificate for another host name', async (t) => {
    const other = selfSigned({ names: ['pix.other.example'] });
    const double = await serve(routerNotFound, other);
    t.after(() => double.close());
    const message = await verdict(double.url, { tls: { ca: other.cert } });
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
    const message = await verdict(double.url, { tls: { ca: expired.cert } });
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

describe('preflight: private CAs and mutual TLS, one line naming the variable that fixes it', () => {
  let ca: Authority;
  let server: Certificate;
  let client: Certificate;
  let stranger: Certificate;
  const passphrase = 'preflight-pfx-passphrase';
  before(() => {
    ca = certificateAuthority('Preflight Test CA');
    server = ca.issue({ names: ['127.0.0.1'] });
    client = ca.issue({ client: '/CN=integrator' });
    stranger = certificateAuthority('Another CA').issue({ client: '/CN=stranger' });
  });

  /** A gateway that demands a client certificate `ca` signed, in the handshake. */
  const gateway = (maxVersion: 'TLSv1.2' | 'TLSv1.3' = 'TLSv1.3') =>
    serve((_, res) => json(res, 401, {}), {
      ...server,
      ca: ca.cert,
      requestCert: true,
      rejectUnauthorized: true,
      maxVersion,
    });

  it('trusts a private CA beside the public ones, and presents a PEM certificate or a PFX', async (t) => {
    const double = await gateway();
    t.after(() => double.close());
    assert.equal(await verdict(double.url, { tls: { ca: ca.cert, ...client } }), undefined);
    const pfx = pkcs12(client, passphrase);
    assert.equal(await verdict(double.url, { tls: { ca: ca.cert, pfx, passphrase } }), undefined);
    assert.equal(double.received.length, 2);
  });

  it('a server certificate from a CA other than PIX_CA_FILE', async (t) => {
    const double = await gateway();
    t.after(() => double.close());
    const other = certificateAuthority('Not the server CA');
    const message = await verdict(double.url, {
      tls: { ca: other.cert, ...client },
      variable: 'PIX_CA_FILE',
    });
    assert.match(
      message ?? '',
      /the certificate of 127\.0\.0\.1 is not trusted \(issued by Preflight Test CA, [A-Z_]+\), not even with the CA in PIX_CA_FILE/,
    );
    assert.deepEqual(double.received, []);
  });

  for (const version of ['TLSv1.3', 'TLSv1.2'] as const) {
    it(`no client certificate, ${version}: the server wants one`, async (t) => {
      const double = await gateway(version);
      t.after(() => double.close());
      const message = await verdict(double.url, { tls: { ca: ca.cert }, variable: 'PIX_TLS_CERT_FILE' });
      // TLS 1.3 names the reason in its alert, after the handshake; TLS 1.2 only fails the handshake.
      const why =
        version === 'TLSv1.3'
          ? 'TLS alert: certificate required'
          : 'TLS alert: handshake failure, most likely for want of one';
      assert.equal(
        message,
        `PIX_TLS_CERT_FILE: is not set, but ${new URL(double.url).host} wants a client certificate (${why}). Set PIX_TLS_CERT_FILE and PIX_TLS_KEY_FILE (PEM), or PIX_TLS_PFX_FILE and PIX_TLS_PASSPHRASE, to the client certificate the provider issued you.`,
      );
      assert.deepEqual(double.received, []);
    });
  }

  it('a client certificate from a CA the server does not trust', async (t) => {
    const double = await gateway();
    t.after(() => double.close());
    const message = await verdict(double.url, {
      tls: { ca: ca.cert, ...stranger },
      variable: 'PIX_TLS_CERT_FILE',
    });
    assert.match(
      message ?? '',
      /^PIX_TLS_CERT_FILE: 127\.0\.0\.1:\d+ refused the client certificate presented \(it closed the connection after the TLS handshake without answering/,
    );
    assert.deepEqual(double.received, []);
  });

  it('a proxy that checks the certificate after the handshake and answers 400 (nginx)', async (t) => {
    const page = '<html><head><title>400 No required SSL certificate was sent</title></head></html>';
    const double = await serve(
      (_, res) => res.writeHead(400, { 'content-type': 'text/html' }).end(page),
      server,
    );
    t.after(() => double.close());
    const message = await verdict(double.url, { tls: { ca: ca.cert }, variable: 'PIX_TLS_CERT_FILE' });
    assert.match(message ?? '', /wants a client certificate \(400: No required SSL certificate was sent\)/);
  });

  it('a key that does not match the certificate, found before any connection', async () => {
    const closed = await serve(routerNotFound);
    await closed.close();
    const message = await verdict(closed.url.replace('http:', 'https:'), {
      tls: { ca: ca.cert, cert: client.cert, key: stranger.key },
      variable: 'PIX_TLS_KEY_FILE',
    });
    // Connecting would have said ECONNREFUSED: nothing nobody listens on was even tried.
    assert.equal(
      message,
      'PIX_TLS_KEY_FILE: does not match the certificate in PIX_TLS_CERT_FILE (their public keys differ). Give the private key that belongs to that certificate.',
    );
  });
});

describe('the credentials check: our mistake, or the run’s first token', () => {
  const configFor = (baseUrl: string): Config => loadConfig({ PIX_BASE_URL: baseUrl, ...DOUBLE_CREDENTIALS });
  const answers: [string, Handler, string | undefined][] = [
    ['a token at PIX_TOKEN_FIELD', (_, res) => json(res, 200, { access_token: 'the-first-token' }), 'the-first-token'],
    ['a 200 without a token', (_, res) => json(res, 200, { token: 'elsewhere' }), undefined],
    ['an empty token', (_, res) => json(res, 200, { access_token: '' }), undefined],
    ['a token with a 201', (_, res) => json(res, 201, { access_token: 'not-issued-as-documented' }), undefined],
    ['a 500', (_, res) => json(res, 500, { access_token: 'in-an-error' }), undefined],
  ]; // prettier-ignore
  for (const [what, handler, token] of answers) {
    it(`hands on ${token === undefined ? 'no token' : 'the token'} after ${what}`, async (t) => {
      const double = await serve(handler);
      t.after(() => double.close());
      const before = Date.now();
      const issued = await checkCredentials(configFor(double.url));
      assert.equal(issued?.token, token);
      if (issued !== undefined) assert.ok(issued.issuedAt >= before && issued.issuedAt <= Date.now());
      assert.equal(double.received.length, 1, 'one token request');
    });
  }

  it('stops the run naming PIX_CLIENT_ID when the credentials are refused', async (t) => {
    const double = await serve((_, res) => json(res, 403, { error: 'forbidden' }));
    t.after(() => double.close());
    await assert.rejects(
      checkCredentials(configFor(double.url)),
      (error) => error instanceof ConfigError && error.variable === 'PIX_CLIENT_ID',
    );
  });
});
