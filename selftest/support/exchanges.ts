/**
 * Exchanges and webhook deliveries made by hand, for the self-tests that call a check's judge
 * directly: only what a judge reads varies (status, body, content type; method, outcome, body).
 */
import { parseJson, type Exchange } from '../../src/evidence/exchange.ts';
import type { Delivery } from '../../src/evidence/delivery.ts';
import type { OperationId } from '../../src/spec/spec.ts';

/** An answer of the environment to a request; the body is parsed as the client parses it. */
export function answered(
  status: number,
  body = '{}',
  contentType = 'application/json',
  operation: OperationId = 'createWithdraw',
  requestBody?: string,
): Exchange {
  return {
    operation,
    request: { method: 'POST', url: 'http://127.0.0.1:1/pix/payment', headers: {}, body: requestBody },
    response: {
      status,
      headers: { 'content-type': contentType },
      contentType,
      bodyText: body,
      json: parseJson(body),
    },
    durationMs: 1,
  };
}

/** A request that reached the webhook receiver: by default a complete JSON POST, answered 200. */
export function delivered(body: string, extra: Partial<Delivery> = {}): Delivery {
  return {
    seq: 1,
    path: '/hook/1',
    method: 'POST',
    contentType: 'application/json',
    bodyBytes: Buffer.byteLength(body),
    declaredBytes: Buffer.byteLength(body),
    receivedAt: 0,
    answeredStatus: 200,
    outcome: 'matched',
    clientCertificate: null,
    headers: { 'content-type': 'application/json' },
    body,
    truncated: false,
    ...extra,
  };
}
