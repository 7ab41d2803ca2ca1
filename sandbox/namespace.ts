/**
 * A namespace: one test client's world (credentials, tokens, codes, withdrawals, journal), so that
 * parallel CI jobs against one simulator never see each other's state. Its credentials derive from
 * its name and the control token: the same name gives the same credentials, run after run.
 */
import { createHmac, createPrivateKey, createPublicKey, randomBytes } from 'node:crypto';
import type { NamespaceCredentials } from './departures.ts';
import { Bounded, BoundedMap, type ByteBudget } from './bounded.ts';
import type { components } from './generated/simulator-control.ts';
import { TOKEN_LIFETIME_SECONDS } from './state.ts';

export const NAMESPACE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
/** Requests and deliveries kept per namespace; older ones are dropped and counted. */
export const JOURNAL_MAX_ENTRIES = 10_000;
/** Request bodies are journaled up to this many bytes. */
export const JOURNAL_BODY_BYTES = 64 * 1024;
/** ...and those of refused requests up to this many. */
export const JOURNAL_REFUSED_BODY_BYTES = 4 * 1024;
/** A namespace's journal keeps about this many bytes of requests, and of deliveries; older ones are dropped and counted. */
export const JOURNAL_REQUEST_BYTES = 16 * 1024 * 1024;
export const JOURNAL_DELIVERY_BYTES = 4 * 1024 * 1024;
/** Every namespace's journal together; past it, the namespace that records drops its own oldest entries. */
export const SIMULATOR_JOURNAL_BYTES = 256 * 1024 * 1024;
/** A code, a path or a URL is journaled up to this many characters, secrets masked first. */
export const JOURNAL_CODE_MAX = 256;
/** Codes answered 429 by rate-limited-429, remembered so that their resend is served. */
const MAX_LIMITED_CODES = 10_000;
/** Codes remembered per namespace for check_code; the oldest are forgotten past it. */
const MAX_CODES = 100_000;

type Schemas = components['schemas'];
export type Faults = Schemas['Faults'];
export type JournalRequest = Schemas['JournalRequest'];
export type JournalDelivery = Schemas['JournalDelivery'];
type DueDelivery = Schemas['DueDelivery'];
/** A delivery attempt planned or under way, as the namespace keeps it until the attempt is journaled. */
type Due = Omit<DueDelivery, 'dueAt' | 'dueInMs'> & { readonly dueAt: number };

export interface Withdrawal {
  readonly id: string;
  readonly code: string | null;
  readonly amount: unknown;
  /** PostBackUrl as the withdrawal gave it. */
  readonly url: string | undefined;
}

interface IssuedToken {
  readonly id: string;
  readonly issuedAt: number;
  readonly requestSeq: number;
}

/** Ed25519 keys can be made from a seed: a namespace's key pair follows from its name. */
const ED25519_PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');

export function credentialsOf(name: string, secret: string): NamespaceCredentials & { certPem: string } {
  const derive = (purpose: string): Buffer =>
    createHmac('sha256', secret).update(`${purpose}:${name}`).digest();
  const privateKey = createPrivateKey({
    key: Buffer.concat([ED25519_PKCS8_PREFIX, derive('cert')]),
    format: 'der',
    type: 'pkcs8',
  });
  const certPem = createPublicKey(privateKey).export({ type: 'spki', format: 'pem' }).toString();
  return {
    clientId: `sim-${name}`,
    clientSecret: derive('secret').toString('hex'),
    certClient: Buffer.from(certPem).toString('base64'),
    certPem,
  };
}

/** About the bytes a journaled request holds: its texts, and a share for the object around them. */
function requestBytes(entry: JournalRequest): number {
  let bytes = 1024 + entry.path.length + (entry.code?.length ?? 0) + (entry.body.text?.length ?? 0);
  if (entry.body.value !== undefined) bytes += Math.min(entry.body.bytes, JOURNAL_BODY_BYTES);
  for (const name of entry.headerNames) bytes += name.length + 16;
  for (const value of Object.values(entry.headers)) bytes += value.length + 16;
  for (const departure of entry.departures) bytes += 128 + departure.message.length + departure.name.length;
  return bytes;
}

const deliveryBytes = (entry: JournalDelivery): number => 512 + entry.url.length + (entry.code?.length ?? 0);

export class Namespace {
  readonly credentials: NamespaceCredentials & { certPem: string };
  private tokens = new BoundedMap<string, IssuedToken>(JOURNAL_MAX_ENTRIES);
  private tokenList = new Bounded<IssuedToken>(JOURNAL_MAX_ENTRIES);
  private codes = new BoundedMap<string, true>(MAX_CODES);
  private limitedCodes = new BoundedMap<string, true>(MAX_LIMITED_CODES);
  private withdrawals = new BoundedMap<string, Withdrawal>(JOURNAL_MAX_ENTRIES);
  private readonly requests: Bounded<JournalRequest>;
  private readonly deliveries: Bounded<JournalDelivery>;
  private due = new Map<number, Due>();
  private requestSeq = 0;
  private deliverySeq = 0;
  private dueSeq = 0;
  private tokenSeq = 0;
  /** Paid withdrawals so far: `realistic` doubles the first one's webhook and disorders the second's. */
  paidCount = 0;
  /** Counts resets: a delivery planned before one is never sent nor journaled after it. */
  generation = 0;

  readonly name: string;
  readonly faults: Faults;

