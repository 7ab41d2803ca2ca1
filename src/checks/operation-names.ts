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
