/**
 * Sending: the two operations of the document as calls that return the exchange. The one place that
 * builds a request's URL. Every token a response carries is registered as a secret by the HTTP layer
 * (http.ts), whatever the operation, status or content type.
 */
import type { Exchange } from '../evidence/exchange.ts';
import { send, type HttpClient } from './http.ts';
import { readPath } from '../base/json.ts';
import type { Headers } from '../spec/requests.ts';
import type { OperationId } from '../spec/spec.ts';

const PATHS: Readonly<Record<OperationId, string>> = {
  createToken: '/auth/token',
  createWithdraw: '/pix/payment',
};

export interface OperationsOptions {
  readonly baseUrl: string;
  readonly timeoutMs: number;
  /** Where the token is in a token response (PIX_TOKEN_FIELD). */
  readonly tokenField: string;
}

export class Operations {
  constructor(
    private readonly client: HttpClient,
    private readonly options: OperationsOptions,
  ) {}

  urlOf(operation: OperationId): string {
    return `${this.options.baseUrl}${PATHS[operation]}`;
  }

  /** POST /auth/token (§4.1): no body. */
  createToken(headers: Headers): Promise<Exchange> {
    return this.post('createToken', headers, undefined);
  }

  /** POST /pix/payment (§4.2), exactly once: callers gate it and write the ledger first. */
  createWithdraw(headers: Headers, body: string | undefined): Promise<Exchange> {
    return this.post('createWithdraw', headers, body);
  }

  /** The token a token response carries at PIX_TOKEN_FIELD, if it is a string. */
  tokenIn(exchange: Exchange): string | undefined {
    const token = readPath(exchange.response.json, this.options.tokenField);
    return typeof token === 'string' ? token : undefined;
  }

  private post(operation: OperationId, headers: Headers, body: string | undefined): Promise<Exchange> {
    return send(
      this.client,
      operation,
      { method: 'POST', url: this.urlOf(operation), headers, body },
      this.options.timeoutMs,
    );
  }
}
