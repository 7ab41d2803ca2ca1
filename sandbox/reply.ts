/** What a handler answers, before the server writes it; every error is JSON unless a fault says otherwise. */

export type Reply = {
  readonly status: number;
  readonly headers?: Readonly<Record<string, string>>;
} & ({ readonly json: unknown } | { readonly text: string });

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
