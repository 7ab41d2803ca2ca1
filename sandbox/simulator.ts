/**
 * The two operations as a namespace serves them (the reference reading, strictly): every request is
 * journaled with every departure from the document; a refusal teaches it; a valid withdrawal meets
 * the outcome its amount chooses (outcomes.ts).
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { isoNow } from './clock.ts';
import type { Deliverer } from './deliveries.ts';
import {
  type ArrivedRequest,
  type Departure,
  duplicateDeparture,
  parseBody,
  refusalStatus,
  routeDeparture,
  tokenRequestDepartures,
  withdrawBodyDepartures,
  withdrawHeaderDepartures,
} from './departures.ts';
import {
  JOURNAL_BODY_BYTES,
  JOURNAL_CODE_MAX,
  JOURNAL_REFUSED_BODY_BYTES,
  type JournalRequest,
  type Namespace,
} from './namespace.ts';
import { outcomeAnswer } from './outcome-answer.ts';
import { limitedOnce, NO_ANSWER_HOLD_SECONDS, outcomeOf, type OutcomeRow, outcomeTable } from './outcomes.ts';
import { json, type Reply, serverError } from './reply.ts';
import type { Secrets } from './secrets.ts';
import { TOKEN_LIFETIME_SECONDS } from './state.ts';

/** What the server does with a namespace's request: answer it, or hold it and close it unanswered. */
export type Answer = { readonly reply: Reply } | { readonly holdMs: number };

/** Credential names squashed (no case, dashes or underscores): client-secret is masked as client_secret is. */
const MASKED = new Set([
  'clientid',
  'clientsecret',
  'certclient',
  'accesstoken',
  'token',
  'secret',
  'password',
]);
/** Names seen, with their answer: the same few header and field names come with every request. */
const maskedSeen = new Map<string, boolean>();
const MASKED_SEEN_MAX = 1024;
function masked(name: string): boolean {
  const seen = maskedSeen.get(name);
  if (seen !== undefined) return seen;
  const answer = MASKED.has(name.toLowerCase().replace(/[-_]/g, ''));
  if (maskedSeen.size < MASKED_SEEN_MAX) maskedSeen.set(name, answer);
  return answer;
}
/** name=value pairs of a text body whose name is a credential's. */
const TEXT_CREDENTIAL =
  /((?:client[-_]?id|client[-_]?secret|cert[-_]?client|access[-_]?token|token|secret|password)\s*[=:]\s*"?)[^&\s",]*/gi;
const HEADER_VALUE_MAX = 1024;
const JOURNAL_PATH_MAX = 256;
const TABLE = outcomeTable();

function maskedHeaders(request: IncomingMessage, cut: Secrets['cut']): Record<string, string> {
  const shown: Record<string, string> = {};
  for (const [name, raw] of Object.entries(request.headers)) {
    const value = Array.isArray(raw) ? raw.join(', ') : (raw ?? '');
    if (masked(name)) shown[name] = '***';
    else if (name === 'authorization' || name === 'proxy-authorization')
      shown[name] = /^\S+\s/.test(value) ? `${value.split(/\s/, 1)[0] ?? ''} ***` : '***';
    else shown[name] = cut(value, HEADER_VALUE_MAX);
  }
  return shown;
}

/** A body as the journal keeps it: parsed JSON with credential-named members masked, or its text, up to `max` bytes. */
function journaledBody(
  raw: Buffer,
  parsed: { value: unknown; json: boolean },
  cut: Secrets['cut'],
  max: number,
): JournalRequest['body'] {
  const truncated = raw.length > max;
  const base = { bytes: raw.length, truncated, json: parsed.json };
  if (raw.length === 0) return base;
  // The secret's 8-character windows are read past the cut: 7 more bytes than are kept.
  if (!parsed.json || truncated)
    return {
      ...base,
      text: cut(
        raw
          .subarray(0, max + 7)
          .toString('utf8')
          .replace(TEXT_CREDENTIAL, '$1***'),
        max,
      ),
    };
  return { ...base, value: maskedValue(parsed.value, cut) };
}

