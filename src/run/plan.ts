/**
 * The payout plan: every POST /pix/payment the complete suite sends, the sum of what each check
 * family says its tests send (a self-test holds the families to it, request by request). Negative
 * cases count too: a lax provider may accept any of them.
 */
import { FAMILIES } from '../checks/catalogue.ts';
import { DEFAULT_RUN_SHAPE, type RunShape } from '../checks/family.ts';
import type { Config } from '../config/config.ts';
import { webhookCollection } from './run-metadata.ts';
import { loadSpec, type SpecModel } from '../spec/spec.ts';

export interface PlanLine {
  readonly group: string;
  readonly requests: number;
}

export interface PayoutPlan {
  readonly lines: readonly PlanLine[];
  readonly requests: number;
  /**
   * The withdrawal requests the run never exceeds, renewals and resends included: room for each planned
   * one to go twice more (single-use tokens renew before each, a 429 asks again); one past it is not
   * sent (transport/withdrawal-bound.ts).
   */
  readonly bound: number;
  /** A lax provider could accept every request, negative ones included. */
  readonly mostAccepted: number;
  readonly total: number;
}

/** The plan line of the valid withdrawal global setup sends before any test (src/run/first-withdrawal.ts). */
export const FIRST_WITHDRAWAL_LINE = 'first withdrawal (the credentials, before any test)';

/**
 * How many times the bound holds the planned requests: a provider whose tokens work once makes every
 * withdrawal go twice (refused, renewed), and a 429 now and then asks for more.
 */
const BOUND_FACTOR = 3;

export function withdrawalPlan(
  spec: SpecModel,
  amount: number,
  shape: RunShape = DEFAULT_RUN_SHAPE,
  firstWithdrawal = false,
): PayoutPlan {
  const lines = [
    ...(firstWithdrawal ? [{ group: FIRST_WITHDRAWAL_LINE, requests: 1 }] : []),
    ...FAMILIES.map((family) => ({
      group: family.name,
      requests: family.withdrawals(spec, shape),
    })),
  ].filter((line) => line.requests > 0);
  const requests = lines.reduce((sum, line) => sum + line.requests, 0);
  return {
    lines,
    requests,
    bound: requests * BOUND_FACTOR,
    mostAccepted: requests,
    total: Math.round(requests * amount * 100) / 100,
  };
}

/** Whether the run sends its first withdrawal before any test: live, with payouts allowed. */
export function sendsFirstWithdrawal(config: Config): boolean {
  return config.mode === 'live' && config.allowPayouts;
}

/** What this configuration changes in a complete run's requests. */
export function shapeOf(config: Config): RunShape {
  return {
    raceWidth: config.raceWidth,
    tokenLifetimeProbe: config.tokenLifetimeProbeS !== undefined,
    webhookRetryProbe: config.webhook.retryWaitMs > 0,
  };
}

/** The plan of the complete suite under this configuration. */
export function planFor(config: Config): PayoutPlan {
  return withdrawalPlan(loadSpec(), config.amount, shapeOf(config), sendsFirstWithdrawal(config));
}

/**
 * Why the plan may not run, in one line naming the variable, or undefined when it may: a live run
 * allowed to pay out must fit PIX_MAX_PAYOUTS and PIX_MAX_TOTAL. The plan is the complete suite's,
 * whatever --grep selects, so the budget holds for any selection.
 */
export function budgetProblem(config: Config, plan: PayoutPlan): string | undefined {
  if (config.mode !== 'live' || !config.allowPayouts) return undefined;
  if (plan.mostAccepted > config.maxPayouts) {
    return `PIX_MAX_PAYOUTS: the plan may make ${plan.mostAccepted} payouts, more than PIX_MAX_PAYOUTS=${config.maxPayouts}. Raise PIX_MAX_PAYOUTS.`;
  }
  if (plan.total > config.maxTotal + 1e-9) {
    return `PIX_MAX_TOTAL: the plan may pay out ${plan.total.toFixed(2)} BRL in all, more than PIX_MAX_TOTAL=${config.maxTotal.toFixed(2)}. Raise PIX_MAX_TOTAL or lower PIX_AMOUNT.`;
  }
  return undefined;
}

/** Where a live run's webhooks will be received, and the webhook variables this configuration ignores. */
function webhookLines(config: Config): string[] {
  const { publicUrl, receiverUrl, unused } = config.webhook;
  const onlyHere = receiverUrl === undefined && publicUrl === undefined;
  return [
    `Webhooks: received by ${webhookCollection(config)}${onlyHere ? ', which only a provider on this machine reaches' : ''}`,
    ...unused.map(
      (name) =>
        `  ${name} has no effect here: the remote receiver (PIX_WEBHOOK_RECEIVER_URL) takes the webhooks, not this machine`,
    ),
  ];
}

/** What the run may send, in a few lines, printed before anything is. */
export function describePlan(config: Config, plan: PayoutPlan): string {
  const lines = plan.lines.map((l) => `  ${String(l.requests).padStart(3)}  ${l.group}`);
  if (config.mode === 'mock')
    return [
      'Payout plan (against the embedded mock: nothing can move money):',
      ...lines,
      `  ${String(plan.requests).padStart(3)}  withdrawal requests in all, answered by the mock alone`,
    ].join('\n');
  const gate = config.allowPayouts ? 'PIX_ALLOW_PAYOUTS=1' : 'PIX_ALLOW_PAYOUTS is not 1: none will be sent';
  return [
    `Payout plan (${gate}):`,
    ...lines,
    `  ${String(plan.requests).padStart(3)}  withdrawal requests in all, at most ${plan.mostAccepted} accepted, ${plan.total.toFixed(2)} BRL at most (PIX_AMOUNT=${config.amountText}) to ${config.payee.keyType} ${config.payee.key.slice(0, 2)}***`,
    `  bound: never more than ${plan.bound} withdrawal requests, renewals and resends included (one past it is not sent)`,
    `  budget: PIX_MAX_PAYOUTS=${config.maxPayouts}, PIX_MAX_TOTAL=${config.maxTotal.toFixed(2)}`,
    ...webhookLines(config),
  ].join('\n');
}
