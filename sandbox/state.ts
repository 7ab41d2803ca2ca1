/**
 * What one scenario remembers: the tokens it issued and the codes it accepted. Each scenario has its
 * own, so parallel runs against different scenarios never see each other's tokens or codes.
 */
import { randomBytes } from 'node:crypto';
import { type Comparison, sameCredential } from './behaviour.ts';

/** §5.3: the client renews its token every 7200 s; the sandbox honours a token exactly that long. */
export const TOKEN_LIFETIME_SECONDS = 7200;

interface IssuedToken {
  readonly issuedAt: number;
  readonly expiresAt: number;
  spent: boolean;
}

export class TokenStore {
  private readonly tokens = new Map<string, IssuedToken>();

  /** A new token; `onlyActive` revokes every earlier one (one active token per client). */
  issue(lifetimeSeconds: number, form: TokenForm = 'hex', onlyActive = false, now = Date.now()): string {
    const token = tokenOf(form);
    if (onlyActive) this.tokens.clear();
    this.tokens.set(token, { issuedAt: now, expiresAt: now + lifetimeSeconds * 1000, spent: false });
    return token;
  }

  /**
   * Whether the token authorises a request now; a single-use token is spent by the first one, and
   * one that dies early stops `diesAfterSeconds` after it was issued, whatever it stated.
   */
  authorise(
    token: string,
    singleUse: boolean,
    diesAfterSeconds?: number,
    now = Date.now(),
    compare: Comparison = 'exact',
  ): boolean {
    const known =
      compare === 'exact' ? token : [...this.tokens.keys()].find((k) => sameCredential(token, k, compare));
    const issued = known === undefined ? undefined : this.tokens.get(known);
    if (known === undefined || issued === undefined || issued.spent) return false;
    const diesAt = diesAfterSeconds === undefined ? Infinity : issued.issuedAt + diesAfterSeconds * 1000;
    if (Math.min(issued.expiresAt, diesAt) <= now) {
      this.tokens.delete(known);
      return false;
    }
    if (singleUse) issued.spent = true;
    return true;
  }
}

export type TokenForm = 'hex' | 'line-break' | 'huge';

function tokenOf(form: TokenForm): string {
  const hex = randomBytes(32).toString('hex');
  if (form === 'line-break') return `${hex.slice(0, 32)}\r\n${hex.slice(32)}`;
  return form === 'huge' ? randomBytes(22_500).toString('base64url') : hex;
}

/** Requests answered in the current second, and in all, for a scenario that rate-limits. */
export class RateWindow {
  private second = 0;
  private count = 0;
  private total = 0;

  /** Counts one request; true when it is the `n`th, the 2`n`th...: a share refused whatever the pace. */
  isNth(n: number): boolean {
    this.total += 1;
    return this.total % n === 0;
  }

  /** Counts one request; true when it is past `perSecond` in its second. */
  exceeds(perSecond: number, now = Date.now()): boolean {
    const second = Math.floor(now / 1000);
    if (second !== this.second) {
      this.second = second;
      this.count = 0;
    }
    this.count += 1;
    return this.count > perSecond;
  }
}

export interface ScenarioState {
  readonly tokens: TokenStore;
  /** Codes of accepted withdrawals, with when each was accepted. The sandbox has one client, so per scenario is per client. */
  readonly usedCodes: Map<string, number>;
  /** Codes rate-limited-429 answered once: their resend is served. */
  readonly limitedCodes: Set<string>;
  /** Every POST /pix/payment that arrived, answered or not: what a run really sent. */
  withdrawalsReceived: number;
  readonly rate: RateWindow;
}

export function newScenarioState(): ScenarioState {
  return {
    tokens: new TokenStore(),
    usedCodes: new Map(),
    limitedCodes: new Set(),
    withdrawalsReceived: 0,
    rate: new RateWindow(),
  };
}
