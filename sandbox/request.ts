/** The parts of an HTTP request the handlers read, and the Accept rule both operations share. */
import type { IncomingHttpHeaders } from 'node:http';
import type { Behaviour } from './behaviour.ts';
import { type Reply, refuse, serverError } from './reply.ts';

export interface SandboxRequest {
  /** Names in lower case, as node:http gives them. */
  readonly headers: IncomingHttpHeaders;
  readonly body: Buffer;
}

export function headerOf(request: SandboxRequest, name: string): string | undefined {
  const value = request.headers[name.toLowerCase()];
  return typeof value === 'string' ? value : undefined;
}

/** True when one of the listed media types is application/json, whatever its parameters. */
function acceptsJson(accept: string): boolean {
  return accept.split(',').some((range) => range.split(';')[0]?.trim().toLowerCase() === 'application/json');
}

/** §4.1 and §4.2 require Accept: application/json; the document does not say how its absence is answered. */
export function judgeAccept(request: SandboxRequest, behaviour: Behaviour): Reply | undefined {
  const accept = headerOf(request, 'accept');
  if (behaviour.acceptHeader === 'ignore' || (accept !== undefined && acceptsJson(accept))) return undefined;
  if (behaviour.acceptHeader === 'server-error') return serverError('failed to negotiate the response type');
  return refuse(400, 'invalid_accept', 'The Accept header must be application/json.');
}
