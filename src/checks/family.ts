/**
 * A family of checks: one module under checks/ that owns its check definitions, the request
 * mutations that exercise them and the number of withdrawals its tests send. The catalogue is the
 * union of the families and the payout plan the sum of their withdrawals.
 */
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CODE_ROOT } from '../base/paths.ts';
import type { OperationId, SpecModel } from '../spec/spec.ts';
import type { Check } from './check.ts';

/** What the configuration changes in the requests a complete run sends. */
export interface RunShape {
  /** PIX_RACE_WIDTH: withdrawals the duplicate race sends. */
  readonly raceWidth: number;
  /** PIX_TOKEN_LIFETIME_PROBE_S is set: one more withdrawal, the aged token's. */
  readonly tokenLifetimeProbe: boolean;
  /** PIX_WEBHOOK_RETRY_WAIT_S is not 0: one more withdrawal, whose first webhook the receiver refuses. */
  readonly webhookRetryProbe: boolean;
}

/** The shape of a run under the default configuration. */
export const DEFAULT_RUN_SHAPE: RunShape = {
  raceWidth: 3,
  tokenLifetimeProbe: false,
  webhookRetryProbe: false,
};

/** `Judging`: what its checks judge, a test's exchanges for a provider's family, a journal for a client's. */
export interface Family<Judging extends Check<never> = Check<never>> {
  /** A few words, shown in the payout plan and in docs/checks.md. */
  readonly name: string;
  /** The module, from the repository root: where a reader finds the family's checks. */
  readonly file: string;
  /** Every check of the family; some are generated from the spec. */
  checks(spec: SpecModel): readonly Judging[];
  /** POST /pix/payment requests the family's tests send in a complete run; a lax provider may accept each. */
  withdrawals(spec: SpecModel, shape: RunShape): number;
}

/** The path of a family module from the module root, given its `import.meta.url`. */
export function familyFile(moduleUrl: string): string {
  return relative(CODE_ROOT, fileURLToPath(moduleUrl)).split('\\').join('/');
}

/**
 * A family generated per operation from the spec: its checks are the cases of both operations, its
 * withdrawals the requests of createWithdraw's cases, one each unless `requestsOf` says more.
 */
export function perOperationFamily<Case extends { readonly check: Check<never> }>(
  name: string,
  moduleUrl: string,
  casesOf: (spec: SpecModel, operation: OperationId) => readonly Case[],
  requestsOf: (testCase: Case) => number = () => 1,
): Family {
  return {
    name,
    file: familyFile(moduleUrl),
    checks: (spec) =>
      (['createToken', 'createWithdraw'] as const).flatMap((op) => casesOf(spec, op).map((c) => c.check)),
    withdrawals: (spec) => casesOf(spec, 'createWithdraw').reduce((sum, c) => sum + requestsOf(c), 0),
  };
}
