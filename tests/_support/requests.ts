/**
 * Builds the requests the document describes: valid headers and bodies, and the generated wrong
 * variants of them. Pure functions; sending is http.ts's job.
 */
import { randomBytes } from 'node:crypto';
import type { BodyMutation, CredentialCase, PlainHeaderCase } from './cases.ts';
import type { Config } from './config.ts';
import type { components } from './generated/pix-withdrawal.ts';

export type Headers = Readonly<Record<string, string>>;

/** Header names compare case-insensitively in HTTP; the document writes both Accept and accept. */
export function withoutHeader(headers: Headers, name: string): Headers {
  return Object.fromEntries(
    Object.entries(headers).filter(([key]) => key.toLowerCase() !== name.toLowerCase()),
  );
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

/** The same length and alphabet as the real value, so only its validity differs. */
function lookalike(value: string): string {
  const alphabet = /^[0-9a-f-]+$/.test(value)
    ? '0123456789abcdef'
    : 'ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz0123456789';
  const bytes = randomBytes(value.length);
  const out = Array.from(value, (c, i) => (c === '-' ? c : alphabet[(bytes[i] ?? 0) % alphabet.length]));
  const candidate = out.join('');
  return candidate === value ? `${candidate}x` : candidate;
}

/** A token that looks like the real one but is not: for a JWT the signature is altered. */
export function forgeToken(token: string): string {
  const [header, payload, signature, ...more] = token.split('.');
  if (header !== undefined && payload !== undefined && signature !== undefined && more.length === 0) {
    return `${header}.${payload}.${lookalike(signature)}`;
  }
  return lookalike(token);
}

const OTHER_PUBLIC_KEY = Buffer.from(
  '-----BEGIN PUBLIC KEY-----\nMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEconformancesuiteotherclientkey0000000000000000000000000000000000000==\n-----END PUBLIC KEY-----\n',
).toString('base64');

/** Applies a generated credential case to valid headers. */
export function applyCredentialCase(
  headers: Headers,
  testCase: CredentialCase,
  token: string | undefined,
): Headers {
  const { header } = testCase.credential;
  switch (testCase.variant) {
    case 'missing':
      return withoutHeader(headers, header);
    case 'wrong': {
      const current =
        Object.entries(headers).find(([k]) => k.toLowerCase() === header.toLowerCase())?.[1] ?? '';
      return withHeader(headers, header, testCase.credential.base64 ? OTHER_PUBLIC_KEY : lookalike(current));
    }
    case 'malformed':
      return withHeader(headers, header, 'this is not base64!');
    case 'not-bearer':
      return withHeader(headers, header, `Token ${token ?? ''}`);
    case 'forged':
      return withHeader(headers, header, `Bearer ${forgeToken(token ?? '')}`);
    case 'random':
      return withHeader(headers, header, `Bearer ${randomBytes(24).toString('hex')}`);
  }
}

/** Applies a generated Accept case: the header left out, or set to a value that is not JSON. */
export function applyPlainHeaderCase(headers: Headers, testCase: PlainHeaderCase): Headers {
  return testCase.value === undefined
    ? withoutHeader(headers, testCase.header)
    : withHeader(headers, testCase.header, testCase.value);
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

/** Applies a generated body case; the result is the raw text sent, or undefined for no body. */
export function applyBodyMutation(body: WithdrawBody, mutation: BodyMutation): string | undefined {
  switch (mutation.kind) {
    case 'raw':
      return mutation.body;
    case 'set':
      return JSON.stringify({ ...body, [mutation.field]: mutation.value });
    case 'omit':
      return JSON.stringify(
        Object.fromEntries(Object.entries(body).filter(([key]) => key !== mutation.field)),
      );
  }
}

export function withdrawalCode(prefix: string, runId: string, worker: number, counter: number): string {
  return `${prefix}${runId}-${worker}-${counter}`;
}
