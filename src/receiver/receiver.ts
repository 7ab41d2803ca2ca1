/**
 * The webhook receiver (§4.2, §6): a real HTTP(S) server the provider posts to, and the control API
 * runs use on the same port. The same code runs as the suite's own receiver, in Playwright's main
 * process for one run, and as the long-lived service (`npm run receiver`) that many runs share.
 */
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { Duplex } from 'node:stream';
import { createControl, controlRoute, type ControlInfo } from './control.ts';
import { createIntake, DEFAULT_MAX_BODY_BYTES } from './intake.ts';
import { DirectoryJournal } from './journal.ts';
import { listen, localUrl, shutDown, type WebServer } from './listen.ts';
import { ReceiverStore } from './store.ts';
import { consoleLine } from '../secrets/redact.ts';
import { registerSecret } from '../secrets/registry.ts';

// Where checks imported Delivery from before delivery.ts existed.
export type { Delivery } from '../evidence/delivery.ts';

export interface ReceiverTls {
  readonly cert: Buffer;
  readonly key: Buffer;
  /** CA whose client certificates are accepted; undefined asks for none. */
  readonly clientCa: Buffer | undefined;
  readonly requireClientCert: boolean;
}

export interface ReceiverOptions {
  readonly host: string;
  /** 0 for an ephemeral port. */
  readonly port: number;
  /** What the control API wants in `authorization: Bearer`. */
  readonly token: string;
  /** Several runs use it: strays to paths of no run are counted, never listed (see store.ts). */
  readonly shared: boolean;
  /** Where deliveries are persisted (fsync'd); undefined keeps them in memory only. */
  readonly dataDir?: string;
  readonly tls?: ReceiverTls;
  /** Default 1 MiB. */
  readonly maxBodyBytes?: number;
  /**
   * The receiver's own problems (a journal that cannot write, a server error), each line masked and
   * escaped (consoleLine) before it is given. Default: stderr.
   */
  readonly log?: (line: string) => void;
}

export interface RunningReceiver {
  /** Where this machine reaches it, e.g. http://127.0.0.1:41234 (loopback for a wildcard host). */
  readonly url: string;
  /** Runs taken back from the data directory at start. */
  readonly restoredRuns: number;
  /** Stops the server and cuts every connection; resolves when nothing listens and all is on disk. */
  close(): Promise<void>;
}

/** Bounded so that a slow or stalled sender cannot hold a connection for the whole run (slowloris). */
const REQUEST_TIMEOUT_MS = 10_000;
/** Short, so idle provider connections do not pile up; long enough to serve a burst over few sockets. */
const KEEP_ALIVE_TIMEOUT_MS = 2_000;
const SWEEP_INTERVAL_MS = 60_000;

function serverFor(
  tls: ReceiverTls | undefined,
  handler: (req: IncomingMessage, res: ServerResponse) => void,
): WebServer {
  const http = {
    requestTimeout: REQUEST_TIMEOUT_MS,
    headersTimeout: REQUEST_TIMEOUT_MS,
    keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS,
    connectionsCheckingInterval: 1_000,
    maxHeaderSize: 16 * 1024,
  };
  if (tls === undefined) return createHttpServer(http, handler);
  return createHttpsServer(
    {
      ...http,
      cert: tls.cert,
      key: tls.key,
      // The certificate is asked for, never demanded in the handshake: the control API takes none, and a
      // delivery without one is recorded (then refused with 403 when required) so the report can say so.
      ...(tls.clientCa === undefined
        ? {}
        : { ca: tls.clientCa, requestCert: true, rejectUnauthorized: false }),
    },
    handler,
  );
}

function controlInfo(tls: ReceiverTls | undefined): ControlInfo {
  const clientCertificates =
    tls?.clientCa === undefined ? 'off' : tls.requireClientCert ? 'required' : 'requested';
  return { tls: tls !== undefined, clientCertificates };
}

export async function startReceiver(options: ReceiverOptions): Promise<RunningReceiver> {
  const sink = options.log ?? ((line: string) => process.stderr.write(`webhook receiver: ${line}\n`));
  // A line may carry a request's path or a run's address: the token and what they carry are masked.
  registerSecret(options.token);
  const log = (line: string): void => sink(consoleLine(line));
  const journal = options.dataDir === undefined ? undefined : await DirectoryJournal.open(options.dataDir);
  const store = new ReceiverStore({
    shared: options.shared,
    ...(journal === undefined ? {} : { journal }),
    // The service tells each run it opens and closes; the suite's own receiver serves its run only.
    ...(options.shared ? { log } : {}),
  });
  const restoredRuns = await store.restore();
  const intake = createIntake(store, {
    maxBodyBytes: options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES,
    requireClientCert: options.tls?.requireClientCert ?? false,
    log,
  });
  const control = createControl(store, options.token, controlInfo(options.tls));

  const server = serverFor(options.tls, (req, res) => {
    try {
      // Split by hand: new URL() throws on request targets such as '//', which must be recorded like any other.
      const [path = '', query = ''] = (req.url ?? '').split(/\?(.*)/s);
      const route = controlRoute(path);
      if (route === undefined) intake.receive(req, res);
      else control(req, res, route, new URLSearchParams(query));
    } catch (error) {
      // Whatever a request provokes ends with that request, never with the receiver.
      log(`request failed: ${String(error)}`);
      res.destroy();
    }
  });
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    intake.refuseBrokenClient(error, socket);
  });

  const bound = await listen(server, options.host, options.port).catch(async (error: unknown) => {
    await store.close();
    throw error;
  });
  // After listening, a server error (e.g. out of file descriptors under a flood) must not stop it.
  server.on('error', (error) => {
    log(error.message);
  });
  const sweeping = setInterval(() => {
    store.sweep().catch((error: unknown) => {
      log(`could not forget expired runs: ${String(error)}`);
    });
  }, SWEEP_INTERVAL_MS).unref();

  return {
    url: localUrl(options.tls === undefined ? 'http' : 'https', bound),
    restoredRuns,
    close: async () => {
      clearInterval(sweeping);
      await shutDown(server);
      await store.close();
    },
  };
}
