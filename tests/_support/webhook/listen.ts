/** Starting and stopping the webhook receiver's two HTTP servers. */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** Listens and resolves with the bound base address, e.g. http://127.0.0.1:41234. */
export function listen(server: Server, host: string, port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      const { address, family, port: boundPort } = server.address() as AddressInfo;
      resolve(`http://${family === 'IPv6' ? `[${address}]` : address}:${boundPort}`);
    });
  });
}

/** Stops listening and cuts every open connection, long polls included; resolves when nothing listens. */
export function shutDown(server: Server): Promise<void> {
  return new Promise((resolve) => {
    // Resolves also when the server was not listening: stopping twice is not an error.
    server.close(() => {
      resolve();
    });
    server.closeAllConnections();
  });
}
