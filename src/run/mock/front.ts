/**
 * The embedded mock's front: a thin HTTP layer of ours before Prism, on Prism's public traffic only
 * (requests in, answers and callbacks out). Prism runs an operation's callback after every answer it
 * gives, refusals included, always with the example's id, answers a missing key 401 where the document
 * names 403 (§5.4), and refuses without saying why. The front:
 * - answers a request missing a key of the operation's security requirement (not the token) with 403;
 * - relays Prism's webhook: the withdrawal's PostBackUrl is replaced by an address of the front, which
 *   passes the webhook on to the PostBackUrl only once Prism's answer was a 2xx, and drops it otherwise;
 * - gives each accepted withdrawal its own id, in the answer and in its webhook, which also names its
 *   code and amount where Prism's example has them;
 * - says in a refusal's message which header or field is wrong, and the clause (never a value sent).
 */
import { randomUUID } from 'node:crypto';
import {
  Agent,
  createServer,
  request as httpRequest,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type OutgoingHttpHeaders,
  type Server,
  type ServerResponse,
} from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isJsonObject, type JsonObject, type JsonValue } from '../../base/json.ts';
import { isSuccess } from '../../base/status.ts';
import { parseJson } from '../../evidence/exchange.ts';
import { loadSpec, type OperationModel, type SpecModel } from '../../spec/spec.ts';

/** Where Prism posts the webhooks it would have sent to a PostBackUrl; the rest is a relay key. */
export const RELAY_PATH = '/.pix-mock-webhook/';
const CALLBACK_FIELD = 'PostBackUrl';
const MAX_BODY_BYTES = 1024 * 1024;
/** Prism runs the callback before it answers: the webhook waits this long for the answer's status. */
const ANSWER_WAIT_MS = 10_000;
const DELIVERY_TIMEOUT_MS = 10_000;
/** Relays waiting for their webhook; the oldest is dropped beyond this, so its webhook is never sent. */
const RELAYS_LIMIT = 10_000;
const HOP_BY_HOP = new Set([
  'connection',
  'content-length',
  'host',
  'keep-alive',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);

export interface MockFrontOptions {
  /** Prism's address. */
  readonly upstream: string;
  /** Resolves once Prism listens; requests wait for it (the front listens first, so its URL can be handed on). */
  readonly upstreamReady?: Promise<void> | undefined;
  /** The document the front reads its operations and fields from; the suite's by default. */
  readonly spec?: SpecModel;
  readonly host?: string;
  /** 0 picks a free port. */
  readonly port?: number;
  /** One line per webhook passed on or dropped, and per request the mock answered in its own words. */
  readonly onLog?: (line: string) => void;
}

export interface MockFront {
  readonly url: string;
  close(): Promise<void>;
}

interface Answer {
  readonly status: number;
  /** The id the front gave the accepted withdrawal. */
  readonly id?: string;
}

interface Relay {
  readonly postBackUrl: string;
  /** The withdrawal's code and amount, which its webhook names where Prism's example has them. */
  readonly code: JsonValue | undefined;
  readonly amount: JsonValue | undefined;
  readonly answer: Promise<Answer | undefined>;
  answered(answer: Answer | undefined): void;
}

interface Upstream {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly body: Buffer;
}

class TooLarge extends Error {}

function readBody(message: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    message.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        reject(new TooLarge(`The body is over ${MAX_BODY_BYTES} bytes.`));
        message.resume();
        return;
      }
      chunks.push(chunk);
    });
    message.once('end', () => resolve(Buffer.concat(chunks)));
    message.once('error', reject);
    // A peer that hangs up mid-body leaves no 'end' behind.
    message.once('close', () => {
      if (!message.complete) reject(new Error('the body was cut off'));
    });
  });
}

function endToEnd(headers: IncomingHttpHeaders): OutgoingHttpHeaders {
  return Object.fromEntries(Object.entries(headers).filter(([name]) => !HOP_BY_HOP.has(name)));
}

function sendJson(res: ServerResponse, status: number, body: JsonValue): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

const present = (value: string | string[] | undefined): boolean =>
  value !== undefined && String(value).trim() !== '';

const typeOf = (value: JsonValue): string =>
  value === null ? 'null' : Array.isArray(value) ? 'an array' : `a ${typeof value}`;

/** The key headers (§5.4) of the operation's security requirement that the request lacks. */
function missingKeys(operation: OperationModel, headers: IncomingHttpHeaders): string[] {
  return operation.credentials
    .filter((c) => c.kind !== 'token' && !present(headers[c.header.toLowerCase()]))
    .map((c) => c.header);
}

