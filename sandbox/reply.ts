/** What a handler answers, before the server writes it; every error is JSON unless a fault says otherwise. */
import { STATUS_CODES } from 'node:http';
import type { Behaviour } from './behaviour.ts';

export type Reply = {
  readonly status: number;
  readonly headers?: Readonly<Record<string, string>>;
} & ({ readonly json: unknown; readonly problem?: true } | { readonly text: string });

export function json(status: number, value: unknown, headers?: Readonly<Record<string, string>>): Reply {
  return headers === undefined ? { status, json: value } : { status, json: value, headers };
}

export function text(status: number, body: string): Reply {
  return { status, text: body };
}

export function refuse(
  status: number,
  error: string,
  message: string,
  headers?: Readonly<Record<string, string>>,
): Reply {
  return json(status, { error, message }, headers);
}

/** A request body is read up to this many bytes; past it, only its start is kept and it is answered 413. */
export const MAX_BODY_BYTES = 1024 * 1024;

/** The answer to a body past MAX_BODY_BYTES; the connection closes, as the rest of the body was never read. */
export const bodyTooLarge = (): Reply =>
  refuse(413, 'body_too_large', 'The request body exceeds 1 MiB.', { connection: 'close' });

export function serverError(message: string): Reply {
  return refuse(500, 'internal_error', message);
}

/** The same error as one line of text, for the fault that answers errors as text/plain. */
export function errorAsText(reply: Reply): Reply {
  if (!('json' in reply)) return reply;
  const { error, message } = reply.json as { error?: unknown; message?: unknown };
  return {
    status: reply.status,
    text: `${String(error)}: ${String(message)}`,
    ...(reply.headers && { headers: reply.headers }),
  };
}

/** Where the stack trace says the error was thrown: the provider's own files, as its server sees them. */
const STACK_FRAMES = [
  'at createWithdraw (/srv/pix-provider/src/handler.js:212:11)',
  'at Layer.handle [as handle_request] (/srv/pix-provider/node_modules/express/lib/router/layer.js:95:5)',
  'at process.processTicksAndRejections (node:internal/process/task_queues:95:5)',
];

/** A JSON error with the stack trace of its throw, when the behaviour leaks one; any other reply as it is. */
export function withStackTrace(behaviour: Pick<Behaviour, 'errorStackTraces'>, reply: Reply): Reply {
  if (!behaviour.errorStackTraces || reply.status < 400 || !('json' in reply)) return reply;
  const { message } = reply.json as { message?: unknown };
  const stack = [`Error: ${String(message)}`, ...STACK_FRAMES].join('\n    ');
  return { ...reply, json: { ...(reply.json as object), stack } };
}

/**
 * The same JSON error as RFC 9457 problem details: error as its type and title, message as detail,
 * other members (departures, stack) kept as extensions. A duplicate code's title says Duplicate, the
 * word by which clients of such providers recognise it.
 */
export function asProblem(reply: Reply): Reply {
  if (reply.status < 400 || !('json' in reply)) return reply;
  const { error, message, ...extensions } = reply.json as Record<string, unknown>;
  const title = error === 'code-duplicate' ? 'Duplicate code' : (STATUS_CODES[reply.status] ?? 'Error');
  return {
    ...reply,
    problem: true,
    json: {
      type: `urn:pix-simulator:problem:${String(error)}`,
      title,
      status: reply.status,
      detail: String(message),
      ...extensions,
    },
  };
}
