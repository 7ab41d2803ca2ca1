/**
 * The run's access token, one for every worker: a provider that keeps one active token per client
 * revokes the earlier token whenever a newer one is issued, so workers that each held their own would
 * revoke each other's on every renewal. The desk holds the newest token issued to the configured
 * credentials; a worker whose request is refused for a token the desk has replaced sends it again
 * with the desk's, and only a refused newest token is renewed. Across processes the run's shared
 * gate serves it (shared-gate.ts).
 */

export interface HeldToken {
  readonly token: string;
  /** When it was issued, in ms since the epoch. */
  readonly issuedAt: number;
}

export interface TokenDesk {
  /** The newest token issued to the configured credentials in this run, if any. */
  current(): Promise<HeldToken | undefined>;
  /** A token was just issued to the configured credentials: it replaces the one held. */
  issued(held: HeldToken): Promise<void>;
}

/** A desk for one process (unit tests, and global setup, which serves it to the workers). */
export function localDesk(): TokenDesk {
  let held: HeldToken | undefined;
  return {
    current: () => Promise.resolve(held),
    issued: (token) => {
      // Two workers renewing at once: the one issued last is the one a revoking provider keeps.
      if (held === undefined || token.issuedAt >= held.issuedAt) held = token;
      return Promise.resolve();
    },
  };
}
