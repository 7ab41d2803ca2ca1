/**
 * One HTTP exchange with the environment as data: what checks judge and what a person needs to
 * reproduce it. Nothing here sends anything (that is http.ts), so checks and reporters can use it.
 * Everything it renders is redacted before it is cut.
 */
import type { JsonValue } from './checks/types.ts';
import type { OperationId } from './spec.ts';
import { excerpt, redact, redactHeaders } from './redact.ts';
import { boundedJson } from './shape.ts';
export interface SentRequest {
  readonly method: 'POST';
  readonly url: string;
  /**
   * Given to send(): the headers of the case. Returned in the exchange: every header that went on the
   * wire, in order, Host, Content-Length and Connection included (http.ts onTheWire).
   */
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

const REPRODUCED_BODY_CHARS = 2_000;

/**
 * Headers curl adds of its own when the request does not set them; an empty value (`-H 'Accept:'`)
 * stops it, so that the line sends what the suite sent and nothing more.
 */
function curlDefaults(body: string | undefined): string[] {
  if (body === undefined) return ['User-Agent', 'Accept'];
  // With --data-raw curl adds a form content type, and Expect: 100-continue above 1 KB.
  return ['User-Agent', 'Accept', 'Content-Type', ...(Buffer.byteLength(body) > 1_024 ? ['Expect'] : [])];
}

/** A `curl` line that sends exactly the recorded request, with every secret masked. */
export function curlLine(request: SentRequest): string {
  const sent = new Set(Object.keys(request.headers).map((name) => name.toLowerCase()));
  const parts = ['curl', '-i', '--http1.1', '-X', request.method, shellQuote(redact(request.url))];
  for (const [name, value] of Object.entries(redactHeaders(request.headers)))
    parts.push('-H', shellQuote(`${name}: ${value}`));
  for (const name of curlDefaults(request.body))
    if (!sent.has(name.toLowerCase())) parts.push('-H', shellQuote(`${name}:`));
  if (request.body !== undefined)
    parts.push('--data-raw', shellQuote(excerpt(request.body, REPRODUCED_BODY_CHARS)));
  return parts.join(' ');
}

const DESCRIBED_BODY_CHARS = 300;

/**
 * A short, redacted description of a response for evidence. A JSON body is described from its
 * parsed value, bounded and masked before it is cut, so that no escape in the text hides a secret.
 */
export function describeResponse(response: ReceivedResponse): string {
  const body = response.json === undefined ? response.bodyText : JSON.stringify(boundedJson(response.json));
  return excerpt(
    `${response.status} ${response.contentType || '(no content-type)'} ${body}`.trim(),
    DESCRIBED_BODY_CHARS,
  );
}
