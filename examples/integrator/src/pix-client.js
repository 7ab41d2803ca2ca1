// A Pix withdrawal client as an integrator writes it: one token reused until it nears the lifetime the
// provider stated (7200 s unless expires_in says less), renewed once on a 401, Retry-After honoured on
// every 429, and after a 5xx or a lost answer the very same code resent with check_code true (never a
// new code: that could pay twice). Its timeout outlasts slow answers; it never takes PROCESSING as final.
import { generateKeyPairSync } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { FAULT } from './faults.js';

const TOKEN_LIFETIME_S = 7200;
// Renew a minute before the stated end, or at two thirds of a lifetime shorter than three minutes.
const RENEW_MARGIN_MS = 60_000;
// timeout-new-code: a timeout shorter than a slow provider's answers, and a new code after it.
const REQUEST_TIMEOUT_MS = FAULT === 'timeout-new-code' ? 2000 : 5000;
// A rate-limited provider may answer 429 several times in a row; each Retry-After is waited out.
const MAX_RATE_LIMITED = 5;
// http-remote-host: a plain http base URL naming a host beyond this machine (a reserved name that here
// resolves to loopback, as a hosts-file line would make it), so credentials would cross a network.
const REMOTE_HOST = 'pix-provider.test';

function toLoopback(_hostname, options, callback) {
  if (options.all) callback(null, [{ address: '127.0.0.1', family: 4 }]);
  else callback(null, '127.0.0.1', 4);
}

/** fetch's POST, to REMOTE_HOST on the base URL's port: fetch resolves names only its own way. */
function postToRemoteHost(url, { headers, body, signal }) {
  const remote = new URL(url);
  remote.hostname = REMOTE_HOST;
  return new Promise((resolve, reject) => {
    const sent = httpRequest(remote, { method: 'POST', headers, signal, lookup: toLoopback }, (answer) => {
      const chunks = [];
      answer.on('data', (chunk) => chunks.push(chunk));
      answer.on('error', reject);
      answer.on('end', () => {
        const pairs = answer.rawHeaders.flatMap((name, i) =>
          i % 2 === 0 ? [[name, answer.rawHeaders[i + 1]]] : [],
        );
        resolve(new Response(Buffer.concat(chunks), { status: answer.statusCode, headers: pairs }));
      });
    });
    sent.on('error', reject);
    sent.end(body);
  });
}

const post = (url, init) =>
  FAULT === 'http-remote-host' ? postToRemoteHost(url, init) : fetch(url, { ...init, method: 'POST' });

export class UnknownOutcome extends Error {}

export class PixClient {
  constructor(env = process.env) {
    this.baseUrl = env.PIX_BASE_URL;
    this.clientId = env.PIX_CLIENT_ID;
    this.clientSecret = env.PIX_CLIENT_SECRET;
    this.certClient = env.PIX_CERT_CLIENT;
    this.token = undefined;
    this.renewAt = 0;
    // After a 429, no request of any kind before Retry-After has passed.
    this.notBefore = 0;
  }

  async paced() {
    const wait = this.notBefore - Date.now();
    if (wait > 0 && FAULT !== 'ignore-retry-after') await new Promise((resolve) => setTimeout(resolve, wait));
  }

  certHeader() {
    if (FAULT === 'private-key-cert') {
      const { privateKey } = generateKeyPairSync('ed25519');
      return Buffer.from(privateKey.export({ type: 'pkcs8', format: 'pem' })).toString('base64');
    }
    if (FAULT === 'cert-not-base64')
      return Buffer.from(this.certClient, 'base64').toString('utf8').replace(/\s+/g, ' ');
    return this.certClient;
  }

