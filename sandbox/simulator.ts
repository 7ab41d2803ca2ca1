/**
 * The one provider core: every request to a namespace or a scenario is checked by the one validator
 * (departures.ts), answered as its behaviour (a profile, faults on top) says of each departure
 * (refusal-status.ts), journaled where the namespace keeps a journal, and a valid withdrawal meets the
 * outcome its amount chooses (outcomes.ts) with the webhooks its behaviour posts (deliveries.ts).
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { acceptsGzip } from './accept-encoding.ts';
import type { Behaviour } from './behaviour.ts';
import { isoNow } from './clock.ts';
import type { Deliverer, Timing } from './deliveries.ts';
import {
  type ArrivedRequest,
  type Departure,
  duplicateDeparture,
  parseBody,
  routeDeparture,
  type TokenLookup,
  tokenRequestDepartures,
  type WithdrawBody,
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
import {
  limitedOnce,
  NO_ANSWER_HOLD_SECONDS,
  outcomeOf,
  type OutcomeRow,
  outcomeTable,
  type PlannedWebhook,
  type Withdrawal,
} from './outcomes.ts';
import { firstRefusal, type Operation } from './refusal-status.ts';
import {
  asProblem,
  bodyTooLarge,
  errorAsText,
  json,
  type Reply,
  serverError,
  text,
  withStackTrace,
} from './reply.ts';
import type { Secrets } from './secrets.ts';
import type { TokenRules } from './token-store.ts';

/** A body the server stopped reading past its limit: its start, and its size as sent or announced. */
export interface CutBody {
  readonly start: Buffer;
  readonly bytes: number;
  readonly limitBytes: number;
}

/**
 * What the server does with a request: answer it (cut short, or once `before` settles: webhooks a
 * provider posts first, a store it writes after its check, a slow answer's delay), or hold it and
 * close it unanswered; `clientClosed` is told when the client closes first, ms after its arrival, and
 * `writing` just before the answer is written.
 */
export type Answer = (
  | {
      readonly reply: Reply;
      readonly cutShort?: boolean;
      readonly gzip?: boolean;
      readonly before?: Promise<unknown>;
    }
  | { readonly holdMs: number }
) & { readonly clientClosed?: (afterMs: number) => void; readonly writing?: () => void };

/** The answer to a withdrawal, which tells the withdrawal when it is written (its webhooks journal whether they came first). */
const answering = (withdrawal: Withdrawal, answer: Answer): Answer => ({
  ...answer,
  writing: () => {
    delete withdrawal.answerPending;
  },
});

/** How long a check-then-write store takes to write what it checked. */
const WRITE_AFTER_CHECK_MS = 150;

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

/**
 * A body as the journal keeps it: parsed JSON with credential-named members masked, or its text, up to
 * `max` bytes; `bytes` is its whole size, of which `raw` may hold only the start.
 */