/** A JSON value with credential-named members written ***, and secrets masked in every key and string. */
function maskedValue(value: unknown, cut: Secrets['cut']): unknown {
  if (typeof value === 'string') return cut(value, JOURNAL_BODY_BYTES);
  if (Array.isArray(value)) return value.map((member) => maskedValue(member, cut));
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, member]) => [
      cut(key, JOURNAL_BODY_BYTES),
      masked(key) ? '***' : maskedValue(member, cut),
    ]),
  );
}

/** The refusal a request's departures earn: the first refusing one decides the status, all are listed. */
function teach(status: number, departures: readonly Departure[]): Reply {
  const first = departures.find((d) => refusalStatus([d]) !== undefined) ?? departures[0];
  const headers: Record<string, string> =
    status === 401 ? { 'www-authenticate': 'Bearer realm="pix-simulator"' } : {};
  if (status === 405) headers.allow = 'POST';
  return json(
    status,
    { error: first?.code ?? 'refused', message: first?.message ?? 'refused', departures },
    headers,
  );
}

export class Simulator {
  private readonly deliverer: Deliverer;
  private readonly timeScale: number;
  private readonly secrets: Secrets;

  constructor(deliverer: Deliverer, timeScale: number, secrets: Secrets) {
    this.deliverer = deliverer;
    this.timeScale = timeScale;
    this.secrets = secrets;
  }

  answer(
    namespace: Namespace,
    request: IncomingMessage,
    path: string,
    raw: Buffer,
    scheme: 'http' | 'https',
  ): Answer {
    const started = performance.now();
    const arrived: ArrivedRequest = {
      headers: request.headers,
      headerNames: request.rawHeaders.filter((_, i) => i % 2 === 0),
      body: raw,
      scheme,
      host: request.headers.host ?? '',
      shown: this.secrets.cut,
    };
    const method = request.method ?? '';
    const operation = path === '/auth/token' ? 'token' : path === '/pix/payment' ? 'withdraw' : 'unknown';
    const parsed = raw.length > 0 ? parseBody(raw) : { value: undefined, json: false };
    const entry: JournalRequest = {
      seq: namespace.nextRequestSeq(),
      at: isoNow(),
      elapsedMs: 0,
      method,
      path: arrived.shown(path, JOURNAL_PATH_MAX),
      operation,
      scheme,
      host: arrived.host,
      remoteLoopback: isLoopbackAddress(request.socket.remoteAddress),
      headerNames: arrived.headerNames,
      headers: maskedHeaders(request, this.secrets.cut),
      credentials: {},
      body: { bytes: raw.length, truncated: false, json: parsed.json },
      departures: [],
      answer: { status: null, retryAfterSeconds: null, withdrawalId: null, tokenId: null },
    };
    const result = this.decide(namespace, arrived, method, operation, parsed, entry);
    // A refused request keeps a shorter body: anyone who knows a namespace's name can send one.
    const refused = entry.answer.status !== null && entry.answer.status >= 400 && entry.outcome === undefined;
    entry.body = journaledBody(
      raw,
      parsed,
      this.secrets.cut,
      refused ? JOURNAL_REFUSED_BODY_BYTES : JOURNAL_BODY_BYTES,
    );
    entry.elapsedMs = Math.round(performance.now() - started);
    namespace.record(entry);
    return result;
  }

