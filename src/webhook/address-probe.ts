/**
 * Before the first withdrawal, the run proves that its public webhook address reaches its receiver:
 * one JSON POST to a fresh address under PIX_WEBHOOK_PUBLIC_URL (the suite's own receiver, started
 * for the probe on PIX_WEBHOOK_HOST:PIX_WEBHOOK_PORT and stopped again) or under the remote
 * receiver's address, and the receiver must have taken it. A placeholder, a tunnel that points
 * elsewhere or a receiver the world cannot reach stops the run with exit 2 naming the variable, where
 * it would otherwise fail the provider's webhook checks for the user's own mistake.
 */
import { randomBytes } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { Config } from '../config/config.ts';
import { ConfigError } from '../config/errors.ts';
import { receiverTls, secureContextOf, type TlsSettings } from '../transport/tls.ts';
import { ReceiverConnection, WebhookClient } from './receiver-client.ts';
import { remoteReceiverOf } from './setup.ts';

/** How long the probe's POST and the receiver's record of it may take, each. */
const PROBE_TIMEOUT_MS = 10_000;

/** One JSON POST without credentials; resolves with the status, rejects with why nothing answered. */
function post(url: string, tls: TlsSettings): Promise<number> {
  return new Promise((resolve, reject) => {
    const target = new URL(url);
    const https = target.protocol === 'https:';
    const context = https ? secureContextOf(tls) : undefined;
    const request = (https ? httpsRequest : httpRequest)(target, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      ...(context === undefined ? {} : { secureContext: context }),
      signal: AbortSignal.timeout(PROBE_TIMEOUT_MS),
    });
    request.on('error', (error: NodeJS.ErrnoException) =>
      reject(
        new Error(
          error.name === 'AbortError'
            ? `no answer within ${PROBE_TIMEOUT_MS} ms`
            : (error.code ?? error.message),
        ),
      ),
    );
    request.on('response', (response) => {
      response.resume();
      resolve(response.statusCode ?? 0);
    });
    request.end(JSON.stringify({ probe: 'pix-certify: does this address reach the webhook receiver?' }));
  });
}

interface ProbeTarget {
  readonly variable: 'PIX_WEBHOOK_PUBLIC_URL' | 'PIX_WEBHOOK_RECEIVER_URL';
  readonly base: string;
  readonly fix: string;
  readonly runUrl: string;
  readonly token: string;
  readonly tls: TlsSettings;
  close(): Promise<void>;
}

async function localTarget(config: Config, publicUrl: string): Promise<ProbeTarget> {
  const { host, port } = config.webhook;
  const token = randomBytes(32).toString('base64url');
  const { startReceiver } = await import('../receiver/receiver.ts');
  const receiver = await startReceiver({ host, port, token, shared: false }).catch((error: unknown) => {
    throw new ConfigError(
      'PIX_WEBHOOK_PORT',
      `the webhook receiver could not listen on ${host}:${port} (${error instanceof Error ? error.message : String(error)})`,
      'Set PIX_WEBHOOK_PORT to a free port, the one your tunnel forwards to.',
    );
  });
  const runUrl = await new ReceiverConnection(receiver.url, token)
    .openRun(publicUrl)
    .catch(async (error: unknown) => {
      await receiver.close();
      throw error;
    });
  return {
    variable: 'PIX_WEBHOOK_PUBLIC_URL',
    base: publicUrl,
    fix: `Point it at a tunnel that forwards to this machine's port ${port === 0 ? '(set PIX_WEBHOOK_PORT: 0 picks a new port each run)' : `${port} (PIX_WEBHOOK_PORT)`}; for a provider on this machine, leave out PIX_WEBHOOK_PUBLIC_URL and PIX_WEBHOOK_PORT.`,
    runUrl,
    token,
    tls: {},
    close: () => receiver.close(),
  };
}

/** The run's webhook address as the provider will be given it, when the provider may be elsewhere. */
async function targetOf(config: Config): Promise<ProbeTarget | undefined> {
  const remote = remoteReceiverOf(config);
  if (remote === undefined) {
    const { publicUrl } = config.webhook;
    return publicUrl === undefined ? undefined : localTarget(config, publicUrl);
  }
  const tls = receiverTls(config.tls);
  const connection = new ReceiverConnection(remote.url, remote.token, tls);
  const runUrl = await connection.openRun(remote.url);
  return {
    variable: 'PIX_WEBHOOK_RECEIVER_URL',
    base: remote.url,
    fix: `Give the address where the provider reaches the receiver (${remote.url} must be public, not only reachable from this machine's control calls).`,
    runUrl,
    token: remote.token,
    tls,
    // The receiver forgets an unclosed run after its retention time: never worth hiding the probe's answer.
    close: () => connection.closeRun(runUrl).catch(() => undefined),
  };
}

/**
 * Proves, in a live run that may pay, that a POST to the run's public webhook address reaches its
 * receiver; resolves with where the webhooks will be received, undefined when there is nothing to
 * prove (a mock run, no payouts, or the suite's own receiver on this machine without a public URL).
 */
export async function proveWebhookAddress(config: Config): Promise<string | undefined> {
  if (config.mode !== 'live' || !config.allowPayouts) return undefined;
  const target = await targetOf(config);
  if (target === undefined) return undefined;
  try {
    const client = new WebhookClient(target.runUrl, target.token, target.tls);
    const address = await client.register();
    let reason: string;
    try {
      const status = await post(address.url, target.tls);
      const report = await client.waitFor(address.path, {
        timeoutMs: status < 300 ? PROBE_TIMEOUT_MS : 0,
        graceMs: 0,
      });
      if (report.deliveries.length > 0) return target.base;
      reason = `a test POST to ${address.url} was answered ${status} by something other than the run's receiver`;
    } catch (error) {
      reason = `a test POST to ${address.url} got no answer (${error instanceof Error ? error.message : String(error)})`;
    }
    throw new ConfigError(
      target.variable,
      `'${target.base}' does not reach the run's webhook receiver: ${reason}`,
      `${target.fix} No withdrawal was sent.`,
    );
  } finally {
    await target.close();
  }
}
