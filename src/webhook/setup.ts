/**
 * Where a run's webhooks go: the suite's own receiver, started here on PIX_WEBHOOK_HOST and
 * PIX_WEBHOOK_PORT (the default), or a remote one (the receiver command) at PIX_WEBHOOK_RECEIVER_URL.
 * Either way the run is opened, used and closed through the same control API.
 */
import { randomBytes } from 'node:crypto';
import { isLoopbackHost, type Config } from '../config/config.ts';
import { receiverTls, type TlsSettings } from '../transport/tls.ts';
import { ControlAnswer, ReceiverConnection } from './receiver-client.ts';
import { MIN_TOKEN_LENGTH } from '../receiver/control.ts';
import { ConfigError } from '../config/errors.ts';
import { registerSecret } from '../secrets/registry.ts';
import { suiteCommand } from '../base/invocation.ts';

export interface RemoteReceiver {
  readonly url: string;
  readonly token: string;
}

export interface ReceiverRun {
  /** The run's control address, for workers (PIX_WEBHOOK_CONTROL_URL). */
  readonly runUrl: string;
  readonly token: string;
  /** Unregisters the run's addresses, and stops the suite's own receiver. */
  close(): Promise<void>;
}

const URL_VARIABLE = 'PIX_WEBHOOK_RECEIVER_URL';
const TOKEN_VARIABLE = 'PIX_WEBHOOK_RECEIVER_TOKEN';

/** The remote receiver the configuration names, validated; undefined for the suite's own. */
export function remoteReceiverOf(config: Config): RemoteReceiver | undefined {
  const { receiverUrl, receiverToken, publicUrl } = config.webhook;
  if (receiverUrl === undefined) {
    if (receiverToken !== undefined)
      throw new ConfigError(
        URL_VARIABLE,
        `is not set, but ${TOKEN_VARIABLE} is`,
        'Give the remote receiver’s base address, or unset the token to use the suite’s own receiver.',
      );
    return undefined;
  }
  const url = URL.canParse(receiverUrl) ? new URL(receiverUrl) : undefined;
  if (
    url === undefined ||
    !/^https?:$/.test(url.protocol) ||
    url.search !== '' ||
    url.hash !== '' ||
    url.username !== '' ||
    url.password !== ''
  )
    throw new ConfigError(
      URL_VARIABLE,
      `'${receiverUrl}' is not an http(s) base address`,
      'Give the receiver’s base address, e.g. https://hooks.example.com, without credentials or query.',
    );
  if (url.protocol === 'http:' && !isLoopbackHost(url.hostname) && !config.allowInsecure)
    throw new ConfigError(
      URL_VARIABLE,
      `is plain http to ${url.hostname}, which would send the receiver token unencrypted`,
      'Serve the receiver over https (its own TLS or a proxy in front), or set PIX_ALLOW_INSECURE=1 if you really mean it.',
    );
  if (publicUrl !== undefined)
    throw new ConfigError(
      'PIX_WEBHOOK_PUBLIC_URL',
      `is set together with ${URL_VARIABLE}`,
      `The remote receiver's address is the base of every PostBackUrl: unset PIX_WEBHOOK_PUBLIC_URL.`,
    );
  if (receiverToken === undefined)
    throw new ConfigError(
      TOKEN_VARIABLE,
      'is not set',
      `${URL_VARIABLE} needs the token the receiver was started with (its PIX_RECEIVER_TOKEN), from your secret store.`,
    );
  if (receiverToken.length < MIN_TOKEN_LENGTH)
    throw new ConfigError(
      TOKEN_VARIABLE,
      `has ${receiverToken.length} characters`,
      `A receiver takes only tokens of at least ${MIN_TOKEN_LENGTH}: give the PIX_RECEIVER_TOKEN it was started with.`,
    );
  registerSecret(receiverToken);
  return { url: url.href.replace(/\/+$/, ''), token: receiverToken };
}

/** Turns a failed control request into the one line that names the variable to fix. */
function configErrorOf(remote: RemoteReceiver, error: unknown): ConfigError {
  if (error instanceof ControlAnswer && error.status === 401)
    return new ConfigError(
      TOKEN_VARIABLE,
      `the receiver at ${remote.url} refused it (401)`,
      'Give the PIX_RECEIVER_TOKEN the receiver was started with.',
    );
  const reason = error instanceof Error ? error.message : String(error);
  if (error instanceof ControlAnswer)
    return new ConfigError(
      URL_VARIABLE,
      `${remote.url} is not a pix webhook receiver (${reason})`,
      `Give the base address ${suiteCommand('receiver')} serves (its control API is under /_receiver/v1/).`,
    );
  return new ConfigError(
    URL_VARIABLE,
    `the receiver at ${remote.url} did not answer (${reason})`,
    `Check that ${suiteCommand('receiver')} runs there and this machine reaches it; trust a private CA of its certificate with PIX_CA_FILE.`,
  );
}

/** Preflight: a remote receiver must answer and take the token before anything is sent. */
export async function checkReceiver(config: Config): Promise<void> {
  const remote = remoteReceiverOf(config);
  if (remote === undefined) return;
  await new ReceiverConnection(remote.url, remote.token, receiverTls(config.tls))
    .health(config.requestTimeoutMs)
    .catch((error: unknown) => {
      throw configErrorOf(remote, error);
    });
}

async function openRemote(remote: RemoteReceiver, tls: TlsSettings): Promise<ReceiverRun> {
  const connection = new ReceiverConnection(remote.url, remote.token, tls);
  const runUrl = await connection.openRun(remote.url).catch((error: unknown) => {
    throw configErrorOf(remote, error);
  });
  return {
    runUrl,
    token: remote.token,
    // Not worth failing a finished run for: the receiver forgets the run after its retention time anyway.
    close: () =>
      connection.closeRun(runUrl).catch((error: unknown) => {
        process.stderr.write(
          `pix-certify: could not unregister the run's webhook addresses (${String(error)}); the receiver forgets them after its retention time.\n`,
        );
      }),
  };
}

async function openLocal(config: Config): Promise<ReceiverRun> {
  const { host, port, publicUrl } = config.webhook;
  const token = randomBytes(32).toString('base64url');
  registerSecret(token);
  // The server is loaded only here, in global setup: bin/certify.ts, which checks a remote receiver
  // with this module before Playwright starts, need not wait for it.
  const { startReceiver } = await import('../receiver/receiver.ts');
  const receiver = await startReceiver({ host, port, token, shared: false }).catch((error: unknown) => {
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(
      `The webhook receiver could not listen on ${host}:${port} (${reason}). Set PIX_WEBHOOK_PORT to a free port (or 0 for any) and PIX_WEBHOOK_HOST to an address of this machine.`,
      { cause: error },
    );
  });
  try {
    const connection = new ReceiverConnection(receiver.url, token);
    const runUrl = await connection.openRun(publicUrl ?? receiver.url);
    return { runUrl, token, close: () => receiver.close() };
  } catch (error) {
    await receiver.close();
    throw error;
  }
}

export function openReceiverRun(config: Config): Promise<ReceiverRun> {
  const remote = remoteReceiverOf(config);
  return remote === undefined ? openLocal(config) : openRemote(remote, receiverTls(config.tls));
}
