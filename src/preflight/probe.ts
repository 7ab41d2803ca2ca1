/**
 * The preflight's own client, on a raw socket: one harmless request within a deadline, reading only
 * the start of the answer (status, media type, location, a sample of the body), with TLS judged on the way.
 */
import { request, type IncomingMessage } from 'node:http';
import { connect as netConnect, isIP, type Socket } from 'node:net';
import { connect as tlsConnect, type SecureContext, type TLSSocket } from 'node:tls';
import { deadline as deadlineOf } from '../base/deadline.ts';
import { type TlsSettings } from '../transport/tls.ts';
import { alertProblem, certificateProblem, connectionProblem } from './diagnosis.ts';
import { fail, PreflightError, shown } from './errors.ts';

export interface Answer {
  readonly status: number;
  /** The media type without parameters, lower case; '' when absent. */
  readonly mediaType: string;
  readonly location: string | undefined;
  /** The start of the body, enough to tell what it is. */
  readonly body: string;
}

export const BODY_SAMPLE_BYTES = 16 * 1024;

export function under(base: URL, path: string): URL {
  return new URL(`${base.pathname.replace(/\/*$/, '/')}${path}`, base);
}

export function remaining(deadline: number): number {
  return Math.max(1, deadline - Date.now());
}

export function timeOut(url: URL, timeoutMs: number): PreflightError {
  return fail(
    `${url.host} did not answer within ${timeoutMs} ms (time-out)`,
    'Check PIX_BASE_URL, a VPN or firewall, or raise PIX_REQUEST_TIMEOUT_MS.',
  );
}

/** One preflight: where, and within what time, over which TLS settings. */
export interface Attempt {
  readonly base: URL;
  readonly timeoutMs: number;
  readonly deadline: number;
  readonly tls: TlsSettings;
  /** Built from `tls` once, before any connection; undefined for the default trust. */
  readonly context: SecureContext | undefined;
}

/**
 * Connects without sending anything. TLS is verified here rather than by OpenSSL refusing the
 * handshake, so the certificate can be described; nothing is sent unless it is verified.
 */
export function connect({ base, deadline, tls, context, timeoutMs }: Attempt): Promise<Socket> {
  const host = base.hostname.replace(/^\[|\]$/g, '');
  const secure = base.protocol === 'https:';
  const port = Number(base.port || (secure ? 443 : 80));
  return new Promise((resolve, reject) => {
    const socket = secure
      ? tlsConnect({
          ...(context === undefined ? {} : { secureContext: context }),
          host,
          port,
          ...(isIP(host) === 0 && { servername: host }),
          rejectUnauthorized: false,
        })
      : netConnect({ host, port });
    const timer = deadlineOf(remaining(deadline), () => {
      stop(timeOut(base, timeoutMs));
    });
    function stop(error: PreflightError): void {
      timer.clear();
      socket.destroy();
      reject(error);
    }
    socket.once('error', (error: NodeJS.ErrnoException) => {
      stop(connectionProblem(base, tls, error));
    });
    socket.once(secure ? 'secureConnect' : 'connect', () => {
      const problem = secure ? certificateProblem(base, tls, socket as TLSSocket) : undefined;
      if (problem !== undefined) {
        stop(problem);
        return;
      }
      timer.clear();
      socket.removeAllListeners('error');
      resolve(socket);
    });
  });
}

export function mediaTypeOf(response: IncomingMessage): string {
  const type = (response.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  return /^[\w.+-]+\/[\w.+-]+$/.test(type) ? type : type === '' ? '' : 'an unusual content type';
}

/**
 * POST `target` with no credentials and no body, and read the status, the headers and the start of the
 * body; at the deadline an answer already begun is judged on what has arrived.
 */
export async function ask(attempt: Attempt, target: URL): Promise<Answer> {
  const socket = await connect(attempt);
  return new Promise((resolve, reject) => {
    const req = request({
      createConnection: () => socket,
      method: 'POST',
      path: target.pathname,
      headers: { host: target.host, accept: 'application/json', 'content-length': '0', connection: 'close' },
    });
    let atDeadline = (): void => {
      reject(timeOut(attempt.base, attempt.timeoutMs));
    };
    const timer = deadlineOf(remaining(attempt.deadline), () => {
      socket.destroy();
      atDeadline();
    });
    // Also after the answer, when the sample is taken and the rest dropped: then rejecting is a no-op.
    req.on('error', (error: NodeJS.ErrnoException) => {
      timer.clear();
      const code = error.code ?? 'error';
      reject(
        (target.protocol === 'https:' ? alertProblem(attempt.base, attempt.tls, code, true) : undefined) ??
          fail(
            `POST ${shown(target)} got no HTTP answer (${code})`,
            'Check that PIX_BASE_URL is right (https:// for a TLS port) and that the environment is up.',
          ),
      );
    });
    req.once('response', (response) => {
      const chunks: Buffer[] = [];
      let size = 0;
      const done = (): void => {
        timer.clear();
        socket.destroy();
        resolve({
          status: response.statusCode ?? 0,
          mediaType: mediaTypeOf(response),
          location: response.headers.location,
          body: Buffer.concat(chunks).toString('utf8'),
        });
      };
      atDeadline = done;
      response.on('data', (chunk: Buffer) => {
        chunks.push(chunk);
        size += chunk.length;
        if (size >= BODY_SAMPLE_BYTES) done();
      });
      response.once('end', done);
      response.once('error', done);
    });
    req.end();
  });
}
