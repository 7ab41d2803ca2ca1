/**
 * The sandbox: a stateful provider of the interface on plain node:http, or https with mutual TLS if
 * asked. The scenario is chosen per request by a path prefix (/s/<scenario>/auth/token); without one
 * the reference profile answers. Integrators' namespaces live under /ns/<name>, the control API
 * under /_sim/ (docs/simulator.md).
 */
import { randomBytes, randomInt } from 'node:crypto';
import { createServer, type IncomingMessage, type RequestListener, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo, LookupFunction } from 'node:net';
import type { Duplex } from 'node:stream';
import type { Behaviour } from './behaviour.ts';
import { ByteBudget } from './bounded.ts';
import { consoleLine, jsonWire } from './console-line.ts';
import { authorised, control, CONTROL_PREFIX } from './control.ts';
import { SANDBOX_CREDENTIALS, type SandboxCredentials } from './credentials.ts';
import { Deliverer } from './deliveries.ts';
import { Invented } from './invented.ts';
import { errorAsText, type Outcome, type Reply, refuse, serverError } from './reply.ts';
import type { SandboxRequest } from './request.ts';
import { DEFAULT_SCENARIO, findScenario, SCENARIOS } from './scenarios.ts';
import { newScenarioState, type ScenarioState } from './state.ts';
import { type Namespace, SIMULATOR_JOURNAL_BYTES } from './namespace.ts';
import { NO_ANSWER_HOLD_SECONDS } from './outcomes.ts';
import { Secrets } from './secrets.ts';
import { Simulator } from './simulator.ts';
import { createToken } from './token.ts';
import { WEBHOOK_TIMEOUT_MS, WebhookSender } from './webhook.ts';
import { createWithdraw } from './withdraw.ts';

export type { SandboxCredentials } from './credentials.ts';

export interface RunningSandbox {
  /** http://HOST:PORT (https:// in TLS mode), without a trailing slash. */
  readonly url: string;
  readonly credentials: SandboxCredentials;
  /** The token of the control API (/_sim/): PIX_SANDBOX_CONTROL_TOKEN's, or a fresh one. */
  readonly controlToken: string;
  /** How many POST /pix/payment requests a scenario received, so a self-test can compare them with the plan. */
  withdrawalsReceived(scenario: string): number;
  close(): Promise<void>;
}

export interface SandboxOptions {
  readonly host?: string;
  /** 0, the default, picks a free port. */
  readonly port?: number;
  /** Receives one line per request answered and per webhook sent, failed or withheld. Default: none. */
  readonly log?: (line: string) => void;
  /** Told the path of every request as it arrives, before anything is read: what a rate limit counts. */
  readonly onArrival?: (path: string) => void;
  /** The seed of the ids the sandbox makes up; default: a random one. */
  readonly seed?: number;
  /** Serve https instead of http. */
  readonly tls?: SandboxTls;
  /**
   * Every request is answered this many ms later than it would be, as by an environment a round trip
   * away (another region: about 100 ms); counted from its arrival. Default 0.
   */
  readonly delayMs?: number;
  /** The control API's token; default: a fresh random one. */
  readonly controlToken?: string;
  /** Host names besides loopback that webhooks may go to (compose service names). Default: none. */
  readonly webhookHosts?: readonly string[];
  /** How long a webhook handler has to answer; default 5000 ms. */
  readonly webhookTimeoutMs?: number;
  /** How webhook host names are resolved; default: the system's (a self-test injects its own). */
  readonly webhookLookup?: LookupFunction;
  /** Multiplies every delay of the outcome table and of triggers; default 1 (a self-test shrinks it). */
  readonly timeScale?: number;
}

export interface SandboxTls {
  /** The sandbox's certificate (a chain may follow it) and its key, PEM. */
  readonly cert: string | Buffer;
  readonly key: string | Buffer;
  /**
   * A CA (PEM): the handshake then demands a client certificate it signed, as a gateway with mutual
   * TLS does; a connection without one, or with another, gets no answer.
   */
  readonly clientCa?: string | Buffer;
}

type Operation = (
  request: SandboxRequest,
  behaviour: Behaviour,
  state: ScenarioState,
  invented: Invented,
) => Outcome;

