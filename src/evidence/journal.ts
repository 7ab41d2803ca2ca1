/**
 * The simulator's journal of one namespace, as its control API gives it (SIMULATOR-CONTRACT.md,
 * docs/simulator.md): every request a client sent, with every way it departs from the document, and
 * every delivery to its webhook handler with the handler's answer. Credential values are masked by
 * the simulator; the client certification judges this data only.
 */

export type JournalOperation = 'token' | 'withdraw' | 'unknown';

export interface JournalDeparture {
  readonly code: string;
  /** The header or field as the document spells it. */
  readonly name: string;
  /** What came instead, when it differs from the name. */
  readonly got?: string;
  readonly clause: string;
  readonly level: 'must' | 'should' | 'observe';
  readonly message: string;
}

export interface JournalRequest {
  readonly seq: number;
  /** When it arrived, ISO 8601. */
  readonly at: string;
  /** From its arrival to its answer. */
  readonly elapsedMs: number;
  readonly method: string;
  readonly path: string;
  readonly operation: JournalOperation;
  readonly scheme: 'http' | 'https';
  readonly host: string;
  readonly remoteLoopback: boolean;
  readonly headerNames: readonly string[];
  readonly headers: Readonly<Record<string, string>>;
  readonly credentials: Readonly<Record<string, string>>;
  readonly body: {
    readonly bytes: number;
    readonly truncated: boolean;
    readonly json: boolean;
    readonly value?: unknown;
    readonly text?: string;
  };
  readonly departures: readonly JournalDeparture[];
  readonly answer: {
    /** null: no answer in the client's time. */
    readonly status: number | null;
    readonly retryAfterSeconds: number | null;
    readonly withdrawalId: string | null;
    readonly tokenId: string | null;
  };
  readonly outcome?: { readonly name: string; readonly amount: number };
  readonly code?: string;
}

export type DeliveryKind = 'valid' | 'duplicate' | 'out-of-order' | 'malformed' | 'extra-fields' | 'retry';

export interface JournalDelivery {
  readonly seq: number;
  readonly withdrawalId: string;
  readonly code: string | null;
  readonly url: string;
  readonly event: string;
  readonly kind: DeliveryKind;
  readonly webhookId: string;
  readonly attempt: number;
  readonly of: number;
  readonly sentAt: string;
  readonly durationMs: number;
  readonly answer: { readonly status: number } | { readonly status: null; readonly error: string };
}

export interface Journal {
  readonly namespace: string;
  readonly limits: { readonly webhookTimeoutMs: number; readonly journalMaxEntries: number };
  readonly dropped: { readonly requests: number; readonly deliveries: number };
  readonly tokens: readonly { readonly id: string; readonly issuedAt: string; readonly requestSeq: number }[];
  readonly requests: readonly JournalRequest[];
  readonly deliveries: readonly JournalDelivery[];
}

export interface OutcomeWebhook {
  readonly status: string;
  readonly afterSeconds: number;
  readonly kind?: DeliveryKind;
}

/** A row of the simulator's outcome table: what a valid withdrawal of that amount gets. */
export interface OutcomeRow {
  readonly name: string;
  readonly amount: number;
  readonly status: number | null;
  readonly retryAfterSeconds?: number;
  readonly webhooks: readonly OutcomeWebhook[];
  readonly meaning: string;
}

/** A namespace with realistic faults doubles its first paid withdrawal's webhook and disorders its second's. */
const REALISTIC_EXTRA: readonly number[] = [1, 1];

/**
 * How many deliveries the journal still awaits: the first attempts the outcome table plans for each
 * withdrawal with a PostBackUrl, within `horizonS` of now (a 30 s late webhook is not waited for), that
 * have not come yet, and the retries still due after an answer other than 2xx.
 */
export function awaitedDeliveries(
  journal: Journal,
  outcomes: readonly OutcomeRow[],
  horizonS: number,
  realistic: boolean,
): number {
  const rows = new Map(outcomes.map((row) => [row.name, row]));
  let paid = 0;
  let planned = 0;
  for (const request of journal.requests) {
    const row = request.outcome === undefined ? undefined : rows.get(request.outcome.name);
    const body = request.body.value;
    const url =
      typeof body === 'object' && body !== null ? (body as Record<string, unknown>).PostBackUrl : undefined;
    if (row === undefined || typeof url !== 'string') continue;
    const soon = row.webhooks.filter((w) => w.kind !== 'retry' && w.afterSeconds <= horizonS).length;
    planned += soon + (realistic && row.name === 'paid' ? (REALISTIC_EXTRA[paid++] ?? 0) : 0);
  }
  const first = journal.deliveries.filter((d) => d.attempt === 1).length;
  const retrying = journal.deliveries.filter((d) => {
    const ok = d.answer.status !== null && d.answer.status >= 200 && d.answer.status < 300;
    const later = journal.deliveries.some(
      (e) => e.webhookId === d.webhookId && e.url === d.url && e.seq > d.seq,
    );
    return (
      !ok && d.attempt < d.of && !later && !('error' in d.answer && d.answer.error === 'host-not-allowed')
    );
  }).length;
  return Math.max(0, planned - first) + retrying;
}
