/**
 * Every check of the suite, as data for the report and the self-test. Checks generated from the
 * OpenAPI document appear here as soon as the spec grows.
 */
import { bodyCases, credentialCases, plainHeaderCases } from '../cases.ts';
import { loadSpec, type OperationId } from '../spec.ts';
import type { Check } from './check.ts';
import { duplicateAllowedWhenUnchecked, duplicateRefusedWhenChecked } from './check-code.ts';
import { paymentAccepted } from './payment.ts';
import { responseChecks } from './responses.ts';
import { tokenInField, tokenIssued, tokenReusable } from './token.ts';
import { transportEncrypted } from './transport.ts';
import type { CheckDefinition } from './types.ts';
import {
  noWebhookForRefused,
  webhookDelivered,
  webhookIsJson,
  webhookIsPost,
  webhookRefersToWithdrawal,
} from './webhook.ts';

const OPERATIONS: readonly OperationId[] = ['createToken', 'createWithdraw'];

function allChecks(): Check<never>[] {
  const spec = loadSpec();
  return [
    tokenIssued,
    tokenInField,
    tokenReusable,
    paymentAccepted,
    ...responseChecks,
    ...OPERATIONS.flatMap((op) => credentialCases(spec, op).map((c) => c.check)),
    ...OPERATIONS.flatMap((op) => plainHeaderCases(spec, op).map((c) => c.check)),
    ...bodyCases(spec).map((c) => c.check),
    duplicateRefusedWhenChecked,
    duplicateAllowedWhenUnchecked,
    webhookDelivered,
    webhookIsPost,
    webhookIsJson,
    webhookRefersToWithdrawal,
    noWebhookForRefused,
    transportEncrypted,
  ] as Check<never>[];
}

let cached: readonly CheckDefinition[] | undefined;

export function catalogue(): readonly CheckDefinition[] {
  cached ??= allChecks().map(({ id, title, clause, level, reason, needs }) => ({
    id,
    title,
    clause,
    level,
    reason,
    needs,
  }));
  return cached;
}
