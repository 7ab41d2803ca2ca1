/** Starting and stopping the webhook receiver's HTTP(S) server. */
import type { Server as HttpServer } from 'node:http';
import type { Server as HttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';

export type WebServer = HttpServer | HttpsServer;

/** Listens and resolves with the bound address, e.g. { host: '127.0.0.1', port: 41234 }. */
export function listen(server: WebServer, host: string, port: number): Promise<AddressInfo> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve(server.address() as AddressInfo);
    });
  });
}

/**
 * The base address this machine reaches a bound address at, e.g. http://127.0.0.1:41234; a wildcard
 * bind (0.0.0.0, ::) is reached on loopback.
 */
export function localUrl(protocol: 'http' | 'https', { address, family, port }: AddressInfo): string {
  const ipv6 = family === 'IPv6';
  const host = address === '0.0.0.0' ? '127.0.0.1' : address === '::' ? '::1' : address;
  return `${protocol}://${ipv6 ? `[${host}]` : host}:${port}`;
}

/** Stops listening and cuts every open connection, long polls included; resolves when nothing listens. */
export function shutDown(server: WebServer): Promise<void> {
  return new Promise((resolve) => {
    // Resolves also when the server was not listening: stopping twice is not an error.
    server.close(() => {
      resolve();
    });
    server.closeAllConnections();
  });
}
