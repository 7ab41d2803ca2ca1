/**
 * The plan's bound on withdrawal requests, for the whole run: every POST /pix/payment takes one before
 * it is written to the ledger, renewals and resends included, and one past the bound is never sent.
 * A provider that refuses or drops requests must not turn the plan's count into a multiple of it (a
 * real provider locks a client after repeated authentication failures). Across processes the run's
 * shared gate serves it (shared-gate.ts).
 */

/** Whether a request was taken from the bound, and the bound (undefined: nothing bounds it, a unit test). */
export interface Taken {
  readonly taken: boolean;
  readonly limit: number | undefined;
}

export interface WithdrawalBound {
  /** Takes one withdrawal request from the bound: not taken, and nothing counted, once it is spent. */
  take(): Promise<Taken>;
}

/** A bound kept in one process: global setup's, which serves it, or a process's own. */
export function localBound(limit: number | undefined): WithdrawalBound {
  let taken = 0;
  return {
    take: () => {
      if (limit !== undefined && taken >= limit) return Promise.resolve({ taken: false, limit });
      taken += 1;
      return Promise.resolve({ taken: true, limit });
    },
  };
}

/** Why a withdrawal request was not sent: the plan's bound was reached. */
export class BoundReached extends Error {
  readonly limit: number;

  constructor(limit: number) {
    super(
      `not sent: the run has sent the ${limit} withdrawal requests the payout plan bounds it to (renewals and resends included)`,
    );
    this.name = 'BoundReached';
    this.limit = limit;
  }
}
