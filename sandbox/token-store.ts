/**
 * The tokens one namespace (or scenario) issued: the one store behind every profile and fault, bounded
 * by count, with the journal's view of each (its id and the request that asked for it).
 */
import { randomBytes } from 'node:crypto';
import { type Behaviour, type Comparison, sameCredential } from './behaviour.ts';
import { Bounded, BoundedMap } from './bounded.ts';

/** §5.3: the client renews its token every 7200 s; the reference honours a token exactly that long. */
export const TOKEN_LIFETIME_SECONDS = 7200;

/** How an issued token looks, as the behaviour says. */
export type TokenForm = Behaviour['tokenForm'];

interface IssuedToken {
  readonly id: string;
  readonly issuedAt: number;
  readonly expiresAt: number;
  /** The lifetime the token answer stated. */
  readonly expiresInSeconds: number;
  readonly requestSeq: number;
  spent: boolean;
}

/** What a presented bearer token is to the store. */
export type TokenState = { readonly id: string; readonly expired: boolean } | undefined;

/** How long a profile honours its tokens, and how they are looked up (Behaviour's token switches). */
export interface TokenRules {
  readonly singleUse: boolean;
  /** Dies this long after issue whatever it stated; undefined: as stated. */
  readonly diesAfterSeconds: number | undefined;
  readonly compare: Comparison;
}

function tokenOf(form: TokenForm): string {
  const hex = randomBytes(32).toString('hex');
  if (form === 'line-break') return `${hex.slice(0, 32)}\r\n${hex.slice(32)}`;
  return form === 'huge' ? randomBytes(22_500).toString('base64url') : hex;
}

export class TokenStore {
  private tokens: BoundedMap<string, IssuedToken>;
  private list: Bounded<IssuedToken>;
  private seq = 0;
  private readonly max: number;

  constructor(max: number) {
    this.max = max;
    this.tokens = new BoundedMap(max);
    this.list = new Bounded(max);
  }

  /** A new token; `onlyActive` revokes every earlier one (one active token per client). */
  issue(
    lifetimeSeconds: number,
    form: TokenForm,
    onlyActive: boolean,
    requestSeq: number,
    now = Date.now(),
  ): { token: string; id: string } {
    const token = tokenOf(form);
    if (onlyActive) this.tokens = new BoundedMap(this.max);
    const issued = {
      id: `t${++this.seq}`,
      issuedAt: now,
      expiresAt: now + lifetimeSeconds * 1000,
      expiresInSeconds: lifetimeSeconds,
      requestSeq,
      spent: false,
    };
    this.tokens.set(token, issued);
    this.list.push(issued);
    return { token, id: issued.id };
  }

  /** Whether the store issued this token, whatever its age: what Secrets masks. */
  has(token: string): boolean {
    return this.tokens.has(token);
  }

  /**
   * The presented token as the rules see it: unknown, expired (or spent, or dead early), or valid; a
   * single-use token is spent by the request that finds it valid.
   */
  use(token: string, rules: TokenRules, now = Date.now()): TokenState {
    const known =
      rules.compare === 'exact'
        ? token
        : [...this.tokens.keys()].find((issued) => sameCredential(token, issued, rules.compare));
    const issued = known === undefined ? undefined : this.tokens.get(known);
    if (issued === undefined) return undefined;
    const diesAt =
      rules.diesAfterSeconds === undefined ? Infinity : issued.issuedAt + rules.diesAfterSeconds * 1000;
    const expired = issued.spent || Math.min(issued.expiresAt, diesAt) <= now;
    if (!expired && rules.singleUse) issued.spent = true;
    return { id: issued.id, expired };
  }

  /** The journal's view: every token's id, when it was issued, by which request, and the lifetime it stated. */
  journal(): { id: string; issuedAt: string; requestSeq: number; expiresInSeconds: number }[] {
    return this.list.snapshot().items.map(({ id, issuedAt, requestSeq, expiresInSeconds }) => ({
      id,
      issuedAt: new Date(issuedAt).toISOString(),
      requestSeq,
      expiresInSeconds,
    }));
  }
}
