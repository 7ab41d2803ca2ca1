/**
 * The sandbox's routes, on plain node:http, or https with mutual TLS if asked: the control API under
 * /_sim/, integrators' namespaces under /ns/<name>, a scenario by a path prefix (/s/<scenario>/auth/
 * token), the reference profile without one (docs/simulator.md). Every request is answered by the one
 * core (simulator.ts); a scenario is a namespace of the sandbox's one client that keeps no journal.
 */
import { randomBytes } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { createServer, type IncomingMessage, type RequestListener, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo, LookupFunction } from 'node:net';
import type { Duplex } from 'node:stream';
import { ByteBudget } from './bounded.ts';
import { consoleLine, jsonWire } from './console-line.ts';
import { authorised, control, CONTROL_PREFIX } from './control.ts';
import { SANDBOX_CREDENTIALS, type SandboxCredentials } from './credentials.ts';
import { Deliverer } from './deliveries.ts';
import { bodyTooLarge, MAX_BODY_BYTES, type Reply, refuse, serverError } from './reply.ts';
import { DEFAULT_SCENARIO, findScenario, SCENARIOS } from './scenarios.ts';
import { Namespace, SIMULATOR_JOURNAL_BYTES } from './namespace.ts';
import { Secrets } from './secrets.ts';
import { type Answer, type CutBody, Simulator } from './simulator.ts';
import { WEBHOOK_TIMEOUT_MS } from './webhook.ts';

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
  /** Told every token as it is issued, in any namespace (pix-certify client masks them in its command's output). */
  readonly onTokenIssued?: (token: string) => void;
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

const SCENARIO_PREFIX = /^\/s\/([^/]+)(\/.*)?$/;
const NAMESPACE_PREFIX = /^\/ns\/([^/]+)(\/.*)?$/;
/** A log line is printed up to this many characters: a request's URL may be 64 KB long. */
const LOG_LINE_MAX = 1024;

export function scenarioUrl(sandbox: RunningSandbox, scenario: string): string {
  return `${sandbox.url}/s/${scenario}`;
}

/**
 * The body; or, as soon as it passes the cap (or announces it will), its start and its size as
 * announced or counted so far: the rest is then read and dropped.
 */
