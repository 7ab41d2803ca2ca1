/**
 * A namespace: one client's world (the provider it plays, credentials, tokens, codes, withdrawals,
 * journal), so that parallel CI jobs against one simulator never see each other's state. An
 * integrator's credentials derive from its name and the control token (the same name gives the same
 * credentials, run after run); each /s/<scenario> is a namespace too, with the sandbox's one client
 * and no journal.
 */
import { createHmac, createPrivateKey, createPublicKey } from 'node:crypto';
import type { Behaviour } from './behaviour.ts';
import type { NamespaceCredentials } from './departures.ts';
import { Bounded, BoundedMap, type ByteBudget } from './bounded.ts';
import type { components } from './generated/simulator-control.ts';
import type { Withdrawal } from './outcomes.ts';
import { RateWindow } from './rate-window.ts';
import { TokenStore } from './token-store.ts';

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

export type Credentials = NamespaceCredentials & { readonly certPem: string };

/** The provider a namespace plays: a profile with faults on top, by name, and the behaviour they make. */
export interface Provider {
  readonly profile: string;
  readonly faults: readonly string[];
  readonly behaviour: Behaviour;
}

export interface NamespaceOptions {
  readonly name: string;
  readonly faults: Faults;
  readonly credentials: Credentials;
  readonly provider: Provider;
  /** The budget every journal shares; undefined keeps no journal (a scenario's namespace). */
  readonly budget: ByteBudget | undefined;
}

/** Ed25519 keys can be made from a seed: a namespace's key pair follows from its name. */
const ED25519_PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');

export function credentialsOf(name: string, secret: string): Credentials {
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
  readonly credentials: Credentials;
  tokens = new TokenStore(JOURNAL_MAX_ENTRIES);
  /** Accepted codes, with when each was accepted (a profile's duplicate memory may expire). */
  private codes = new BoundedMap<string, number>(MAX_CODES);
  private limitedCodes = new BoundedMap<string, true>(MAX_LIMITED_CODES);
  private withdrawals = new BoundedMap<string, Withdrawal>(JOURNAL_MAX_ENTRIES);
  private readonly requests: Bounded<JournalRequest>;
  private readonly deliveries: Bounded<JournalDelivery>;
  private due = new Map<number, Due>();
  private requestSeq = 0;
  private deliverySeq = 0;
  private dueSeq = 0;
  /** Paid withdrawals so far: `realistic` doubles the first one's webhook and disorders the second's. */
  paidCount = 0;
  /** Counts resets: a delivery planned before one is never sent nor journaled after it. */
  generation = 0;
  /** Every POST /pix/payment that arrived, answered or not: what a run really sent. */
  withdrawalsReceived = 0;
  readonly rate = new RateWindow();

  readonly name: string;
  readonly faults: Faults;
  readonly provider: Provider;
  readonly behaviour: Behaviour;
  /** False for a scenario's namespace: nothing is journaled, nothing waits in the due list. */
  readonly journaled: boolean;

  constructor({ name, faults, credentials, provider, budget }: NamespaceOptions) {
    this.name = name;
    this.faults = faults;
    this.credentials = credentials;
    this.provider = provider;
    this.behaviour = provider.behaviour;
    this.journaled = budget !== undefined;
    this.requests = new Bounded(JOURNAL_MAX_ENTRIES, {
      sizeOf: requestBytes,
      maxBytes: JOURNAL_REQUEST_BYTES,
      ...(budget === undefined ? {} : { shared: budget }),
    });
    this.deliveries = new Bounded(JOURNAL_MAX_ENTRIES, {
      sizeOf: deliveryBytes,
      maxBytes: JOURNAL_DELIVERY_BYTES,
      ...(budget === undefined ? {} : { shared: budget }),
    });
  }

  reset(): void {
    this.generation += 1;
    this.tokens = new TokenStore(JOURNAL_MAX_ENTRIES);
    this.codes = new BoundedMap(MAX_CODES);
    this.limitedCodes = new BoundedMap(MAX_LIMITED_CODES);
    this.withdrawals = new BoundedMap(JOURNAL_MAX_ENTRIES);
    this.requests.clear();
    this.deliveries.clear();
    this.due = new Map();
    // dueSeq goes on: an attempt under way before the reset must not take a new key from the due list.
    this.requestSeq = this.deliverySeq = this.paidCount = 0;
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
    if (this.journaled) this.requests.push(entry);
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
    if (!this.journaled || this.due.size >= JOURNAL_MAX_ENTRIES) return undefined;
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
    if (this.journaled && generation === this.generation)
      this.deliveries.push({ seq: ++this.deliverySeq, ...entry });
    if (due !== undefined) this.due.delete(due);
  }

  /** When the code was accepted, if it was. */
  codeTakenAt(code: string): number | undefined {
    return this.codes.get(code);
  }

  takeCode(code: string, now = Date.now()): void {
    this.codes.set(code, now);
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
      tokens: this.tokens.journal(),
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
