/**
 * A provider that misbehaves on purpose, one switch per hostile behaviour of issue #13: it echoes
 * our secrets back in every form, issues tokens where it should refuse, answers with bodies that
 * are huge, endless or decompression bombs, writes terminal escapes, and mistreats the webhook
 * receiver. It records every request as it arrived (headers in order and spelling), and every
 * secret and token it knows, so a test can search the run's files and output for all of them.
 */
import { randomBytes } from 'node:crypto';
import { createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';

export interface HostileSwitches {
  /** Accepted withdrawals answer with the client_secret or the bearer token as their id, in turn. */
  readonly secretAsWithdrawalId?: boolean;
  /** Refusals echo the request's headers. */
  readonly echoHeaders?: boolean;
  /** Refusals carry a secret across the 300th character of their body. */
  readonly secretAcross300?: boolean;
  /** Refusals echo every token issued so far, to whichever worker asked. */
  readonly echoAllTokens?: boolean;
  /** Token requests with wrong credentials still get a token, as JSON, text/plain or the bare body. */
  readonly tokenForNegativeCases?: boolean;
  /** Refusals echo tokens and secrets in base64 (alone, shifted, as Basic client_id:client_secret) and URL-encoded. */
  readonly encodedEcho?: boolean;
  /** Refusals use the latest token as a JSON member name. */
  readonly tokenAsKey?: boolean;
  /** Token answers carry a refresh_token and an id_token, which refusals echo too. */
  readonly refreshTokens?: boolean;
  /** Refusals echo cert_client's decoded PEM and its inner base64 body. */
  readonly pemEcho?: boolean;
  /** Bodies carry ESC[2J, an OSC title, conceal, and U+FFFE/U+FFFF. */
  readonly escapes?: boolean;
  /** Token requests without Accept get a 500, so that the report carries their reproduction. */
  readonly failWithoutAccept?: boolean;
  /** The first valid withdrawal with a code is answered with a 200 MB body. */
  readonly hugeBody?: boolean;
  /** Token requests without client_id get a body that never ends. */
  readonly endlessBody?: boolean;
  /** Token requests without cert_client get a 3 MB gzip bomb (about 3 GB decompressed). */
  readonly gzipBomb?: boolean;
  /** Valid token answers carry 200,000 more fields. */
  readonly manyFields?: boolean;
  /** Accepted withdrawals' webhooks: headers and half the body, then the connection drops. */
  readonly webhookHalfBody?: boolean;
  /** Accepted withdrawals' webhooks: a body over the receiver's limit (it answers 413). */
  readonly webhookOversize?: boolean;
  /** After the first accepted withdrawal, this many deliveries to random paths of the receiver. */
  readonly strayDeliveries?: number;
}

export interface HostileCredentials {
  readonly clientId: string;
  readonly clientSecret: string;
  /** cert_client as sent: base64 of the PEM. */
  readonly certClient: string;
  /** User-info the suite is given in PIX_BASE_URL. */
  readonly user: string;
  readonly password: string;
}

export interface ReceivedRequest {
  readonly method: string;
  readonly path: string;
  /** Header names and values in the order and spelling they arrived. */
  readonly headers: readonly (readonly [string, string])[];
  readonly body: string;
}

export interface HostileDouble {
  /** With the credentials' user-info, as a careless integrator would configure it. */
  readonly url: string;
  readonly received: ReceivedRequest[];
  /** Every access, refresh and id token it issued. */
  readonly issued: string[];
  /** Codes of the withdrawals it answered with the huge body. */
  readonly hugeBodyCodes: string[];
  /** Stray deliveries the receiver answered, so that reached it while the run was on. */
  readonly straysAnswered: () => number;
  close(): Promise<void>;
}

const HUGE_BODY_BYTES = 200 * 1024 * 1024;
const ENDLESS_SAFETY_BYTES = 2 * 1024 * 1024 * 1024;
const MANY_FIELDS = 200_000;
/** Where a secret starts in a refusal's text, so that it crosses the 300th character. */
const ACROSS = 296;
const ESCAPES = '\x1b[2J\x1b]0;certified\x07\x1b[8mhidden verdict\x1b[28m \uFFFE\uFFFF';
const WEBHOOK_OVERSIZE_BYTES = 2 * 1024 * 1024;

/** Gzip members of zeros, concatenated: a valid 3 MB gzip stream that inflates to about 3 GB. */
function gzipBomb(): Buffer {
  const member = gzipSync(Buffer.alloc(10 * 1024 * 1024), { level: 9 });
  return Buffer.concat(Array.from({ length: Math.ceil((3 * 1024 * 1024) / member.length) }, () => member));
}

const headerOf = (req: IncomingMessage, name: string): string | undefined => {
  const value = req.headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
};

function pairs(raw: readonly string[]): [string, string][] {
  const out: [string, string][] = [];
  for (let i = 0; i + 1 < raw.length; i += 2) out.push([raw[i] ?? '', raw[i + 1] ?? '']);
  return out;
}

/** Writes `total` bytes (or until the client leaves), respecting backpressure. */
function stream(res: ServerResponse, total: number, chunk: Buffer): void {
  let sent = 0;
  let gone = false;
  res.on('close', () => (gone = true));
  const pump = (): void => {
    while (!gone && sent < total) {
      sent += chunk.length;
      if (!res.write(chunk)) {
        res.once('drain', pump);
        return;
      }
    }
    if (!gone) res.end();
  };
  pump();
}

/**
 * POSTs a body, or only its first `cutAfter` bytes before dropping the connection; settles either
 * way, with whether an answer came.
 */
function post(
  url: string,
  headers: Record<string, string>,
  body: Buffer,
  cutAfter?: number,
): Promise<boolean> {
  return new Promise((resolve) => {
    const req = request(url, {
      method: 'POST',
      headers: { ...headers, 'content-length': String(body.length) },
    });
    let answered = false;
    req.on('error', () => resolve(answered));
    req.on('close', () => resolve(answered));
    req.on('response', (res) => {
      answered = true;
      res.resume();
    });
    if (cutAfter === undefined) req.end(body);
    else req.write(body.subarray(0, cutAfter), () => req.destroy());
  });
}

/** Deliveries to random paths of the receiver, a few at a time so that the double's sockets stay bounded. */
async function flood(origin: string, count: number, payload: Buffer, onAnswered: () => void): Promise<void> {
  let sent = 0;
  const one = async (): Promise<void> => {
    while (sent < count) {
      sent += 1;
      const answered = await post(
        `${origin}/${randomBytes(16).toString('hex')}`,
        { 'content-type': 'application/json' },
        payload,
      );
      if (answered) onAnswered();
    }
  };
  await Promise.all(Array.from({ length: 32 }, one));
}

export async function startHostileDouble(
  credentials: HostileCredentials,
  switches: HostileSwitches,
): Promise<HostileDouble> {
  const received: ReceivedRequest[] = [];
  const issued: string[] = [];
  const accessTokens = new Set<string>();
  const hugeBodyCodes: string[] = [];
  const bomb = switches.gzipBomb === true ? gzipBomb() : Buffer.alloc(0);
  const pem = Buffer.from(credentials.certClient, 'base64').toString('utf8');
  let negativeAnswers = 0;
  let refusals = 0;
  let accepted = 0;
  let strayFloodSent = false;
  let straysAnswered = 0;

  const issue = (): { access_token: string; refresh_token?: string; id_token?: string } => {
    const token = `hostile-token-${randomBytes(12).toString('hex')}`;
    accessTokens.add(token);
    issued.push(token);
    if (switches.refreshTokens !== true) return { access_token: token };
    const refresh = `hostile-refresh-${randomBytes(12).toString('hex')}`;
    const id = `hostile-id-${randomBytes(12).toString('hex')}`;
    issued.push(refresh, id);
    return { access_token: token, refresh_token: refresh, id_token: id };
  };

  const send = (res: ServerResponse, status: number, type: string, body: string): void => {
    res.writeHead(status, { 'content-type': type }).end(body);
  };

  /**
   * A refusal that leaks whatever the switches say, as JSON or, every other time, as text/plain. Escapes
   * and the secret across the 300th character come first, where a description of the body shows them.
   */
  const refuse = (req: IncomingMessage, res: ServerResponse, status: number): void => {
    const latest = issued.at(-1) ?? 'no-token-issued-yet';
    const secret = credentials.clientSecret;
    const lead = switches.escapes === true ? ESCAPES : '';
    const leaks = (shownLead: string, before: number): Record<string, unknown> => ({
      ...(switches.secretAcross300 === true
        ? { detail: `${lead}${'x'.repeat(ACROSS - before - shownLead.length)}${latest} ${secret}` }
        : { detail: lead }),
      error: 'refused by the hostile double',
      ...(switches.echoHeaders === true ? { received: req.headers } : {}),
      ...(switches.echoAllTokens === true ? { tokens: issued } : {}),
      ...(switches.encodedEcho === true
        ? {
            base64: Buffer.from(latest).toString('base64'),
            urlEncoded: encodeURIComponent(`${latest}/${secret}?&=`),
            basic: `Basic ${Buffer.from(`${credentials.clientId}:${secret}`).toString('base64')}`,
            shifted: ['a', 'ab', 'abc'].map((p) => Buffer.from(`${p}${secret}${latest}`).toString('base64')),
          }
        : {}),
      ...(switches.tokenAsKey === true ? { [latest]: 'a token as a member name' } : {}),
      ...(switches.pemEcho === true ? { pem, pemBody: pem.replace(/-----[^-]+-----|\s/g, '') } : {}),
    });
    refusals += 1;
    if (refusals % 2 === 0) {
      const body = leaks(JSON.stringify(lead).slice(1, -1), '{"detail":"'.length);
      send(res, status, 'application/json', JSON.stringify(body));
      return;
    }
    const lines = Object.entries(leaks(lead, 'detail: '.length)).map(
      ([k, v]) => `${k}: ${typeof v === 'string' ? v : JSON.stringify(v)}`,
    );
    send(res, status, 'text/plain', lines.join('\n'));
  };

  /** A token issued where a refusal was due, in one of three styles in turn. */
  const negativeToken = (res: ServerResponse): void => {
    const token = issue();
    negativeAnswers += 1;
    const style = negativeAnswers % 3;
    if (style === 0) send(res, 403, 'application/json', JSON.stringify({ error: 'forbidden', ...token }));
    else if (style === 1)
      send(res, 200, 'text/plain', new URLSearchParams({ ...token, token_type: 'bearer' }).toString());
    else send(res, 401, 'text/plain', token.access_token);
  };

  const tokenAnswer = (req: IncomingMessage, res: ServerResponse): void => {
    const clientId = headerOf(req, 'client_id');
    const cert = headerOf(req, 'cert_client');
    if (clientId === undefined && switches.endlessBody === true) {
      res.writeHead(200, { 'content-type': 'application/json' });
      stream(res, ENDLESS_SAFETY_BYTES, Buffer.alloc(64 * 1024, 0x20));
      return;
    }
    if (cert === undefined && switches.gzipBomb === true) {
      res.writeHead(200, {
        'content-type': 'application/json',
        'content-encoding': 'gzip',
        'content-length': bomb.length,
      });
      res.end(bomb);
      return;
    }
    if (headerOf(req, 'accept') === undefined && switches.failWithoutAccept === true) {
      refuse(req, res, 500);
      return;
    }
    const valid = clientId === credentials.clientId && cert === credentials.certClient;
    if (!valid) {
      if (switches.tokenForNegativeCases === true) negativeToken(res);
      else refuse(req, res, 403);
      return;
    }
    const extra =
      switches.manyFields === true
        ? Array.from({ length: MANY_FIELDS }, (_, i) => `"f${i}":${i}`).join(',')
        : '';
    const token = JSON.stringify({ ...issue(), token_type: 'bearer', expires_in: 7200 });
    send(res, 200, 'application/json', extra === '' ? token : `${token.slice(0, -1)},${extra}}`);
  };

  const webhooks = (postBackUrl: string, code: string): void => {
    const payload = Buffer.from(JSON.stringify({ code, status: 'PAID' }));
    const json = { 'content-type': 'application/json' };
    if (switches.webhookHalfBody === true)
      void post(postBackUrl, json, payload, Math.floor(payload.length / 2));
    if (switches.webhookOversize === true)
      void post(postBackUrl, json, Buffer.alloc(WEBHOOK_OVERSIZE_BYTES, 0x20));
    const strays = switches.strayDeliveries ?? 0;
    if (strays > 0 && !strayFloodSent) {
      strayFloodSent = true;
      const origin = new URL(postBackUrl).origin;
      void flood(origin, strays, payload, () => (straysAnswered += 1));
    }
  };

  const withdrawalAnswer = (req: IncomingMessage, res: ServerResponse, text: string): void => {
    const bearer = headerOf(req, 'authorization')?.replace(/^Bearer /, '') ?? '';
    const valid =
      accessTokens.has(bearer) &&
      headerOf(req, 'client_id') === credentials.clientId &&
      headerOf(req, 'client_secret') === credentials.clientSecret;
    if (!valid) {
      refuse(req, res, 403);
      return;
    }
    const body = parsed(text);
    const code = typeof body.code === 'string' ? body.code : undefined;
    // One with a code, so that the test finds its line in the ledger.
    if (switches.hugeBody === true && hugeBodyCodes.length === 0 && code !== undefined) {
      hugeBodyCodes.push(code);
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': HUGE_BODY_BYTES });
      stream(res, HUGE_BODY_BYTES, Buffer.alloc(1024 * 1024, 0x20));
      return;
    }
    accepted += 1;
    const id =
      switches.secretAsWithdrawalId === true
        ? accepted % 2 === 0
          ? bearer
          : credentials.clientSecret
        : `w-${accepted}`;
    const escapes = switches.escapes === true ? { note: ESCAPES } : {};
    send(res, 200, 'application/json', JSON.stringify({ id, code, status: 'PROCESSING', ...escapes }));
    if (typeof body.PostBackUrl === 'string') webhooks(body.PostBackUrl, code ?? '');
  };

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const path = (req.url ?? '').split('?', 1)[0] ?? '';
      received.push({ method: req.method ?? '', path, headers: pairs(req.rawHeaders), body });
      if (path === '/auth/token') tokenAnswer(req, res);
      else if (path === '/pix/payment') withdrawalAnswer(req, res, body);
      else refuse(req, res, 404);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${encodeURIComponent(credentials.user)}:${encodeURIComponent(credentials.password)}@127.0.0.1:${port}`,
    received,
    issued,
    hugeBodyCodes,
    straysAnswered: () => straysAnswered,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function parsed(text: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}
