/**
 * What the suite runs against: the validated configuration plus what the environment can show.
 * Built once per process from the PIX_* variables and the ones global setup adds for workers.
 */
import { requiredRunState } from '../base/run-state.ts';
import type { Capability } from '../checks/vocabulary.ts';
import { isLoopbackHost, configOfThisProcess, type Config } from '../config/config.ts';
import { suiteCommand } from '../base/invocation.ts';

export interface Target {
  readonly config: Config;
  readonly baseUrl: string;
  readonly runId: string;
  readonly webhookControlUrl: string;
  readonly webhookControlToken: string;
  /** Why a capability is missing, or undefined when the target has it. */
  missing(capability: Capability): string | undefined;
}

export const MISSING_REASONS: Readonly<Record<Capability, string>> = {
  provider: `the embedded mock (Prism) is stateless: it checks only that credentials are present (not their values), accepts whatever its permissive schema allows and fires the callback for every response; a provider is needed to judge this (try ${suiteCommand('sandbox')})`,
  payout:
    'PIX_ALLOW_PAYOUTS is not 1: this check sends POST /pix/payment, which may move money, so the certification is incomplete without it',
  webhook:
    'the environment is not on this machine and neither PIX_WEBHOOK_PUBLIC_URL nor PIX_WEBHOOK_RECEIVER_URL is set, so it cannot reach the webhook receiver',
};

function capabilities(config: Config): ReadonlySet<Capability> {
  const live = config.mode === 'live';
  const reachable =
    !live ||
    config.webhook.publicUrl !== undefined ||
    config.webhook.receiverUrl !== undefined ||
    isLoopbackHost(new URL(config.baseUrl ?? 'http://127.0.0.1').hostname);
  return new Set<Capability>([
    ...(live ? (['provider'] as const) : []),
    ...(!live || config.allowPayouts ? (['payout'] as const) : []),
    ...(reachable ? (['webhook'] as const) : []),
  ]);
}

export function loadTarget(config: Config = configOfThisProcess()): Target {
  const has = capabilities(config);
  return {
    config,
    baseUrl: config.baseUrl ?? requiredRunState('mockUrl'),
    runId: requiredRunState('runId'),
    webhookControlUrl: requiredRunState('webhookControlUrl'),
    webhookControlToken: requiredRunState('webhookControlToken'),
    missing: (capability) => (has.has(capability) ? undefined : MISSING_REASONS[capability]),
  };
}