  private decide(
    namespace: Namespace,
    arrived: ArrivedRequest,
    method: string,
    operation: JournalRequest['operation'],
    parsed: { value: unknown; json: boolean },
    entry: JournalRequest,
  ): Answer {
    const refuseWith = (departures: Departure[]): Answer | undefined => {
      entry.departures.push(...departures);
      const status = refusalStatus(entry.departures);
      if (status === undefined) return undefined;
      entry.answer.status = status;
      return { reply: teach(status, entry.departures) };
    };
    if (operation === 'unknown' || method !== 'POST') {
      return (
        refuseWith([routeDeparture(method, entry.path, arrived.shown)]) ?? {
          reply: serverError('unreachable'),
        }
      );
    }
    if (operation === 'token') {
      const judged = tokenRequestDepartures(arrived, namespace.credentials);
      Object.assign(entry.credentials, judged.credentials);
      const refused = refuseWith(judged.departures);
      if (refused !== undefined) return refused;
      const { token, id } = namespace.issueToken(entry.seq);
      entry.answer.status = 200;
      entry.answer.tokenId = id;
      return {
        reply: json(200, { access_token: token, token_type: 'Bearer', expires_in: TOKEN_LIFETIME_SECONDS }),
      };
    }
    const headers = withdrawHeaderDepartures(arrived, namespace.credentials, (token) =>
      namespace.lookupToken(token),
    );
    Object.assign(entry.credentials, headers.credentials);
    const checked = withdrawBodyDepartures(parsed, this.deliverer.hostAllowed, arrived.shown);
    const body = checked.body;
    if (typeof body?.code === 'string') entry.code = arrived.shown(body.code, JOURNAL_CODE_MAX);
    const refused = refuseWith([...headers.departures, ...checked.departures]);
    if (refused !== undefined || body === undefined) return refused ?? { reply: serverError('unreachable') };
    const code = typeof body.code === 'string' ? body.code : null;
    if (code !== null && body.check_code !== false && namespace.hasCode(code)) {
      return refuseWith([duplicateDeparture(code, arrived.shown)]) ?? { reply: serverError('unreachable') };
    }
    const outcome = limitedOnce(outcomeOf(body.amount), code, (first) => namespace.firstLimit(first));
    entry.outcome = { name: outcome.name, amount: body.amount as number };
    return this.meet(namespace, outcome, body, code, entry);
  }

  /** What the outcome table says of a valid withdrawal. */
  private meet(
    namespace: Namespace,
    outcome: OutcomeRow,
    body: Readonly<Record<string, unknown>>,
    code: string | null,
    entry: JournalRequest,
  ): Answer {
    entry.answer.status = outcome.status;
    if (outcome.retryAfterSeconds !== undefined) entry.answer.retryAfterSeconds = outcome.retryAfterSeconds;
    const instead = outcomeAnswer(outcome);
    if (instead?.processed === false) return { reply: instead.reply };
    const id = randomUUID();
    entry.answer.withdrawalId = id;
    if (code !== null) namespace.takeCode(code);
    const withdrawal = {
      id,
      code,
      amount: body.amount,
      url: typeof body.PostBackUrl === 'string' ? body.PostBackUrl : undefined,
    };
    namespace.addWithdrawal(withdrawal);
    if (outcome.status === null) {
      this.deliverer.plan(namespace, withdrawal, outcome.webhooks, true);
      return { holdMs: NO_ANSWER_HOLD_SECONDS * 1000 * this.timeScale };
    }
    this.deliverer.plan(namespace, withdrawal, this.webhooksOf(namespace, outcome));
    return { reply: instead?.reply ?? json(200, { id, code, status: 'PROCESSING' }) };
  }

  /** `realistic` namespaces: the first paid withdrawal's webhook comes twice, the second's out of order. */
  private webhooksOf(namespace: Namespace, outcome: OutcomeRow): OutcomeRow['webhooks'] {
    if (outcome.name !== 'paid' || namespace.faults !== 'realistic') return outcome.webhooks;
    namespace.paidCount += 1;
    const borrowed =
      namespace.paidCount === 1 ? 'webhook-twice' : namespace.paidCount === 2 ? 'out-of-order' : undefined;
    return TABLE.find((row) => row.name === borrowed)?.webhooks ?? outcome.webhooks;
  }
}

function isLoopbackAddress(address: string | undefined): boolean {
  return (
    address !== undefined &&
    (address === '::1' || address.startsWith('127.') || address.startsWith('::ffff:127.'))
  );
}
