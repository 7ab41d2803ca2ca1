/**
 * Builds the valid requests the document describes: headers and bodies. Pure functions; the check
 * families make them wrong, and sending is http.ts's job.
 */
import type { Config } from '../config/config.ts';
import type { components } from './generated/pix-withdrawal.ts';

export type Headers = Readonly<Record<string, string>>;

/** Header names compare case-insensitively in HTTP; the document writes both Accept and accept. */
export function withoutHeader(headers: Headers, name: string): Headers {
  return Object.fromEntries(
    Object.entries(headers).filter(([key]) => key.toLowerCase() !== name.toLowerCase()),
  );
}

/** The value of a header, its name compared case-insensitively. */
export function headerValue(headers: Headers, name: string): string | undefined {
  return Object.entries(headers).find(([key]) => key.toLowerCase() === name.toLowerCase())?.[1];
}

export function withHeader(headers: Headers, name: string, value: string): Headers {
  return { ...withoutHeader(headers, name), [name]: value };
}

export function tokenHeaders(config: Config): Headers {
  return { Accept: 'application/json', client_id: config.clientId, cert_client: config.certClient };
}

export function paymentHeaders(config: Config, token: string): Headers {
  return {
    client_id: config.clientId,
    client_secret: config.clientSecret,
    accept: 'application/json',
    Authorization: `Bearer ${token}`,
    'content-type': 'application/json',
  };
}

/** A complete withdraw request: the spec's type (generated from it) with every field present. */
export type WithdrawBody = Required<components['schemas']['WithdrawRequest']>;

/** A complete withdraw request (§2.1) to the integrator's own payee; check_code true guards against resends. */
export function validBody(config: Config, code: string, postBackUrl: string): WithdrawBody {
  return {
    amount: config.amount,
    code,
    name: config.payee.name,
    key_type: config.payee.keyType,
    document: config.payee.document,
    key_pix: config.payee.key,
    PostBackUrl: postBackUrl,
    check_code: true,
  };
}

/** Unique by run, worker and counter; the invented tag makes it read like a client's own reference. */
export function withdrawalCode(
  prefix: string,
  runId: string,
  worker: number,
  counter: number,
  tag: string,
): string {
  return `${prefix}${runId}-${worker}-${counter}-${tag}`;
}
