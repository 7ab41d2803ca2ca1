/**
 * The receiver's public side: whatever a provider (or anyone) sends is recorded where it belongs and
 * answered; nothing a sender does (malformed, oversized, aborted, slow, a burst, no certificate)
 * stops the server or throws out of it.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { TLSSocket } from 'node:tls';
import { excerpt, redact, redactHeaders, redactJson } from '../secrets/redact.ts';
import { summariseBody, type ClientCertificate, type Delivery, type Outcome } from '../evidence/delivery.ts';
import type { Location, ReceiverStore } from './store.ts';

export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;
const KEPT_BODY_BYTES = 64 * 1024;

export interface IntakeOptions {
  readonly maxBodyBytes: number;
  /** Refuse (403) every request whose connection presented no client certificate the CA signed. */
  readonly requireClientCert: boolean;
  /** Where problems of the receiver itself go (a journal that cannot write). */
  readonly log: (line: string) => void;
}

/** What the socket's current request became, when the HTTP parser (not the request) learns it. */
interface UnderWay {
  malformed: boolean;
  answeredStatus: number | null;
}

function flatHeaders(req: IncomingMessage): Record<string, string> {
  return Object.fromEntries(
    Object.entries(req.headers).map(([name, value]) => [
      name,
      Array.isArray(value) ? value.join(', ') : (value ?? ''),
    ]),
  );
}

function declaredBytes(req: IncomingMessage): number | null {
  const value = req.headers['content-length'];
  return value !== undefined && /^\d{1,15}$/.test(value) ? Number(value) : null;
}

function answer(res: ServerResponse, status: number, body: object, closeAfter = false): void {
  if (res.headersSent || res.destroyed) return;
  res.writeHead(status, {
    'content-type': 'application/json',
    ...(closeAfter ? { connection: 'close' } : {}),
  });
  // Cutting the connection is how the rest of a refused body is left unread.
  res.end(JSON.stringify(body), closeAfter ? () => res.socket?.destroy() : undefined);
}

/** X.509 names come one attribute a line; a report reads them better on one. */
const oneLine = (name: string): string => name.split('\n').join(', ');

const certificates = new WeakMap<object, ClientCertificate | null>();

/** The client certificate of the request's connection, looked up once per connection. */
export function clientCertificateOf(socket: object): ClientCertificate | null {
  if (!(socket instanceof TLSSocket)) return null;
  const known = certificates.get(socket);
  if (known !== undefined) return known;
  const peer = socket.getPeerX509Certificate();
  const certificate: ClientCertificate =
    peer === undefined
      ? { presented: false }
      : {
          presented: true,
          authorized: socket.authorized,
          authorizationError: socket.authorized ? null : String(socket.authorizationError),
          subject: oneLine(peer.subject),
          issuer: oneLine(peer.issuer),
          fingerprint256: peer.fingerprint256,
        };
  certificates.set(socket, certificate);
  return certificate;
}

export interface Intake {
  receive(req: IncomingMessage, res: ServerResponse): void;
  /** For the server's 'clientError': HTTP that does not parse, or a request that stalls. */
  refuseBrokenClient(error: NodeJS.ErrnoException, socket: Duplex): void;
}

/** A request target kept as evidence is cut here: the address's own is a few dozen characters. */
const MAX_TARGET_CHARS = 2_048;

