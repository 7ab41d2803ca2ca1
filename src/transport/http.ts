/**
 * Sends one request to the environment and records the exchange exactly as it went on the wire.
 *
 * The client sends only what it is given: no user-agent, accept or accept-encoding of its own, so a
 * case that leaves out Accept really leaves it out. The headers HTTP/1.1 needs (Host, Content-Length,
 * Connection) are set explicitly and recorded with the others, so the recorded request, and the curl
 * line made from it, is what the environment received. No redirect is followed, nothing is retried
 * (a POST that may move money is sent once), certificates are verified, and every exchange is
 * bounded: a deadline for the whole exchange and a byte limit on the body, counted after
 * decompression. Every token a response carries is registered as a secret before anyone sees it.
 */
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { Transform } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import { parseJson, type Exchange, type SentRequest } from '../evidence/exchange.ts';
import { harvestTokens } from '../secrets/harvest.ts';
import { redact } from '../secrets/redact.ts';
import type { OperationId } from '../spec/spec.ts';
import { secureContextOf, type TlsSettings } from './tls.ts';
import { deadline } from '../base/deadline.ts';

export interface HttpClientOptions {
  /** Bytes of a response body, counted after decompression, past which the exchange is a transport error. */
  readonly maxResponseBytes: number;
  /** PIX_TOKEN_FIELD: where the token operation's answer carries the token, harvested with the usual fields. */
  readonly tokenField: string;
  /** A private CA or a client certificate, as the preflight takes them. */
  readonly tls?: TlsSettings;
}

/**
 * How long a connection may wait idle for the next request. A server closes idle connections on its
 * own clock (node's after 5 s, and it says so in Keep-Alive, which the agent then heeds; others say
 * nothing), and a request written just as the close arrives dies with "socket hang up": a withdrawal
 * that is never resent then has an unknown outcome, and a RESPONSE-COMPLETE failure is blamed on
 * the provider. Closing our side first, well before, leaves that race to a process stalled for
 * seconds; a request after a longer pause opens a new connection.
 */
export const IDLE_CONNECTION_MS = 2_000;

/** One per worker: the connections it keeps alive and the bounds of every exchange. */
export class HttpClient {
  // `timeout` closes a pooled connection idle that long; a request in flight is bounded by its own timer.
  readonly #http = new HttpAgent({ keepAlive: true, timeout: IDLE_CONNECTION_MS });
  readonly #https: HttpsAgent;

  readonly options: HttpClientOptions;

  constructor(options: HttpClientOptions) {
    this.options = options;
    const context = secureContextOf(options.tls ?? {});
    this.#https = new HttpsAgent({
      keepAlive: true,
      timeout: IDLE_CONNECTION_MS,
      ...(context === undefined ? {} : { secureContext: context }),
      rejectUnauthorized: true,
    });
  }

  agentFor(url: URL): HttpAgent {
    return url.protocol === 'https:' ? this.#https : this.#http;
  }

  close(): void {
    this.#http.destroy();
    this.#https.destroy();
  }
}

/** Thrown when no complete response arrived; for a withdrawal its outcome is unknown and the ledger says so. */
export class TransportError extends Error {
  readonly request: SentRequest;

  constructor(request: SentRequest, problem: string) {
    super(redact(`${request.method} ${request.url} got no complete response: ${problem}`));
    this.request = request;
    this.name = 'TransportError';
  }
}

/**
 * The HTTP client refused the request before anything left (a header with a line break, a name that
 * is no token): the environment never saw it, so a withdrawal was certainly not made.
 */
export class NotSentError extends TransportError {
  override readonly name = 'NotSentError';
}

/** The client's refusal of a request it was given, before sending: thrown by node synchronously. */
class RefusedLocally extends Error {}

/** The body left unread past the limit: the rest of a huge, endless or decompression-bomb body. */
class BodyTooLarge extends Error {}

const hasHeader = (headers: Readonly<Record<string, string>>, name: string): boolean =>
  Object.keys(headers).some((key) => key.toLowerCase() === name);

/**
 * The request exactly as it will be sent: the given headers in their order and spelling, plus Host,
 * Content-Length and Connection where the caller did not set them, and the URL without user-info,
 * which is never sent (the document authenticates with headers).
 */
function onTheWire(request: SentRequest): SentRequest {
  const url = new URL(request.url);
  url.username = '';
  url.password = '';
  const bodyBytes = request.body === undefined ? 0 : Buffer.byteLength(request.body);
  return {
    method: request.method,
    url: url.toString(),
    headers: {
      ...(hasHeader(request.headers, 'host') ? {} : { Host: url.host }),
      ...request.headers,
      ...(hasHeader(request.headers, 'content-length') ? {} : { 'Content-Length': String(bodyBytes) }),
      ...(hasHeader(request.headers, 'connection') ? {} : { Connection: 'keep-alive' }),
    },
    body: request.body,
  };
}

function decoderFor(encoding: string | undefined): Transform | undefined {
  switch (encoding?.trim().toLowerCase()) {
    case 'gzip':
    case 'x-gzip':
      return createGunzip();
    case 'deflate':
      return createInflate();
    case 'br':
      return createBrotliDecompress();
    default:
      return undefined;
  }
}