function journaledBody(
  raw: Buffer,
  parsed: { value: unknown; json: boolean },
  cut: Secrets['cut'],
  max: number,
  bytes: number,
): JournalRequest['body'] {
  const truncated = bytes > max;
  const base = { bytes, truncated, json: parsed.json };
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

/**
 * The refusal a request's departures earn: the first refused one names it; an integrator's namespace
 * lists them all (a scenario answers {error, message}, as the provider profile it plays).
 */
function teach(status: number, first: Departure, departures: readonly Departure[] | undefined): Reply {
  const headers: Record<string, string> =
    status === 401 ? { 'www-authenticate': 'Bearer realm="pix-simulator"' } : {};
  if (status === 405) headers.allow = 'POST';
  if (status === 500) return serverError(first.message);
  const body = { error: first.code, message: first.message };
  return json(status, departures === undefined ? body : { ...body, departures }, headers);
}

/** A decided reply as the behaviour writes it: errors as text or problem details, a stack trace in them, Vary. */
function writtenAs(behaviour: Behaviour, reply: Reply): Reply {
  const shaped =
    behaviour.errorsAsText && reply.status >= 400
      ? errorAsText(reply)
      : behaviour.errorBody === 'problem'
        ? asProblem(withStackTrace(behaviour, reply))
        : withStackTrace(behaviour, reply);
  if (behaviour.compression === 'none') return shaped;
  return { ...shaped, headers: { ...shaped.headers, vary: 'Accept-Encoding' } };
}

function tokenReply(behaviour: Behaviour, token: string): Reply {
  const lifetime = behaviour.tokenLifetimeSeconds;
  switch (behaviour.tokenReply) {
    case 'access_token':
    case 'server-error':
      return json(200, { access_token: token, token_type: 'Bearer', expires_in: lifetime });
    case 'token':
      return json(200, { token, expiresIn: lifetime });
    case 'text':
      return text(200, `access_token=${token}`);
    case 'empty-object':
      return json(200, {});
    case 'array':
      return json(200, [token]);
  }
}

/** The accepted answer, and the withdrawal status its JSON body reports. */
function acceptedReply(
  behaviour: Behaviour,
  id: string,
  code: string | null,
): { reply: Reply; reportedStatus?: string } {
  const status = behaviour.acceptedStatus;
  switch (behaviour.acceptedReply) {
    case 'reference':
      return { reply: json(status, { id, code, status: 'PROCESSING' }), reportedStatus: 'PROCESSING' };
    case 'lenient':
      return { reply: json(status, { transaction_id: id, status: 'pending' }), reportedStatus: 'pending' };
    case 'text':
      return { reply: text(status, `id=${id} status=PROCESSING`) };
  }
}

/** A 429 before anything is read, for a behaviour that limits the pace or the share of requests. */
function rateLimited(namespace: Namespace): Reply | undefined {
  const limit = namespace.behaviour.rateLimit;
  if (limit === undefined) return undefined;
  const { rate } = namespace;
  const over = 'perSecond' in limit ? rate.exceeds(limit.perSecond) : rate.isNth(limit.everyNth);
  if (!over) return undefined;
  const quota =
    'perSecond' in limit
      ? `At most ${limit.perSecond} requests a second.`
      : `Every ${limit.everyNth}th request is over quota.`;
  return json(
    429,
    { error: 'too_many_requests', message: quota },
    { 'retry-after': String(limit.retryAfterSeconds) },
  );
}

/** How the behaviour honours the tokens withdrawals present. */
const tokenRules = (behaviour: Behaviour): TokenRules => ({
  singleUse: behaviour.tokenUses === 'once',
  diesAfterSeconds: behaviour.tokenDiesAfterSeconds,
  compare: behaviour.tokenCompare,
});

/** Whether a code accepted at `acceptedAt` is now between its withdrawal's settlement and its archiving. */
function inSettledGap(behaviour: Behaviour, acceptedAt: number, timeScale: number): boolean {
  const gap = behaviour.settledCodeGap;
  if (gap === undefined) return false;
  const sinceSettled = Date.now() - acceptedAt - gap.settleMs * timeScale;
  return sinceSettled >= 0 && sinceSettled < gap.archivedAfterMs * timeScale;
}

/** §2.1: with check_code true the service looks for another record with the same code; false skips it. */
function isDuplicate(namespace: Namespace, body: WithdrawBody, code: string, timeScale: number): boolean {
  const { behaviour } = namespace;
  const acceptedAt = namespace.codeTakenAt(code);
  if (acceptedAt === undefined) return false;
  if (behaviour.codeMemoryMs !== undefined && Date.now() - acceptedAt > behaviour.codeMemoryMs) return false;
  if (inSettledGap(behaviour, acceptedAt, timeScale)) return false;
  const checkCode = typeof body.check_code === 'boolean' ? body.check_code : behaviour.checkCodeDefault;
  return behaviour.duplicateCheck === 'always' || (behaviour.duplicateCheck === 'as-asked' && checkCode);
}

export class Simulator {
  private readonly deliverer: Deliverer;
  private readonly timeScale: number;
  private readonly secrets: Secrets;
  private readonly tokenIssued: (token: string) => void;

  constructor(
    deliverer: Deliverer,
    timeScale: number,
    secrets: Secrets,
    tokenIssued: (token: string) => void,
  ) {
    this.deliverer = deliverer;
    this.timeScale = timeScale;
    this.secrets = secrets;
    this.tokenIssued = tokenIssued;
  }

  answer(
    namespace: Namespace,
    request: IncomingMessage,
    path: string,
    body: Buffer | CutBody,
    scheme: 'http' | 'https',
  ): Answer {
    const started = performance.now();
    const { journaled } = namespace;
    const whole = Buffer.isBuffer(body);
    const raw = whole ? body : body.start;
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
    // A body's start is no JSON to judge: its fields are never read.
    const parsed = whole && raw.length > 0 ? parseBody(raw) : { value: undefined, json: false };
    const bytes = whole ? raw.length : body.bytes;
    const entry: JournalRequest = {
      seq: namespace.nextRequestSeq(),
      at: isoNow(),
      elapsedMs: 0,
      method,
      path: journaled ? arrived.shown(path, JOURNAL_PATH_MAX) : path,
      operation,
      scheme,
      host: arrived.host,
      remoteLoopback: isLoopbackAddress(request.socket.remoteAddress),
      headerNames: arrived.headerNames,
      headers: journaled ? maskedHeaders(request, this.secrets.cut) : {},
      credentials: {},
      body: { bytes, truncated: false, json: parsed.json },
      departures: [],
      answer: { status: null, retryAfterSeconds: null, withdrawalId: null, tokenId: null },
    };
    const result = whole
      ? this.served(
          namespace,
          request,
          entry,
          this.decide(namespace, arrived, method, operation, parsed, entry),
        )
      : this.oversize(namespace, arrived, method, operation, entry);
    if (!journaled) return result;
    // A refused request keeps a shorter body: anyone who knows a namespace's name can send one.
    const refused = entry.answer.status !== null && entry.answer.status >= 400 && entry.outcome === undefined;
    const max = refused ? JOURNAL_REFUSED_BODY_BYTES : JOURNAL_BODY_BYTES;
    const kept = journaledBody(raw, parsed, this.secrets.cut, max, bytes);
    entry.body = whole ? kept : { ...kept, limitBytes: body.limitBytes };
    entry.elapsedMs = Math.round(performance.now() - started);
    namespace.record(entry);
    return {
      ...result,
      clientClosed: (afterMs) => {
        entry.answer.clientClosedAfterMs = afterMs;
      },
    };
  }

  /** A decided answer as the behaviour writes it: its shape, a slow withdrawal's delay (journaled), cut short, gzip. */
  private served(
    namespace: Namespace,
    request: IncomingMessage,
    entry: JournalRequest,
    decided: Answer,
  ): Answer {
    const { behaviour } = namespace;
    const { operation } = entry;
    const delayMs = operation === 'withdraw' && 'reply' in decided ? behaviour.answerDelayMs : 0;
    if (delayMs > 0) entry.answer.delayMs = delayMs;
    const held = delayMs > 0 ? [delay(delayMs), ...('before' in decided ? [decided.before] : [])] : [];
    if (!('reply' in decided)) return decided;
    return {
      ...decided,
      reply: writtenAs(behaviour, decided.reply),
      cutShort: behaviour.withdrawalAnswer === 'cut-short' && operation === 'withdraw',
      gzip: behaviour.compression === 'gzip' && acceptsGzip(request.headers['accept-encoding']),
      ...(held.length === 0 ? {} : { before: Promise.all(held) }),
    };
  }

  /**
   * A body past the server's limit, answered 413 with only its start read: its route and headers are
   * judged as any request's (a token looked up, never spent), its fields never.
   */
  private oversize(
    namespace: Namespace,
    arrived: ArrivedRequest,
    method: string,
    operation: JournalRequest['operation'],
    entry: JournalRequest,
  ): Answer {
    const { behaviour, credentials } = namespace;
    if (operation === 'unknown' || method !== 'POST')
      entry.departures.push(routeDeparture(method, entry.path, arrived.shown));
    else {
      if (operation === 'withdraw') namespace.withdrawalsReceived += 1;
      const looked: TokenLookup = (token) =>
        namespace.tokens.use(token, { ...tokenRules(behaviour), singleUse: false });
      const judged =
        operation === 'token'
          ? tokenRequestDepartures(arrived, credentials, behaviour)
          : withdrawHeaderDepartures(arrived, credentials, looked, behaviour);
      Object.assign(entry.credentials, judged.credentials);
      entry.departures.push(...judged.departures);
    }
    const reply = bodyTooLarge();
    entry.answer.status = reply.status;
    return { reply };
  }

  private decide(
    namespace: Namespace,
    arrived: ArrivedRequest,
    method: string,
    operation: JournalRequest['operation'],
    parsed: { value: unknown; json: boolean },
    entry: JournalRequest,
  ): Answer {
    const { behaviour } = namespace;
    const taught = namespace.journaled ? entry.departures : undefined;
    const answered = (reply: Reply): Answer => {
      entry.answer.status = reply.status;
      return { reply };
    };
    if (operation === 'unknown' || method !== 'POST') {
      const departure = routeDeparture(method, entry.path, arrived.shown);
      entry.departures.push(departure);
      return answered(teach(departure.code === 'path-unknown' ? 404 : 405, departure, taught));
    }
    const limited = rateLimited(namespace);
    if (limited !== undefined) {
      entry.answer.retryAfterSeconds = behaviour.rateLimit?.retryAfterSeconds ?? null;
      return answered(limited);
    }
    const refuseWith = (departures: Departure[], judged: Operation): Answer | undefined => {
      entry.departures.push(...departures);
      const refusal = firstRefusal(entry.departures, behaviour, judged);
      return refusal && answered(teach(refusal.status, refusal.departure, taught));
    };
    if (operation === 'token') {
      const judged = tokenRequestDepartures(arrived, namespace.credentials, behaviour);
      Object.assign(entry.credentials, judged.credentials);
      const refused = refuseWith(judged.departures, 'token');
      if (refused !== undefined) return refused;
      if (behaviour.tokenReply === 'server-error')
        return answered(serverError('The token could not be issued.'));
      const { tokenLifetimeSeconds, tokenForm, activeTokens } = behaviour;
      const { token, id } = namespace.tokens.issue(
        tokenLifetimeSeconds,
        tokenForm,
        activeTokens === 'newest',
        entry.seq,
      );
      entry.answer.tokenId = id;
      this.tokenIssued(token);
      return answered(tokenReply(behaviour, token));
    }
    namespace.withdrawalsReceived += 1;
    const rules = tokenRules(behaviour);
    const headers = withdrawHeaderDepartures(
      arrived,
      namespace.credentials,
      (token) => namespace.tokens.use(token, rules),
      behaviour,
    );
    Object.assign(entry.credentials, headers.credentials);
    const checked = withdrawBodyDepartures(
      parsed,
      this.deliverer.hostAllowed,
      arrived.shown,
      behaviour.callbackField,
    );
    if (typeof checked.body?.code === 'string')
      entry.code = arrived.shown(checked.body.code, JOURNAL_CODE_MAX);
    const refused = refuseWith([...headers.departures, ...checked.departures], 'withdraw');
    // A body refused (or served) as unparsable is an empty withdrawal.
    const body = checked.body ?? {};
    const code = typeof body.code === 'string' ? body.code : null;
    const duplicate =
      refused === undefined && code !== null && isDuplicate(namespace, body, code, this.timeScale);
    const refusal = duplicate ? refuseWith([duplicateDeparture(code, arrived.shown)], 'withdraw') : refused;
    if (refusal !== undefined) return this.refused(namespace, refusal, body);
    // A provider failing every withdrawal it would make: nothing recorded, nothing paid, no webhook.
    if (behaviour.acceptedAnswer === 'server-error')
      return answered(serverError('The withdrawal could not be processed.'));
    const outcome = limitedOnce(outcomeOf(body.amount), code, (first) => namespace.firstLimit(first));
    if (typeof body.amount === 'number') entry.outcome = { name: outcome.name, amount: body.amount };
    return this.meet(namespace, outcome, body, code, entry);
  }

  /** What the outcome table says of a valid withdrawal, answered and paid as the behaviour does. */
  private meet(
    namespace: Namespace,
    outcome: OutcomeRow,
    body: WithdrawBody,
    code: string | null,
    entry: JournalRequest,
  ): Answer {
    const { behaviour } = namespace;
    entry.answer.status = outcome.status;
    if (outcome.retryAfterSeconds !== undefined) entry.answer.retryAfterSeconds = outcome.retryAfterSeconds;
    const instead = outcomeAnswer(outcome);
    if (instead?.processed === false) return { reply: instead.reply };
    const id = behaviour.withdrawalId === 'status' ? 'status' : randomUUID();
    entry.answer.withdrawalId = id;
    const take = (): void => {
      if (code !== null) namespace.takeCode(code);
    };
    const written =
      behaviour.codeStore === 'check-then-write' ? delay(WRITE_AFTER_CHECK_MS).then(take) : undefined;
    if (written === undefined) take();
    const withdrawal: Withdrawal = {
      id,
      code,
      amount: body.amount,
      url: typeof body.PostBackUrl === 'string' ? body.PostBackUrl : undefined,
      answerPending: true,
    };
    namespace.addWithdrawal(withdrawal);
    const webhooks = settledLater(
      behaviour,
      processingFirst(behaviour, outcome.name === 'paid' ? this.paidWebhooks(namespace) : outcome.webhooks),
    );
    if (outcome.status === null) {
      void this.deliverer.plan(namespace, withdrawal, webhooks, 'from-arrival');
      return { holdMs: NO_ANSWER_HOLD_SECONDS * 1000 * this.timeScale };
    }
    const posted = this.post(namespace, withdrawal, webhooks);
    const accepted =
      behaviour.acceptedAnswer === 'gateway-timeout' || instead !== undefined
        ? undefined
        : acceptedReply(behaviour, id, code);
    const final =
      instead?.reply ??
      accepted?.reply ??
      json(504, { error: 'gateway_timeout', message: 'The upstream did not answer in time.' });
    if (accepted?.reportedStatus !== undefined) entry.answer.reportedStatus = accepted.reportedStatus;
    entry.answer.status = final.status;
    const before = [written, posted].filter((p) => p !== undefined);
    return answering(withdrawal, {
      reply: final,
      ...(before.length === 0 ? {} : { before: Promise.all(before) }),
    });
  }

  /** Plans the webhooks; the promise to wait for before answering when the behaviour posts them first. */
  private post(
    namespace: Namespace,
    withdrawal: Withdrawal,
    webhooks: readonly PlannedWebhook[],
  ): Promise<void> | undefined {
    const timing: Timing = namespace.behaviour.webhookTiming;
    const posted = this.deliverer.plan(namespace, withdrawal, webhooks, timing);
    return timing === 'before-answer' ? posted : undefined;
  }

  /**
   * A refused withdrawal gets no webhook, except under the faults that send one anyway: shaped like a
   * payment, or REJECTED for a body refused with 400; the confusion the rule guards against.
   */
  private refused(namespace: Namespace, refusal: Answer, body: WithdrawBody): Answer {
    const { webhookOnRefused } = namespace.behaviour;
    const status = 'reply' in refusal ? refusal.reply.status : 0;
    const sends = webhookOnRefused === 'always' || (webhookOnRefused === 'bad-request' && status === 400);
    if (!sends || typeof body.PostBackUrl !== 'string') return refusal;
    const withdrawal: Withdrawal = {
      id: randomUUID(),
      code: typeof body.code === 'string' ? body.code : null,
      amount: body.amount,
      url: body.PostBackUrl,
      answerPending: true,
    };
    const webhooks: PlannedWebhook[] =
      webhookOnRefused === 'bad-request'
        ? [{ status: 'REJECTED', afterSeconds: 0, kind: 'valid' }]
        : statusWebhooks(namespace.behaviour);
    const posted = this.post(namespace, withdrawal, webhooks);
    return answering(withdrawal, posted === undefined ? refusal : { ...refusal, before: posted });
  }

  /**
   * A paid withdrawal's webhooks: each status the behaviour posts; in `realistic` namespaces the first
   * paid withdrawal's webhook comes twice and the second's out of order.
   */
  private paidWebhooks(namespace: Namespace): PlannedWebhook[] {
    const statuses = statusWebhooks(namespace.behaviour);
    if (namespace.faults !== 'realistic') return statuses;
    namespace.paidCount += 1;
    const borrowed =
      namespace.paidCount === 1 ? 'webhook-twice' : namespace.paidCount === 2 ? 'out-of-order' : undefined;
    return TABLE.find((row) => row.name === borrowed)?.webhooks ?? statuses;
  }
}

/** The webhooks planned, each as late as the behaviour's settlement (settledCodeGap) makes it. */
function settledLater(behaviour: Behaviour, webhooks: readonly PlannedWebhook[]): readonly PlannedWebhook[] {
  const settleMs = behaviour.settledCodeGap?.settleMs;
  return settleMs === undefined
    ? webhooks
    : webhooks.map((webhook) => ({ ...webhook, afterSeconds: webhook.afterSeconds + settleMs / 1000 }));
}

/** The outcome's webhooks behind a PROCESSING one, when the behaviour reports that first. */
function processingFirst(
  behaviour: Behaviour,
  webhooks: readonly PlannedWebhook[],
): readonly PlannedWebhook[] {
  const gapMs = behaviour.processingGapMs;
  if (gapMs === undefined || webhooks.length === 0) return webhooks;
  return [
    { status: 'PROCESSING', afterSeconds: 0, kind: 'valid' },
    ...webhooks.map((webhook) => ({ ...webhook, afterSeconds: webhook.afterSeconds + gapMs / 1000 })),
  ];
}

/** One webhook now for each status the behaviour posts, in order. */
const statusWebhooks = (behaviour: Behaviour): PlannedWebhook[] =>
  behaviour.webhookStatuses.map((status) => ({ status, afterSeconds: 0, kind: 'valid' }));

const delay = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

function isLoopbackAddress(address: string | undefined): boolean {
  return (
    address !== undefined &&
    (address === '::1' || address.startsWith('127.') || address.startsWith('::ffff:127.'))
  );
}