export function createIntake(store: ReceiverStore, options: IntakeOptions): Intake {
  const underWay = new WeakMap<object, UnderWay>();
  const keep = (location: Location, arrival: Omit<Delivery, 'seq'>): Promise<unknown> =>
    store.record(location, arrival).catch((error: unknown) => {
      options.log(`could not keep a request to ${arrival.path}: ${String(error)}`);
      throw error;
    });

  const receive = (req: IncomingMessage, res: ServerResponse): void => {
    const url = req.url ?? '';
    const location = store.locate(url.slice(0, MAX_TARGET_CHARS));
    // A request naming one of a run's addresses keeps its query, which the address is matched on and the
    // evidence shows; anyone's request to a path of no run keeps its path only. Masked before it is cut.
    const path = excerpt(
      location.kind === 'unattributed' ? (url.split('?', 1)[0] ?? '') : url,
      MAX_TARGET_CHARS,
    );
    const certificate = clientCertificateOf(req.socket);
    const state: UnderWay = { malformed: false, answeredStatus: null };
    const kept: Buffer[] = [];
    // Every chunk of an address's body, up to the size limit, for the summary; dropped once it is made.
    const whole: Buffer[] = [];
    let keptBytes = 0;
    let bodyBytes = 0;
    let finished = false;
    underWay.set(req.socket, state);

    const finish = (outcome: Outcome, answeredStatus: number | null): Promise<unknown> => {
      finished = true;
      underWay.delete(req.socket);
      const withBody = location.kind === 'address';
      return keep(location, {
        path,
        method: req.method ?? '?',
        contentType: req.headers['content-type'] ?? null,
        bodyBytes,
        declaredBytes: declaredBytes(req),
        receivedAt: Date.now(),
        answeredStatus,
        outcome,
        clientCertificate: certificate,
        // Strays keep neither: they are anyone's, and a flood of them must cost next to nothing.
        headers: withBody ? redactHeaders(flatHeaders(req)) : {},
        body: withBody ? redact(Buffer.concat(kept).toString('utf8')) : '',
        truncated: withBody && bodyBytes > keptBytes,
        ...(withBody && (outcome === 'matched' || outcome === 'declined')
          ? { summary: redactJson(summariseBody(Buffer.concat(whole).toString('utf8'))) }
          : {}),
      });
    };

    // Refusals too are answered once kept, and cut the connection: the rest of the body stays unread.
    const refuse = (outcome: Outcome, status: number, error: string): void => {
      req.pause();
      void finish(outcome, status)
        .catch(() => undefined)
        .then(() => {
          answer(res, status, { received: false, error }, true);
        });
    };
    if (options.requireClientCert && !(certificate?.presented === true && certificate.authorized)) {
      refuse('refused', 403, 'a client certificate signed by our CA is required');
      return;
    }
    // A webhook with another method than POST is judged by its method (§6), and its content has no
    // meaning (a GET's): it is kept and answered at once, so that a body declared and never sent
    // cannot hold the run until the webhook wait runs out.
    if (location.kind === 'address' && req.method !== 'POST') {
      req.pause();
      finish('matched', 200).then(
        () => {
          answer(res, 200, { received: true }, true);
        },
        () => {
          answer(res, 503, { received: false, error: 'the receiver could not store this; try again' }, true);
        },
      );
      return;
    }
    req.on('data', (chunk: Buffer) => {
      if (finished) return;
      bodyBytes += chunk.length;
      if (location.kind === 'address' && bodyBytes <= options.maxBodyBytes) whole.push(chunk);
      if (keptBytes < KEPT_BODY_BYTES) {
        const part = chunk.subarray(0, KEPT_BODY_BYTES - keptBytes);
        kept.push(part);
        keptBytes += part.length;
      }
      if (bodyBytes > options.maxBodyBytes)
        refuse('too-large', 413, `body over ${options.maxBodyBytes} bytes`);
    });
    req.on('end', () => {
      if (finished) return;
      // The retry probe's address answers its first complete POST with the 5xx its run asked for.
      const declined = store.takeRefusal(location);
      if (declined !== undefined) {
        finish('declined', declined).then(
          () => {
            answer(res, declined, { received: false, error: 'not accepted this time; send it again' });
          },
          () => {
            answer(res, 503, { received: false, error: 'the receiver could not store this; try again' });
          },
        );
        return;
      }
      const delivered = location.kind === 'address';
      // Answered once kept (on disk, with a data directory): whoever sees our 2xx finds the delivery stored.
      finish(delivered ? 'matched' : 'stray', delivered ? 200 : 404).then(
        () => {
          if (delivered) answer(res, 200, { received: true });
          else answer(res, 404, { received: false, error: 'unknown address' });
        },
        () => {
          answer(res, 503, { received: false, error: 'the receiver could not store this; try again' });
        },
      );
    });
    // A sender that goes away mid-body surfaces here as 'aborted'; its 'close' below records it.
    req.on('error', () => {});
    req.on('close', () => {
      if (!finished)
        finish(state.malformed ? 'malformed' : 'aborted', state.answeredStatus).catch(() => undefined);
    });
  };

  /**
   * Malformed HTTP never reaches `receive`: it is answered 400 and kept as a malformed stray with
   * method and path '?', since a provider that sends garbage (or TLS to a plain-HTTP address) should
   * show up in the report. A parse error inside a request already under way belongs to that request;
   * a request that stalls gets 408; a sender hanging up early is neither and gets no answer.
   */
  const refuseBrokenClient = (error: NodeJS.ErrnoException, socket: Duplex): void => {
    const code = error.code ?? '';
    const malformed = code.startsWith('HPE_') && code !== 'HPE_INVALID_EOF_STATE';
    const status = malformed ? 400 : code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : undefined;
    const request = underWay.get(socket);
    if (request !== undefined) {
      request.malformed = malformed;
      request.answeredStatus = status ?? null;
    } else if (malformed) {
      keep(
        { kind: 'unattributed' },
        {
          path: '?',
          method: '?',
          contentType: null,
          bodyBytes: 0,
          declaredBytes: null,
          receivedAt: Date.now(),
          answeredStatus: 400,
          outcome: 'malformed',
          clientCertificate: clientCertificateOf(socket),
          headers: {},
          body: '',
          truncated: false,
        },
      ).catch(() => undefined);
    }
    const reason = status === 400 ? 'Bad Request' : 'Request Timeout';
    if (status === undefined || !socket.writable) socket.destroy();
    else
      socket.end(`HTTP/1.1 ${status} ${reason}\r\nconnection: close\r\ncontent-length: 0\r\n\r\n`, () =>
        socket.destroy(),
      );
  };

  return { receive, refuseBrokenClient };
}