function flatHeaders(response: IncomingMessage): Record<string, string> {
  return Object.fromEntries(
    Object.entries(response.headers).map(([name, value]) => [
      name,
      Array.isArray(value) ? value.join(', ') : (value ?? ''),
    ]),
  );
}

/** Reads a body up to the limit, decompressed; the bytes received and the bytes decoded both count. */
export function readBody(response: IncomingMessage, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const encoding = response.headers['content-encoding'];
    const decoder = decoderFor(encoding);
    const chunks: Buffer[] = [];
    let decoded = 0;
    let received = 0;
    const stop = (error: Error): void => {
      response.destroy();
      decoder?.destroy();
      reject(error);
    };
    const tooLarge = (): BodyTooLarge => new BodyTooLarge(`the response body exceeded ${limit} bytes`);
    if (decoder !== undefined) {
      // An endless run of empty gzip members decodes to nothing: what arrives counts too.
      response.on('data', (chunk: Buffer) => {
        received += chunk.length;
        if (received > limit) stop(tooLarge());
      });
      decoder.on('error', (error) =>
        stop(new Error(`the body could not be decoded (${encoding ?? ''}): ${error.message}`)),
      );
      response.pipe(decoder);
    }
    const source = decoder ?? response;
    source.on('data', (chunk: Buffer) => {
      decoded += chunk.length;
      if (decoded > limit) stop(tooLarge());
      else chunks.push(chunk);
    });
    source.on('end', () => resolve(Buffer.concat(chunks)));
    response.on('error', stop);
    response.on('close', () => {
      if (!response.complete) stop(new Error('the connection closed before the body was complete'));
    });
  });
}

interface Received {
  readonly response: IncomingMessage;
  readonly body: Buffer;
}

function exchangeOnce(client: HttpClient, request: SentRequest, timeoutMs: number): Promise<Received> {
  const url = new URL(request.url);
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    let outgoing: ReturnType<typeof send>;
    try {
      outgoing = send({
        method: request.method,
        hostname: url.hostname.replace(/^\[|\]$/g, ''),
        port: url.port,
        path: `${url.pathname}${url.search}`,
        // As an array, node sends the headers exactly as given and adds none of its own.
        headers: Object.entries(request.headers).flat(),
        agent: client.agentFor(url),
      });
    } catch (error) {
      reject(
        new RefusedLocally(
          `the HTTP client refused to send it: ${error instanceof Error ? error.message : String(error)}`,
        ),
      );
      return;
    }
    let settled = false;
    const settle = (outcome: () => void): void => {
      if (settled) return;
      settled = true;
      timer.clear();
      outcome();
    };
    const fail = (error: Error): void =>
      settle(() => {
        outgoing.destroy();
        reject(error);
      });
    const timer = deadline(timeoutMs, () =>
      fail(new Error(`timed out after ${timeoutMs} ms (PIX_REQUEST_TIMEOUT_MS)`)),
    );
    outgoing.on('error', fail);
    outgoing.on('response', (response) => {
      readBody(response, client.options.maxResponseBytes).then(
        (body) => settle(() => resolve({ response, body })),
        (error: unknown) =>
          fail(
            error instanceof BodyTooLarge
              ? describeTooLarge(error, response, client)
              : error instanceof Error
                ? error
                : new Error(String(error)),
          ),
      );
    });
    // As bytes: a string body would carry the head with it in its own encoding (UTF-8), not latin1,
    // so a header's U+00A0 would leave as two bytes and the provider read another value.
    outgoing.end(request.body === undefined ? undefined : Buffer.from(request.body, 'utf8'));
  });
}

function describeTooLarge(error: BodyTooLarge, response: IncomingMessage, client: HttpClient): Error {
  return new Error(
    `status ${response.statusCode ?? '?'}, but ${error.message} (PIX_MAX_RESPONSE_BYTES=${client.options.maxResponseBytes}, counted after decompression), so the rest was not read; raise PIX_MAX_RESPONSE_BYTES if the environment's answers are really that large`,
  );
}

export async function send(
  client: HttpClient,
  operation: OperationId,
  request: SentRequest,
  timeoutMs: number,
): Promise<Exchange> {
  const sent = onTheWire(request);
  const started = performance.now();
  let read: Received;
  try {
    read = await exchangeOnce(client, sent, timeoutMs);
  } catch (error) {
    if (error instanceof RefusedLocally) throw new NotSentError(sent, error.message);
    throw new TransportError(sent, error instanceof Error ? error.message : String(error));
  }
  const headers = flatHeaders(read.response);
  const bodyText = read.body.toString('utf8');
  const received = {
    status: read.response.statusCode ?? 0,
    headers,
    contentType: headers['content-type'] ?? '',
    bodyText,
    json: parseJson(bodyText),
  };
  harvestTokens(received, operation === 'createToken', client.options.tokenField);
  return {
    operation,
    request: sent,
    response: received,
    durationMs: Math.round(performance.now() - started),
    sentAt: started,
  };
}