/** Why Prism refused a withdrawal body (400): each field of §2.1 of the wrong type, never its value. */
function bodyProblems(spec: SpecModel, headers: IncomingHttpHeaders, body: string): string[] {
  const contentType = headers['content-type'] ?? '';
  if (!/^application\/json\b/i.test(contentType))
    return [
      `send the body as application/json (payloads are JSON); this request says ${contentType || 'nothing'}`,
    ];
  const parsed = parseJson(body);
  if (parsed === undefined) return ['the body is not JSON (payloads are JSON)'];
  if (!isJsonObject(parsed)) return [`the body must be a JSON object (§2.1); this one is ${typeOf(parsed)}`];
  return spec.bodyFields.flatMap((field) => {
    const value = parsed[field.name];
    return value === undefined || typeof value === field.type
      ? []
      : [`${field.name} must be a ${field.type} (${field.clause}); this body has ${typeOf(value)}`];
  });
}

/** Why Prism refused the token (401): Prism checks only that Authorization is there and says Bearer. */
function authorizationProblem(operation: OperationModel, headers: IncomingHttpHeaders): string | undefined {
  const token = operation.credentials.find((c) => c.kind === 'token');
  if (token === undefined) return undefined;
  const value = headers[token.header.toLowerCase()];
  if (!present(value))
    return `${token.header} is missing: send ${token.header}: Bearer <access_token> (${operation.clause}, §5.2)`;
  return /^bearer\s+\S/i.test(String(value))
    ? undefined
    : `${token.header} must read Bearer <access_token> (§5.2); this one does not`;
}

/** The document's example of a refusal, its message followed by the reasons; the reasons alone without one. */
function told(example: JsonValue | undefined, reasons: string): JsonObject {
  return isJsonObject(example) && typeof example.message === 'string'
    ? { ...example, message: `${example.message} ${reasons}.` }
    : { message: `${reasons}.` };
}

/** Prism's refusal told with the reasons the front found; Prism's own body when it found none. */
function explained(upstream: Upstream, reasons: readonly string[]): Buffer {
  const body = parseJson(upstream.body.toString('utf8'));
  return reasons.length === 0 ? upstream.body : Buffer.from(JSON.stringify(told(body, reasons.join('; '))));
}

/** A fresh Pix end-to-end id in the shape of the example's: E, its 8-digit ISPB, the minute, 11 characters. */
function endToEndId(example: string): string {
  const minute = new Date().toISOString().replace(/\D/g, '').slice(0, 12);
  const tail = randomUUID().replace(/-/g, '').slice(0, 11);
  return `${example.slice(0, 9)}${minute}${tail}`;
}

