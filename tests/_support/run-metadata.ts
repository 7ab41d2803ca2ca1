/** What the reports say about the run: everything a reviewer needs, nothing secret. */
import { readFileSync } from 'node:fs';
import type { Config } from './config.ts';
import { PACKAGE_JSON_PATH } from './paths.ts';
import { selectionOfThisRun } from './selection.ts';
import { runSeed } from './seed.ts';
import { loadSpec } from './spec.ts';

export interface PixRunMetadata {
  readonly suiteVersion: string;
  readonly specVersion: string;
  readonly specHash: string;
  readonly mode: 'mock' | 'live';
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

export function runMetadata(config: Config): PixRunMetadata {
  const spec = loadSpec();
  return {
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
      webhookPublicUrl: config.webhook.publicUrl ?? 'the bound address',
      requestTimeoutMs: config.requestTimeoutMs,
      maxPayouts: config.maxPayouts,
      maxTotal: config.maxTotal,
    },
  };
}
