/**
 * What one scenario remembers: the tokens it issued and the codes it accepted. Each scenario has its
 * own, so parallel runs against different scenarios never see each other's tokens or codes.
 */
import { randomBytes } from 'node:crypto';

/** §5.3: the client renews its token every 7200 s; the sandbox honours a token exactly that long. */
export const TOKEN_LIFETIME_SECONDS = 7200;

interface IssuedToken {
  readonly expiresAt: number;
  spent: boolean;
}

export class TokenStore {
  private readonly tokens = new Map<string, IssuedToken>();

  issue(lifetimeSeconds: number, now = Date.now()): string {
    const token = randomBytes(32).toString('hex');
    this.tokens.set(token, { expiresAt: now + lifetimeSeconds * 1000, spent: false });
    return token;
  }

  /** Whether the token authorises a request now; a single-use token is spent by the first one. */
  authorise(token: string, singleUse: boolean, now = Date.now()): boolean {
    const issued = this.tokens.get(token);
    if (issued === undefined || issued.spent) return false;
    if (issued.expiresAt <= now) {
      this.tokens.delete(token);
      return false;
    }
    if (singleUse) issued.spent = true;
    return true;
  }
}

export interface ScenarioState {
  readonly tokens: TokenStore;
  /** Codes of accepted withdrawals. The sandbox has one client, so per scenario is per client. */
  readonly usedCodes: Set<string>;
  /** Every POST /pix/payment that arrived, answered or not: what a run really sent. */
  withdrawalsReceived: number;
}

export function newScenarioState(): ScenarioState {
  return { tokens: new TokenStore(), usedCodes: new Set(), withdrawalsReceived: 0 };
}
