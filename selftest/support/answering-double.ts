/**
 * A local server that answers every request with a handler and records what arrived: plain http, or
 * https with a certificate made for the test. For the preflight's self-tests, in process or through certify.
 */
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer, type ServerOptions } from 'node:https';
import type { AddressInfo, Server } from 'node:net';
import type { Certificate } from './certificates.ts';

export interface Received {
  readonly method: string;
  readonly path: string;
  readonly headers: IncomingMessage['headers'];
  readonly body: string;
}

export interface AnsweringDouble {
  /** scheme://127.0.0.1:port, without a trailing slash. */
  readonly url: string;
  readonly received: Received[];
  close(): Promise<void>;
}

export type Handler = (path: string, res: ServerResponse) => void;

/** Its certificate, and optionally what it asks of clients (mutual TLS) and which TLS versions it speaks. */
export type DoubleTls = Certificate &
  Pick<ServerOptions, 'ca' | 'requestCert' | 'rejectUnauthorized' | 'maxVersion'>;

export async function listen(server: Server, scheme: 'http' | 'https'): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `${scheme}://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** Stops the server and drops its connections (http's keep-alive ones included). */
export function closing(server: Server & { closeAllConnections?: () => void }): () => Promise<void> {
  return () =>
    new Promise((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections?.();
    });
}

export async function serve(handler: Handler, certificate?: DoubleTls): Promise<AnsweringDouble> {
  const received: Received[] = [];
  const onRequest = (req: IncomingMessage, res: ServerResponse): void => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = req.url ?? '';
      received.push({
        method: req.method ?? '',
        path,
        headers: req.headers,
        body: Buffer.concat(chunks).toString(),
      });
      handler(path, res);
    });
  };
  const server =
    certificate === undefined ? createHttpServer(onRequest) : createHttpsServer(certificate, onRequest);
  const url = await listen(server, certificate === undefined ? 'http' : 'https');
  return { url, received, close: closing(server) };
}

export const json = (res: ServerResponse, status: number, body: unknown): void => {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
};

/** A JSON router's answer to any path it does not know, echoing the path and the time, as many do. */
export const routerNotFound = (path: string, res: ServerResponse): void => {
  json(res, 404, { timestamp: new Date().toISOString(), status: 404, error: 'Not Found', path });
};
