/** What the reports say about the run: everything a reviewer needs, nothing secret. */
import { readFileSync } from 'node:fs';
import type { Config } from '../config/config.ts';
import { PACKAGE_JSON_PATH } from '../base/paths.ts';
import { selectionOfThisRun } from './selection.ts';
import { runSeed } from './seed.ts';
import { loadSpec } from '../spec/spec.ts';
import { runIdOfThisRun } from '../base/run-state.ts';

export interface PixRunMetadata {
  /** PIX_ENV_NAME: the environment's label; absent, the reports name it by its base URL. */
  readonly environmentName?: string;
  /** The id in every withdrawal code and ledger line of the run, so that a signed report names its payouts. */
  readonly runId: string;
  readonly suiteVersion: string;
  readonly specVersion: string;
  readonly specHash: string;
  readonly mode: 'mock' | 'live' | 'client';
  readonly baseUrl: string;
  readonly reportDir: string;
  readonly strict: boolean;
  readonly requireComplete: boolean;
  /** The command line's selecting options and file filters (`--grep @auth`); empty: the whole suite. */
  readonly selection: readonly string[];
  /** The seed of the invented values; PIX_SEED=<seed> replays them. */
  readonly seed: number;
  readonly options: Readonly<Record<string, string | number | boolean>>;
}

export function suiteVersion(): string {
  const pkg = JSON.parse(readFileSync(PACKAGE_JSON_PATH, 'utf8')) as {
    version: string;
  };
  return pkg.version;
}

/**
 * How the run collected webhooks, as the report tells it: the suite's own receiver at its bound
 * address, the same behind PIX_WEBHOOK_PUBLIC_URL, or a remote receiver (its token never shown).
 */
export function webhookCollection(config: Config): string {
  const { receiverUrl, publicUrl, host, port } = config.webhook;
  if (receiverUrl !== undefined)
    return `the remote receiver at ${receiverUrl} (PIX_WEBHOOK_RECEIVER_URL), with its token (PIX_WEBHOOK_RECEIVER_TOKEN, masked)`;
  if (publicUrl !== undefined)
    return `the suite's own receiver, which the provider reaches at ${publicUrl} (PIX_WEBHOOK_PUBLIC_URL)`;
  return `the suite's own receiver at its bound address on this machine (PIX_WEBHOOK_HOST ${host}, PIX_WEBHOOK_PORT ${port === 0 ? 'any free port' : port})`;
}

export function runMetadata(config: Config): PixRunMetadata {
  const spec = loadSpec();
  return {
    ...(config.environmentName === undefined ? {} : { environmentName: config.environmentName }),
    // Decided with the configuration, in the runner: global setup keeps it and workers inherit it.
    runId: runIdOfThisRun(),
    suiteVersion: suiteVersion(),
    specVersion: spec.version,
    specHash: spec.hash,
    mode: config.mode,
    baseUrl: config.baseUrl ?? 'embedded mock (Prism, from openapi/pix-withdrawal.yaml)',
    reportDir: config.reportDir,
    strict: config.strict,
    requireComplete: config.requireComplete,
    selection: selectionOfThisRun(),
    seed: runSeed(config),
    options: {
      allowPayouts: config.allowPayouts,
      allowInsecure: config.allowInsecure,
      amount: config.amountText,
      tokenField: config.tokenField,
      payeeKeyType: config.payee.keyType,
      webhookTimeoutMs: config.webhook.timeoutMs,
      webhookCollection: webhookCollection(config),
      // Only when on: a run without the probe says nothing of it, as before it existed.
      ...(config.webhook.retryWaitMs > 0 ? { webhookRetryWaitMs: config.webhook.retryWaitMs } : {}),
      requestTimeoutMs: config.requestTimeoutMs,
      maxPayouts: config.maxPayouts,
      maxTotal: config.maxTotal,
    },
  };
}