  /** POST, sent again after each 429 once its Retry-After has passed, a few times at most. */
  async postPaced(url, init) {
    for (let limited = 0; ; limited += 1) {
      await this.paced();
      const response = await post(url, { ...init, signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
      if (response.status !== 429 || limited === MAX_RATE_LIMITED) return response;
      this.notBefore = Date.now() + Number(response.headers.get('retry-after') ?? 1) * 1000;
      await response.body?.cancel();
    }
  }

  async requestToken() {
    const headers = { client_id: this.clientId, cert_client: this.certHeader() };
    if (FAULT !== 'no-accept-token') headers.Accept = 'application/json';
    if (FAULT === 'token-client-id-hyphen') {
      headers['client-id'] = headers.client_id;
      delete headers.client_id;
    }
    const response = await this.postPaced(`${this.baseUrl}/auth/token`, { headers });
    if (response.status !== 200)
      throw new Error(`token request answered ${response.status}: ${await response.text()}`);
    const answer = await response.json();
    // The provider names its token field (PIX_TOKEN_FIELD) and may state a shorter life than 7200 s.
    this.token = answer[process.env.PIX_TOKEN_FIELD || 'access_token'];
    const stated = Number(answer.expires_in ?? answer.expiresIn);
    const lifetimeMs =
      1000 *
      (FAULT !== 'ignore-expires-in' && stated > 0 ? Math.min(stated, TOKEN_LIFETIME_S) : TOKEN_LIFETIME_S);
    this.renewAt = Date.now() + lifetimeMs - Math.min(RENEW_MARGIN_MS, lifetimeMs / 3);
    return this.token;
  }

  async validToken() {
    const fresh = this.token !== undefined && Date.now() < this.renewAt;
    return fresh && FAULT !== 'token-per-withdrawal' ? this.token : this.requestToken();
  }

  headers(token) {
    const headers = {
      'content-type': 'application/json',
      client_id: this.clientId,
      client_secret: this.clientSecret,
      Authorization: `Bearer ${token}`,
    };
    if (FAULT === 'no-bearer') headers.Authorization = token;
    if (FAULT === 'no-client-secret') delete headers.client_secret;
    if (FAULT !== 'no-accept') headers.accept = 'application/json';
    if (FAULT === 'body-form') headers['content-type'] = 'application/x-www-form-urlencoded';
    return headers;
  }

  body(payment) {
    const body = {
      amount: payment.amount,
      code: payment.code,
      name: payment.name,
      key_type: payment.keyType,
      document: payment.document,
      key_pix: payment.keyPix,
      PostBackUrl: payment.postBackUrl,
      check_code: payment.checkCode ?? true,
    };
    if (FAULT === 'postbackurl-case') {
      body.postbackurl = body.PostBackUrl;
      delete body.PostBackUrl;
    }
    if (FAULT === 'amount-string') body.amount = body.amount.toFixed(2);
    if (FAULT === 'check-code-string') body.check_code = String(body.check_code);
    if (FAULT === 'postback-relative') body.PostBackUrl = new URL(body.PostBackUrl).pathname;
    if (FAULT === 'no-document') delete body.document;
    if (FAULT === 'key-type-lowercase') body.key_type = body.key_type.toLowerCase();
    if (FAULT === 'body-form')
      return new URLSearchParams(Object.entries(body).map(([k, v]) => [k, String(v)])).toString();
    return JSON.stringify(body);
  }

  /** One POST /pix/payment; `null` status when no answer came in time. */
  async send(payment) {
    const path = FAULT === 'wrong-path' ? '/pix/payments' : '/pix/payment';
    try {
      const response = await this.postPaced(`${this.baseUrl}${path}`, {
        headers: this.headers(await this.validToken()),
        body: this.body(payment),
      });
      return { status: response.status, body: await response.text() };
    } catch (error) {
      if (error.name === 'TimeoutError' || error.name === 'AbortError') return { status: null };
      throw error;
    }
  }

  /** A withdrawal, resolved with its final answer's status; UnknownOutcome when it may or may not be paid. */
  async withdraw(payment) {
    let answer = await this.send(payment);
    // renew-loop: the fault of a client that renews and resends until the 401 goes away (bounded here).
    for (let tries = 0; answer.status === 401 && tries < (FAULT === 'renew-loop' ? 4 : 1); tries += 1) {
      this.token = undefined;
      answer = await this.send(payment);
    }
    if (answer.status === null || answer.status >= 500) {
      const newCode =
        FAULT === 'new-code-after-5xx' || (FAULT === 'timeout-new-code' && answer.status === null);
      const again = newCode
        ? { ...payment, code: `${payment.code}-retry` }
        : { ...payment, checkCode: FAULT !== 'resend-without-check-code' };
      const second = await this.send(again);
      // 400 to the same code with check_code true: the first try was recorded, so it was processed.
      if (second.status === 400 && /duplicate/i.test(second.body ?? ''))
        return { status: 200, recovered: true };
      if (second.status === null || second.status >= 500)
        throw new UnknownOutcome(`withdrawal ${payment.code}: outcome unknown`);
      return second;
    }
    return answer;
  }
}
