/**
 * Sends one request to the environment and records the exchange. Requests are never retried: a
 * POST that may move money is sent once.
 */
import type { APIRequestContext } from '@playwright/test';
import { parseJson, type Exchange, type SentRequest } from './exchange.ts';
import type { OperationId } from './spec.ts';
import { redact } from './redact.ts';

/** Thrown when no response arrived; for a withdrawal its outcome is unknown and the ledger says so. */
export class TransportError extends Error {
  constructor(
    readonly request: SentRequest,
    cause: unknown,
  ) {
    super(
      `${request.method} ${request.url} got no response: ${redact(cause instanceof Error ? cause.message : String(cause))}`,
    );
    this.name = 'TransportError';
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
