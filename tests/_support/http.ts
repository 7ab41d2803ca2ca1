/**
 * One HTTP exchange with the environment, recorded so that checks can judge it and a person can
 * reproduce it. Requests are never retried: a POST that may move money is sent once.
 */
import type { APIRequestContext } from '@playwright/test';
import type { JsonValue } from './checks/types.ts';
import type { OperationId } from './spec.ts';
import { redact, redactHeaders } from './redact.ts';

export interface SentRequest {
  readonly method: 'POST';
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  /** The raw body as sent; undefined when none was sent. */
  readonly body: string | undefined;
}

export interface ReceivedResponse {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly contentType: string;
  readonly bodyText: string;
  /** The parsed body, or undefined when the body is empty or not JSON. */
  readonly json: JsonValue | undefined;
}

export interface Exchange {
  readonly operation: OperationId;
  readonly request: SentRequest;
  readonly response: ReceivedResponse;
  readonly durationMs: number;
}

/** Thrown when no response arrived; for a withdrawal its outcome is unknown and the ledger says so. */
export class TransportError extends Error {
  constructor(
    readonly request: SentRequest,
    cause: unknown,
  ) {
    super(`${request.method} ${request.url} got no response: ${redact(cause instanceof Error ? cause.message : String(cause))}`);
    this.name = 'TransportError';
  }
}

function parseJson(text: string): JsonValue | undefined {
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text) as JsonValue;
  } catch {
    return undefined;
  }
}

export async function send(
  context: APIRequestContext,
  operation: OperationId,
  request: SentRequest,
  timeoutMs: number,
): Promise<Exchange> {
  const started = performance.now();
  try {
    const response = await context.fetch(request.url, {
      method: request.method,
      headers: { ...request.headers },
      ...(request.body === undefined ? {} : { data: request.body }),
      timeout: timeoutMs,
      maxRetries: 0,
      maxRedirects: 0,
      failOnStatusCode: false,
    });
    const bodyText = await response.text();
    const headers = response.headers();
    return {
      operation,
      request,
      response: {
        status: response.status(),
        headers,
        contentType: headers['content-type'] ?? '',
        bodyText,
        json: parseJson(bodyText),
      },
      durationMs: Math.round(performance.now() - started),
    };
  } catch (error) {
    throw new TransportError(request, error);
  }
}

function shellQuote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

/** A `curl` line that reproduces the request, with every secret masked. */
export function curlLine(request: SentRequest): string {
  const parts = ['curl', '-i', '-X', request.method, shellQuote(request.url)];
  for (const [name, value] of Object.entries(redactHeaders(request.headers))) parts.push('-H', shellQuote(`${name}: ${value}`));
  if (request.body !== undefined) parts.push('--data-raw', shellQuote(redact(request.body.length > 2_000 ? `${request.body.slice(0, 2_000)}…` : request.body)));
  return parts.join(' ');
}

/** A short, redacted description of a response for evidence. */
export function describeResponse(response: ReceivedResponse): string {
  const body = response.bodyText.length > 300 ? `${response.bodyText.slice(0, 300)}…` : response.bodyText;
  return redact(`${response.status} ${response.contentType || '(no content-type)'} ${body}`.trim());
}