function readBody(request: IncomingMessage): Promise<Buffer | CutBody> {
  const announced = Number(request.headers['content-length'] ?? 0);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let cut = false;
    request.on('data', (chunk: Buffer) => {
      if (cut) return;
      size += chunk.length;
      if (size <= MAX_BODY_BYTES && announced <= MAX_BODY_BYTES) {
        chunks.push(chunk);
        return;
      }
      cut = true;
      resolve({
        start: Buffer.concat([...chunks, chunk]).subarray(0, MAX_BODY_BYTES),
        bytes: Math.max(size, announced),
        limitBytes: MAX_BODY_BYTES,
      });
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

function send(
  response: ServerResponse,
  reply: Reply,
  { cutShort = false, gzip = false }: { cutShort?: boolean; gzip?: boolean } = {},
): void {
  if (response.destroyed || response.headersSent) return;
  if (reply.status === 204) {
    response.writeHead(204, reply.headers).end();
    return;
  }
  const [contentType, text] =
    'json' in reply
      ? [reply.problem === true ? 'application/problem+json' : 'application/json', jsonWire(reply.json)]
      : ['text/plain; charset=utf-8', reply.text];
  const body = gzip ? gzipSync(text) : text;
  response.writeHead(reply.status, {
    ...reply.headers,
    'content-type': contentType,
    ...(gzip ? { 'content-encoding': 'gzip' } : {}),
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
  const scenarios = new Map<string, Namespace>();
  const secrets = new Secrets((token) =>
    [...namespaces.values(), ...scenarios.values()].some((namespace) => namespace.issued(token)),
  );
  secrets.add(controlToken);
  const sink = options.log;
  // Every line passes here: secrets and URL credentials masked, then cut, then escaped.
  const log =
    sink === undefined
      ? (): void => undefined
      : (line: string): void => sink(consoleLine(secrets.cut(line, LOG_LINE_MAX)));
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
  const simulator = new Simulator(deliverer, timeScale, secrets, options.onTokenIssued ?? (() => undefined));
  const budget = new ByteBudget(SIMULATOR_JOURNAL_BYTES);
  const held = new Set<NodeJS.Timeout>();
  const scheme = options.tls === undefined ? 'http' : 'https';
  let ownUrl = '';
  /** No answer: the connection is closed unanswered after `ms`; 0 stands for no status in the log. */
  const hold = (response: ServerResponse, ms: number, closing: () => void): number => {
    const timer = setTimeout(() => {
      held.delete(timer);
      closing();
      response.socket?.destroy();
    }, ms);
    held.add(timer);
    return 0;
  };

  /** A scenario's namespace, made on its first request: the sandbox's one client, no journal. */
  const scenarioNamespace = (name: string): Namespace | undefined => {
    const existing = scenarios.get(name);
    if (existing !== undefined) return existing;
    const scenario = findScenario(name);
    if (scenario === undefined) return undefined;
    const breaks = scenario.kind === 'fault' ? [scenario.name] : [];
    const provider = {
      profile: scenario.kind === 'fault' ? DEFAULT_SCENARIO : scenario.name,
      faults: breaks,
      behaviour: scenario.behaviour,
    };
    const created = new Namespace({
      name,
      faults: 'none',
      credentials: SANDBOX_CREDENTIALS,
      provider,
      budget: undefined,
    });
    scenarios.set(name, created);
    return created;
  };

  /** The control API's answer, or undefined for a request to the interface. */
  const answerControl = async (
    request: IncomingMessage,
    response: ServerResponse,
    path: string,
  ): Promise<number> => {
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
    const reply = !Buffer.isBuffer(body)
      ? bodyTooLarge()
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
  };

  /** The namespace a request is for, and the operation's path within it; or the 404 that says none is. */
  const routeOf = (path: string): { namespace: Namespace; path: string } | Reply => {
    const named = NAMESPACE_PREFIX.exec(path);
    if (named !== null) {
      const namespace = namespaces.get(named[1] ?? '');
      if (namespace !== undefined) return { namespace, path: named[2] ?? '/' };
      return refuse(
        404,
        'unknown_namespace',
        `No namespace ${consoleLine(secrets.cut(named[1] ?? '', 64))}: create it first with POST /_sim/namespaces {"name": "…"} (docs/simulator.md).`,
      );
    }
    const prefixed = SCENARIO_PREFIX.exec(path);
    const name = prefixed === null ? DEFAULT_SCENARIO : (prefixed[1] ?? '');
    const namespace = scenarioNamespace(name);
    if (namespace !== undefined) return { namespace, path: prefixed === null ? path : (prefixed[2] ?? '/') };
    const known = SCENARIOS.map((s) => s.name).join(', ');
    return refuse(
      404,
      'unknown_scenario',
      `No scenario '${consoleLine(secrets.cut(name, 64))}'. Known: ${known}.`,
    );
  };

  /**
   * The core's answer written: at once, after what the provider does first, or never (held); a client
   * that closes the connection before any answer is told to the core, ms after `arrivedAt`.
   */
  const write = async (response: ServerResponse, answer: Answer, arrivedAt: number): Promise<number> => {
    const { clientClosed } = answer;
    const unanswered = (): void => clientClosed?.(Math.round(performance.now() - arrivedAt));
    // Only an answer that waits can be left by its client: the others are written at once.
    const waits = !('reply' in answer) || answer.before !== undefined;
    if (waits && clientClosed !== undefined) response.once('close', unanswered);
    // From here on a close is the simulator's own (an answer written, a hold ended).
    const answering = (): void => void response.off('close', unanswered);
    if (!('reply' in answer)) return hold(response, answer.holdMs, answering);
    if (answer.before !== undefined) await answer.before;
    answering();
    answer.writing?.();
    send(response, answer.reply, answer);
    return answer.reply.status;
  };

  const delayMs = options.delayMs ?? 0;
  const answer = async (request: IncomingMessage, response: ServerResponse): Promise<number> => {
    const arrivedAt = performance.now();
    options.onArrival?.(request.url ?? '/');
    if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
    const path = (request.url ?? '/').split('?')[0] ?? '/';
    if (path.startsWith(CONTROL_PREFIX)) return answerControl(request, response, path);
    const route = routeOf(path);
    if (!('namespace' in route)) {
      request.resume();
      send(response, route);
      return route.status;
    }
    const body = await readBody(request);
    return write(response, simulator.answer(route.namespace, request, route.path, body, scheme), arrivedAt);
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
    withdrawalsReceived: (scenario) => scenarios.get(scenario)?.withdrawalsReceived ?? 0,
    close: () =>
      new Promise<void>((resolve) => {
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
