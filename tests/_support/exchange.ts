/**
 * One HTTP exchange with the environment as data: what checks judge and what a person needs to
 * reproduce it. Nothing here sends anything (that is http.ts), so checks and reporters can use it.
 */
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

/** The parsed JSON value, or undefined when the text is empty or not JSON. */
export function parseJson(text: string): JsonValue | undefined {
  try {
    return JSON.parse(text) as JsonValue;
  } catch {
    return undefined;
  }
}

function shellQuote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

/** A `curl` line that reproduces the request, with every secret masked. */
export function curlLine(request: SentRequest): string {
  const parts = ['curl', '-i', '-X', request.method, shellQuote(request.url)];
  for (const [name, value] of Object.entries(redactHeaders(request.headers)))
    parts.push('-H', shellQuote(`${name}: ${value}`));
  if (request.body !== undefined)
    parts.push(
      '--data-raw',
      shellQuote(redact(request.body.length > 2_000 ? `${request.body.slice(0, 2_000)}…` : request.body)),
    );
  return parts.join(' ');
}

/** A short, redacted description of a response for evidence. */
export function describeResponse(response: ReceivedResponse): string {
  const body = response.bodyText.length > 300 ? `${response.bodyText.slice(0, 300)}…` : response.bodyText;
  return redact(`${response.status} ${response.contentType || '(no content-type)'} ${body}`.trim());
}
