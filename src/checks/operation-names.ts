/** How generated checks name an operation, and what sending to it needs from the environment. */
import type { OperationId } from '../spec/spec.ts';
import type { Capability } from './vocabulary.ts';

export const OPERATION_PREFIX: Readonly<Record<OperationId, string>> = {
  createToken: 'TOKEN',
  createWithdraw: 'PAYMENT',
};

export const OPERATION_NAME: Readonly<Record<OperationId, string>> = {
  createToken: 'token request',
  createWithdraw: 'withdrawal',
};

/**
 * The check that judges each operation's valid request: a generated case sends that request with one
 * header changed, so an answer it shares with the valid request itself is that check's finding.
 */
export const VALID_REQUEST_CHECK: Readonly<Record<OperationId, string>> = {
  createToken: 'TOKEN-ISSUED',
  createWithdraw: 'PAYMENT-ACCEPTED',
};

/** Payment requests may be accepted by a lax provider, so every one of them is a possible payout. */
export function needsFor(operation: OperationId, provider: boolean): Capability[] {
  return [
    ...(provider ? (['provider'] as const) : []),
    ...(operation === 'createWithdraw' ? (['payout'] as const) : []),
  ];
}

/** An id part from a name: `cert_client` → `CERT-CLIENT`. */
export function slug(text: string): string {
  return text
    .toUpperCase()
    .replace(/[^A-Z0-9]+/g, '-')
    .replace(/^-|-$/g, '');
}