const OPERATIONS = new Map<string, Operation>([
  ['/auth/token', (request, behaviour, state) => ({ reply: createToken(request, behaviour, state) })],
  ['/pix/payment', createWithdraw],
]);

const SCENARIO_PREFIX = /^\/s\/([^/]+)(\/.*)?$/;
const NAMESPACE_PREFIX = /^\/ns\/([^/]+)(\/.*)?$/;
const MAX_BODY_BYTES = 1024 * 1024;
/** A log line is printed up to this many characters: a request's URL may be 64 KB long. */
const LOG_LINE_MAX = 1024;

export function scenarioUrl(sandbox: RunningSandbox, scenario: string): string {
  return `${sandbox.url}/s/${scenario}`;
}

function routeOf(target: string): { scenario: string; path: string } {
  const path = target.split('?')[0] ?? '';
  const match = SCENARIO_PREFIX.exec(path);
  return match === null
    ? { scenario: DEFAULT_SCENARIO, path }
    : { scenario: match[1] ?? '', path: match[2] ?? '/' };
}

/** The body, or 'too-large' as soon as it passes the cap; the rest is then read and dropped. */
function readBody(request: IncomingMessage): Promise<Buffer | 'too-large'> {
  if (Number(request.headers['content-length'] ?? 0) > MAX_BODY_BYTES) return Promise.resolve('too-large');
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) resolve('too-large');
      else chunks.push(chunk);
    });
    request.on('end', () => {
      // Most bodies come in one chunk: taken as it is, not copied.
      resolve(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks));
    });
    request.on('error', reject);
    // 'close' comes after every request: the error (and its stack) only for one that never ended.
    request.on('close', () => {
      if (!request.complete) reject(new Error('the client closed the request before its end'));
    });
  });
}

function send(response: ServerResponse, reply: Reply, cutShort = false): void {
  if (response.destroyed || response.headersSent) return;
  if (reply.status === 204) {
    response.writeHead(204, reply.headers).end();
    return;
  }
  const [contentType, body] =
    'json' in reply ? ['application/json', jsonWire(reply.json)] : ['text/plain; charset=utf-8', reply.text];
  response.writeHead(reply.status, {
    ...reply.headers,
    'content-type': contentType,
    // Cut short: the announced length is a lie, and the connection closes after the body.
    'content-length': Buffer.byteLength(body) + (cutShort ? 64 : 0),
  });
  if (!cutShort) {
    response.end(body);
    return;
  }
  response.write(body, () => response.socket?.destroy());
}