  constructor(name: string, faults: Faults, secret: string, budget: ByteBudget) {
    this.name = name;
    this.faults = faults;
    this.credentials = credentialsOf(name, secret);
    this.requests = new Bounded(JOURNAL_MAX_ENTRIES, {
      sizeOf: requestBytes,
      maxBytes: JOURNAL_REQUEST_BYTES,
      shared: budget,
    });
    this.deliveries = new Bounded(JOURNAL_MAX_ENTRIES, {
      sizeOf: deliveryBytes,
      maxBytes: JOURNAL_DELIVERY_BYTES,
      shared: budget,
    });
  }

  reset(): void {
    this.generation += 1;
    this.tokens = new BoundedMap(JOURNAL_MAX_ENTRIES);
    this.tokenList = new Bounded(JOURNAL_MAX_ENTRIES);
    this.codes = new BoundedMap(MAX_CODES);
    this.limitedCodes = new BoundedMap(MAX_LIMITED_CODES);
    this.withdrawals = new BoundedMap(JOURNAL_MAX_ENTRIES);
    this.requests.clear();
    this.deliveries.clear();
    this.due = new Map();
    // dueSeq goes on: an attempt under way before the reset must not take a new key from the due list.
    this.requestSeq = this.deliverySeq = this.tokenSeq = this.paidCount = 0;
  }

  /** rate-limited-429 answers a code 429 once: true the first time, and its resend is served. */
  firstLimit(code: string): boolean {
    if (this.limitedCodes.has(code)) return false;
    this.limitedCodes.set(code, true);
    return true;
  }

  /** Whether the token was issued by this namespace (whatever its age): what Secrets masks. */
  issued(token: string): boolean {
    return this.tokens.has(token);
  }

  nextRequestSeq(): number {
    return ++this.requestSeq;
  }

  record(entry: JournalRequest): void {
    this.requests.push(entry);
  }

  /**
   * A delivery attempt `inMs` from now, due until it is journaled; its key, or undefined past the
   * journal's bound (a client run then waits to its own limit).
   */
  expect(
    withdrawal: Withdrawal,
    attempt: Pick<Due, 'url' | 'event' | 'kind' | 'attempt'>,
    inMs: number,
  ): number | undefined {
    if (this.due.size >= JOURNAL_MAX_ENTRIES) return undefined;
    this.due.set(++this.dueSeq, {
      withdrawalId: withdrawal.id,
      code: withdrawal.code,
      ...attempt,
      dueAt: Date.now() + inMs,
    });
    return this.dueSeq;
  }

  /**
   * The attempt journaled, unless the namespace was reset since its withdrawal (`generation`), and no
   * longer due if it was expected.
   */
  recordDelivery(generation: number, entry: Omit<JournalDelivery, 'seq'>, due: number | undefined): void {
    if (generation === this.generation) this.deliveries.push({ seq: ++this.deliverySeq, ...entry });
    if (due !== undefined) this.due.delete(due);
  }

  issueToken(requestSeq: number, now = Date.now()): { token: string; id: string } {
    const token = randomBytes(32).toString('hex');
    const issued = { id: `t${++this.tokenSeq}`, issuedAt: now, requestSeq };
    this.tokens.set(token, issued);
    this.tokenList.push(issued);
    return { token, id: issued.id };
  }

  lookupToken(token: string, now = Date.now()): { id: string; expired: boolean } | undefined {
    const issued = this.tokens.get(token);
    if (issued === undefined) return undefined;
    return { id: issued.id, expired: issued.issuedAt + TOKEN_LIFETIME_SECONDS * 1000 <= now };
  }

  hasCode(code: string): boolean {
    return this.codes.has(code);
  }

  takeCode(code: string): void {
    this.codes.set(code, true);
  }

  addWithdrawal(withdrawal: Withdrawal): void {
    this.withdrawals.set(withdrawal.id, withdrawal);
  }

  /** By its id, or else the newest with that client code. */
  findWithdrawal(idOrCode: string): Withdrawal | undefined {
    const byId = this.withdrawals.get(idOrCode);
    if (byId !== undefined) return byId;
    return [...this.withdrawals.values()].reverse().find((w) => w.code === idOrCode);
  }

  journal(limits: { webhookTimeoutMs: number }, now = Date.now()): Schemas['Journal'] {
    const requests = this.requests.snapshot();
    const deliveries = this.deliveries.snapshot();
    const due = [...this.due.values()].sort((a, b) => a.dueAt - b.dueAt);
    return {
      namespace: this.name,
      limits: {
        webhookTimeoutMs: limits.webhookTimeoutMs,
        journalMaxEntries: JOURNAL_MAX_ENTRIES,
        journalRequestBytes: JOURNAL_REQUEST_BYTES,
        journalDeliveryBytes: JOURNAL_DELIVERY_BYTES,
        simulatorJournalBytes: SIMULATOR_JOURNAL_BYTES,
      },
      dropped: { requests: requests.dropped, deliveries: deliveries.dropped },
      tokens: this.tokenList.snapshot().items.map(({ id, issuedAt, requestSeq }) => ({
        id,
        issuedAt: new Date(issuedAt).toISOString(),
        requestSeq,
      })),
      requests: requests.items,
      deliveries: deliveries.items,
      due: due.map(({ dueAt, ...planned }) => ({
        ...planned,
        dueAt: new Date(dueAt).toISOString(),
        dueInMs: Math.max(0, Math.round(dueAt - now)),
      })),
    };
  }
}
