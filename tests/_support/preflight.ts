/**
 * Before any check: can the environment be reached at all? Each failure says which step failed
 * (DNS, connection, TLS, time-out) and what to do, instead of fifty failed requests.
 */
import { lookup } from 'node:dns/promises';
import { connect as netConnect, type Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';

export class PreflightError extends Error {
  override readonly name = 'PreflightError';
}

function open(url: URL, address: string, timeoutMs: number): Promise<void> {
  const port = Number(url.port || (url.protocol === 'https:' ? 443 : 80));
  return new Promise((resolve, reject) => {
    const socket: Socket =
      url.protocol === 'https:'
        ? tlsConnect({ host: address, port, servername: url.hostname, rejectUnauthorized: true }, () =>
            done(),
          )
        : netConnect({ host: address, port }, () => done());
    const timer = setTimeout(
      () =>
        fail(
          new PreflightError(
            `${url.host} did not answer within ${timeoutMs} ms (time-out). Check PIX_BASE_URL, a VPN or firewall, or raise PIX_REQUEST_TIMEOUT_MS.`,
          ),
        ),
      timeoutMs,
    );
    function done(): void {
      clearTimeout(timer);
      socket.destroy();
      resolve();
    }
    function fail(error: Error): void {
      clearTimeout(timer);
      socket.destroy();
      reject(error);
    }
    socket.once('error', (error: NodeJS.ErrnoException) => {
      const tls = url.protocol === 'https:' && error.code !== 'ECONNREFUSED' && error.code !== 'ECONNRESET';
      fail(
        new PreflightError(
          tls
            ? `TLS with ${url.host} failed: ${error.message}. The suite verifies certificates; fix the server certificate or the trust store (NODE_EXTRA_CA_CERTS).`
            : `could not connect to ${url.host}: ${error.code ?? error.message}. Check that the environment is up and PIX_BASE_URL is right.`,
        ),
      );
    });
  });
}

export async function preflight(baseUrl: string, timeoutMs: number): Promise<void> {
  const url = new URL(baseUrl);
  let address: string;
  try {
    address = (await lookup(url.hostname.replace(/^\[|\]$/g, ''))).address;
  } catch (error) {
    throw new PreflightError(
      `the host ${url.hostname} does not resolve (DNS: ${(error as NodeJS.ErrnoException).code ?? 'error'}). Check PIX_BASE_URL.`,
    );
  }
  await open(url, address, timeoutMs);
}