/** node:http answers unparsable HTTP itself in plain text; the sandbox keeps every answer JSON. */
function answerClientError(error: NodeJS.ErrnoException, socket: Duplex): void {
  if (error.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  const body = JSON.stringify({ error: 'bad_request', message: 'The request is not valid HTTP.' });
  socket.end(
    'HTTP/1.1 400 Bad Request\r\nconnection: close\r\ncontent-type: application/json\r\n' +
      `content-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
}

/** An address bound on every interface is reached on this machine through loopback. */
function urlOf(scheme: 'http' | 'https', { address, family, port }: AddressInfo): string {
  if (family === 'IPv6') return `${scheme}://[${address === '::' ? '::1' : address}]:${port}`;
  return `${scheme}://${address === '0.0.0.0' ? '127.0.0.1' : address}:${port}`;
}

function serverFor(tls: SandboxTls | undefined, listener: RequestListener) {
  // Headers up to 64 KB: a provider that issues 30 KB tokens takes them back (token-huge).
  if (tls === undefined) return createServer({ maxHeaderSize: 64 * 1024 }, listener);
  const { cert, key, clientCa } = tls;
  const mutual = clientCa === undefined ? {} : { ca: clientCa, requestCert: true, rejectUnauthorized: true };
  return createHttpsServer({ cert, key, ...mutual, maxHeaderSize: 64 * 1024 }, listener);
}

export async function startSandbox(options: SandboxOptions = {}): Promise<RunningSandbox> {
  const namespaces = new Map<string, Namespace>();
  const controlToken = options.controlToken ?? randomBytes(24).toString('base64url');
  const secrets = new Secrets((token) =>
    [...namespaces.values()].some((namespace) => namespace.issued(token)),
  );
  secrets.add(controlToken);
  const sink = options.log;
  // Every line passes here: secrets and URL credentials masked, then cut, then escaped.
  const log =
    sink === undefined
      ? (): void => undefined
      : (line: string): void => sink(consoleLine(secrets.cut(line, LOG_LINE_MAX)));
  const states = new Map<string, ScenarioState>();
  const invented = new Invented(options.seed ?? randomInt(2 ** 32 - 1));
  const timeScale = options.timeScale ?? 1;
  const webhookTimeoutMs = options.webhookTimeoutMs ?? WEBHOOK_TIMEOUT_MS;
  const deliverer = new Deliverer({
    log,
    timeoutMs: webhookTimeoutMs,
    allowedHosts: options.webhookHosts ?? [],
    timeScale,
    shown: secrets.cut,
    ...(options.webhookLookup === undefined ? {} : { lookup: options.webhookLookup }),
  });
  const webhooks = new WebhookSender(log, invented, webhookTimeoutMs, deliverer.hostAllowed);
  const simulator = new Simulator(deliverer, timeScale, secrets);
  const budget = new ByteBudget(SIMULATOR_JOURNAL_BYTES);
  const held = new Set<NodeJS.Timeout>();
  const scheme = options.tls === undefined ? 'http' : 'https';
  let ownUrl = '';
  const simulatorHoldMs = NO_ANSWER_HOLD_SECONDS * 1000 * timeScale;
  /** No answer: the connection is closed unanswered after `ms`; 0 stands for no status in the log. */
  const hold = (response: ServerResponse, ms: number): number => {
    const timer = setTimeout(() => {
      held.delete(timer);
      response.socket?.destroy();
    }, ms);
    held.add(timer);
    return 0;
  };

  /** A control call or a namespace's request; undefined for the reference profile and scenarios. */
  const answerSimulator = async (
    request: IncomingMessage,
    response: ServerResponse,
  ): Promise<number | undefined> => {
    const path = (request.url ?? '/').split('?')[0] ?? '/';
    if (path.startsWith(CONTROL_PREFIX)) {
      if (!authorised(request.headers, controlToken)) {
        request.resume();
        send(
          response,
          refuse(
            401,
            'unauthorized',
            'The control API needs Authorization: Bearer <control token> (printed by pix-certify sandbox, or PIX_SANDBOX_CONTROL_TOKEN).',
            { 'www-authenticate': 'Bearer realm="pix-simulator-control"' },
          ),
        );
        return 401;
      }
      const body = await readBody(request);
      const reply =
        body === 'too-large'
          ? refuse(413, 'body_too_large', 'The request body exceeds 1 MiB.')
          : await control(
              {
                controlToken,
                namespaces,
                deliverer,
                timeScale,
                webhookTimeoutMs,
                budget,
                secrets,
                url: () => ownUrl,
              },
              request.method ?? '',
              path,
              body,
            );
      send(response, reply);
      return reply.status;
    }
    const match = NAMESPACE_PREFIX.exec(path);
    if (match === null) return undefined;
    const namespace = namespaces.get(match[1] ?? '');
    if (namespace === undefined) {
      request.resume();
      send(
        response,
        refuse(
          404,
          'unknown_namespace',
          `No namespace ${consoleLine(secrets.cut(match[1] ?? '', 64))}: create it first with POST /_sim/namespaces {"name": "…"} (docs/simulator.md).`,
        ),
      );
      return 404;
    }
    const body = await readBody(request);
    if (body === 'too-large') {
      send(
        response,
        refuse(413, 'body_too_large', 'The request body exceeds 1 MiB.', { connection: 'close' }),
      );
      return 413;
    }
    const answer = simulator.answer(namespace, request, match[2] ?? '/', body, scheme);
    if ('reply' in answer) {
      send(response, answer.reply);
      return answer.reply.status;
    }
    return hold(response, answer.holdMs);
  };

  const stateOf = (scenario: string): ScenarioState => {
    const existing = states.get(scenario);
    if (existing !== undefined) return existing;
    const created = newScenarioState();
    states.set(scenario, created);
    return created;
  };

  const delayMs = options.delayMs ?? 0;
  const answer = async (request: IncomingMessage, response: ServerResponse): Promise<number> => {
    options.onArrival?.(request.url ?? '/');
    if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
    const simulated = await answerSimulator(request, response);
    if (simulated !== undefined) return simulated;
    const route = routeOf(request.url ?? '/');
    const scenario = findScenario(route.scenario);
    if (scenario === undefined) {
      const known = SCENARIOS.map((s) => s.name).join(', ');
      send(
        response,
        refuse(
          404,
          'unknown_scenario',
          `No scenario '${consoleLine(secrets.cut(route.scenario, 64))}'. Known: ${known}.`,
        ),
      );
      return 404;
    }
    const { behaviour } = scenario;
    const reply = (r: Reply): number => {
      const cutShort = behaviour.withdrawalAnswer === 'cut-short' && route.path === '/pix/payment';
      send(response, behaviour.errorsAsText && r.status >= 400 ? errorAsText(r) : r, cutShort);
      return r.status;
    };
    const operation = OPERATIONS.get(route.path);
    if (operation === undefined) {
      return reply(
        refuse(
          404,
          'not_found',
          `No operation at ${route.path}; there are POST /auth/token and POST /pix/payment.`,
        ),
      );
    }
    if (request.method !== 'POST') {
      return reply(refuse(405, 'method_not_allowed', `${route.path} only answers POST.`, { allow: 'POST' }));
    }
    const limit = behaviour.rateLimit;
    const { rate } = stateOf(scenario.name);
    if (
      limit !== undefined &&
      ('perSecond' in limit ? rate.exceeds(limit.perSecond) : rate.isNth(limit.everyNth))
    ) {
      const quota =
        'perSecond' in limit
          ? `At most ${limit.perSecond} requests a second.`
          : `Every ${limit.everyNth}th request is over quota.`;
      return reply(
        refuse(429, 'too_many_requests', quota, {
          'retry-after': String(limit.retryAfterSeconds),
        }),
      );
    }
    if (operation === createWithdraw) stateOf(scenario.name).withdrawalsReceived++;
    const body = await readBody(request);
    if (body === 'too-large') {
      return reply(refuse(413, 'body_too_large', 'The request body exceeds 1 MiB.', { connection: 'close' }));
    }
    const outcome = operation(
      { headers: request.headers, body },
      behaviour,
      stateOf(scenario.name),
      invented,
    );
    if (outcome.commit !== undefined) {
      const { afterMs, run } = outcome.commit;
      await new Promise((done) => setTimeout(done, afterMs));
      run();
    }
    if (outcome.planned !== undefined) {
      const { withdrawal, webhooks: planned, withheld } = outcome.planned;
      deliverer.plan(undefined, withdrawal, planned, withheld);
      if (withheld) return hold(response, simulatorHoldMs);
      const status = reply(outcome.reply);
      return status;
    }
    const { notice } = outcome;
    // A provider that posts its webhooks before it answers: the suite must match them all the same.
    if (notice !== undefined && behaviour.webhookTiming === 'before-answer')
      await webhooks.deliverNow(notice, behaviour);
    const status = reply(outcome.reply);
    if (notice !== undefined && behaviour.webhookTiming === 'after-answer')
      webhooks.schedule(notice, behaviour);
    return status;
  };

  const server = serverFor(options.tls, (request, response) => {
    answer(request, response).then(
      (status) => {
        log(`${request.method ?? '?'} ${request.url ?? '?'} -> ${status}`);
      },
      (error: unknown) => {
        log(
          `${request.method ?? '?'} ${request.url ?? '?'} failed: ${error instanceof Error ? error.message : String(error)}`,
        );
        send(response, serverError('The sandbox failed to answer.'));
      },
    );
  });
  server.on('clientError', answerClientError);

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });

  ownUrl = urlOf(scheme, server.address() as AddressInfo);
  return {
    url: ownUrl,
    credentials: SANDBOX_CREDENTIALS,
    controlToken,
    withdrawalsReceived: (scenario) => states.get(scenario)?.withdrawalsReceived ?? 0,
    close: () =>
      new Promise<void>((resolve) => {
        webhooks.cancelAll();
        deliverer.close();
        for (const timer of held) clearTimeout(timer);
        // Resolves also when already closed: closing twice is not an error.
        server.close(() => {
          resolve();
        });
        server.closeAllConnections();
      }),
  };
}
