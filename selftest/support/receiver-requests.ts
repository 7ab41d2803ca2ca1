/**
 * Requests a provider (or anyone) may send the webhook receiver, well-formed or not, over HTTP or
 * HTTPS, for the receiver's self-tests. Every socket has a time-out.
 */
import { Agent, request as httpRequest, type IncomingHttpHeaders, type OutgoingHttpHeaders } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { connect } from 'node:net';

// Generous: a bound for a receiver that hangs, not a measure of speed (the machine may be busy).
const SOCKET_TIMEOUT_MS = 30_000;

export interface Answer {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

export interface Sending {
  readonly method?: string;
  readonly headers?: OutgoingHttpHeaders;
  readonly body?: string | Buffer;
  readonly agent?: Agent;
  /** HTTPS only: the CA to trust, and the client certificate and key to present. */
  readonly tls?: { readonly ca: string; readonly cert?: string; readonly key?: string };
}

export function send(
  url: string,
  { method = 'POST', headers = {}, body, agent, tls }: Sending = {},
): Promise<Answer> {
  const request = url.startsWith('https:') ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const options = { method, headers, ...(agent === undefined ? {} : { agent }), ...(tls ?? {}) };
    const req = request(url, options, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          body: Buffer.concat(chunks).toString('utf8'),
        });
      });
    });
    req.setTimeout(SOCKET_TIMEOUT_MS, () =>
      req.destroy(new Error(`no answer from ${url} within ${SOCKET_TIMEOUT_MS} ms`)),
    );
    req.on('error', reject);
    req.end(body);
  });
}

/**
 * Writes raw bytes to a plain-HTTP address and resolves with whatever comes back until the server
 * closes; with `hangUp`, goes away right after writing, as a sender that drops mid-request.
 */
export function sendRaw(baseUrl: string, bytes: string, { hangUp = false } = {}): Promise<string> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => {
      if (!hangUp) socket.end(bytes);
      else
        socket.write(bytes, () => {
          socket.destroy();
        });
    });
    let text = '';
    socket.setTimeout(SOCKET_TIMEOUT_MS, () =>
      socket.destroy(new Error('the server neither answered nor closed')),
    );
    socket.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')));
    socket.on('close', () => {
      resolve(text);
    });
    socket.on('error', reject);
  });
}

/** True when nothing listens at the address any more. */
export function connectionRefused(url: string): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname, () => {
      socket.destroy();
      resolve(false);
    });
    socket.on('error', (error: NodeJS.ErrnoException) => {
      resolve(error.code === 'ECONNREFUSED');
    });
  });
}