export async function serveMockFront(options: MockFrontOptions): Promise<MockFront> {
  const { spec = loadSpec(), onLog } = options;
  const upstream = new URL(options.upstream);
  const agent = new Agent({ keepAlive: true });
  const relays = new Map<string, Relay>();
  const operations = Object.values(spec.operations);
  let relayBase = '';

  const forward = (req: IncomingMessage, body: Buffer): Promise<Upstream> =>
    new Promise((resolve, reject) => {
      const out = httpRequest(
        {
          host: upstream.hostname,
          port: upstream.port,
          method: req.method,
          path: req.url,
          agent,
          headers: { ...endToEnd(req.headers), 'content-length': body.length },
        },
        (answer) => {
          readBody(answer).then(
            (data) => resolve({ status: answer.statusCode ?? 502, headers: answer.headers, body: data }),
            reject,
          );
        },
      );
      out.once('error', reject);
      out.end(body);
    });

  /** The withdrawal's body with PostBackUrl pointing at a relay of the front, and the relay. */
  const relayed = (body: Buffer): { body: Buffer; relay?: Relay } => {
    const parsed = parseJson(body.toString('utf8'));
    if (!isJsonObject(parsed)) return { body };
    const postBackUrl = parsed[CALLBACK_FIELD];
    if (typeof postBackUrl !== 'string' || !URL.canParse(postBackUrl)) {
      const lookalike = Object.keys(parsed).find(
        (k) => k !== CALLBACK_FIELD && k.toLowerCase() === CALLBACK_FIELD.toLowerCase(),
      );
      onLog?.(
        `no webhook: the withdrawal has no absolute ${CALLBACK_FIELD}` +
          (lookalike === undefined ? '' : ` (it has ${lookalike}: field names are case-sensitive, §2.1)`),
      );
      return { body };
    }
    const key = randomUUID();
    let answered: (answer: Answer | undefined) => void = () => undefined;
    const answer = new Promise<Answer | undefined>((resolve) => (answered = resolve));
    const relay: Relay = { postBackUrl, code: parsed.code, amount: parsed.amount, answer, answered };
    relays.set(key, relay);
    if (relays.size > RELAYS_LIMIT) relays.delete(relays.keys().next().value ?? '');
    // Gone once its webhook came, or a while after the answer if Prism never posts one.
    void answer.then(() => setTimeout(() => relays.delete(key), ANSWER_WAIT_MS).unref());
    const rewritten = { ...parsed, [CALLBACK_FIELD]: `${relayBase}${key}` };
    return { body: Buffer.from(JSON.stringify(rewritten)), relay };
  };

  /** The accepted withdrawal's answer with an id of its own; the same id goes into its webhook. */
  const withOwnId = (answer: Upstream): { body: Buffer; id?: string } => {
    const parsed = parseJson(answer.body.toString('utf8'));
    if (!isJsonObject(parsed) || typeof parsed.id !== 'string') return { body: answer.body };
    const id = randomUUID();
    return { body: Buffer.from(JSON.stringify({ ...parsed, id })), id };
  };

  const deliver = (postBackUrl: string, headers: IncomingHttpHeaders, body: Buffer): Promise<string> =>
    new Promise((resolve) => {
      const url = new URL(postBackUrl);
      const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
      const started = Date.now();
      const out = send(
        url,
        {
          method: 'POST',
          headers: { ...endToEnd(headers), 'content-length': body.length },
          timeout: DELIVERY_TIMEOUT_MS,
        },
        (res) => {
          res.resume();
          res.once('end', () => resolve(`${res.statusCode ?? '?'} (${Date.now() - started} ms)`));
        },
      );
      out.once('timeout', () => out.destroy(new Error(`no answer within ${DELIVERY_TIMEOUT_MS} ms`)));
      out.once('error', (error) => resolve(`not delivered: ${error.message}`));
      out.end(body);
    });

  /** Prism's webhook for a withdrawal: passed on after a 2xx answer, with the withdrawal's own id. */
  const relay = async (req: IncomingMessage, res: ServerResponse, key: string): Promise<void> => {
    const payload = await readBody(req);
    const pending = relays.get(key);
    relays.delete(key);
    res.writeHead(pending === undefined ? 404 : 200).end();
    if (pending === undefined) return;
    const timeout = new Promise<undefined>((resolve) =>
      setTimeout(() => resolve(undefined), ANSWER_WAIT_MS).unref(),
    );
    const answer = await Promise.race([pending.answer, timeout]);
    if (answer === undefined || !isSuccess(answer.status)) {
      onLog?.(
        `no webhook to ${pending.postBackUrl}: the withdrawal was ${answer === undefined ? 'not answered' : `refused with ${answer.status}`}`,
      );
      return;
    }
    const parsed = parseJson(payload.toString('utf8'));
    const own: JsonObject | undefined = isJsonObject(parsed)
      ? {
          ...parsed,
          ...(typeof parsed.id === 'string' ? { id: answer.id ?? randomUUID() } : {}),
          ...(typeof parsed.end_to_end_id === 'string'
            ? { end_to_end_id: endToEndId(parsed.end_to_end_id) }
            : {}),
          ...('code' in parsed && pending.code !== undefined ? { code: pending.code } : {}),
          ...('amount' in parsed && pending.amount !== undefined ? { amount: pending.amount } : {}),
        }
      : undefined;
    const body = own === undefined ? payload : Buffer.from(JSON.stringify(own));
    const outcome = await deliver(pending.postBackUrl, req.headers, body);
    onLog?.(`webhook POST ${pending.postBackUrl} -> ${outcome}`);
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    if (req.method === 'POST' && path.startsWith(RELAY_PATH))
      return relay(req, res, path.slice(RELAY_PATH.length));
    const body = await readBody(req);
    const operation = operations.find((o) => o.path === path && o.method === req.method);
    const missing = operation === undefined ? [] : missingKeys(operation, req.headers);
    if (operation !== undefined && missing.length > 0) {
      const reason = `${missing.join(' and ')} ${missing.length === 1 ? 'is' : 'are'} missing (${operation.clause}, §5.4)`;
      onLog?.(`403 POST ${path}: ${reason}`);
      sendJson(res, 403, told(spec.responseExample(operation.id, 403), reason));
      return;
    }
    const withdrawal = operation?.id === 'createWithdraw';
    const refusalReasons = (status: number): string[] => {
      if (operation === undefined) return [];
      if (status === 400 && withdrawal) return bodyProblems(spec, req.headers, body.toString('utf8'));
      const authorization = status === 401 ? authorizationProblem(operation, req.headers) : undefined;
      return authorization === undefined ? [] : [authorization];
    };
    await options.upstreamReady;
    const sent = withdrawal ? relayed(body) : { body };
    let answer: Upstream;
    try {
      answer = await forward(req, sent.body);
    } catch (error) {
      sent.relay?.answered(undefined);
      throw error;
    }
    const accepted = withdrawal && isSuccess(answer.status) ? withOwnId(answer) : { body: answer.body };
    sent.relay?.answered({
      status: answer.status,
      ...(accepted.id === undefined ? {} : { id: accepted.id }),
    });
    const out = explained({ ...answer, body: accepted.body }, refusalReasons(answer.status));
    res.writeHead(answer.status, { ...endToEnd(answer.headers), 'content-length': out.length });
    res.end(out);
  };

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (res.headersSent) return void res.destroy();
      const message = error instanceof Error ? error.message : String(error);
      if (error instanceof TooLarge) sendJson(res, 400, { error: 'bad_request', message });
      else
        sendJson(res, 502, {
          error: 'mock_unavailable',
          message: `The embedded mock did not answer: ${message}`,
        });
    });
  });
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  const local = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host;
  relayBase = `http://${local}:${port}${RELAY_PATH}`;
  return {
    url: `http://${host}:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        agent.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
