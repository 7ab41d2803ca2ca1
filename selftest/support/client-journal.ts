/**
 * Hand-written journals of the simulator's shape, for the self-tests that judge a client's run without
 * running one: requests (token, withdrawals, a 401 of the outcome table), deliveries, and a correct client.
 */
import type { ClientRun } from '../../src/checks/client-requests.ts';
import type { Journal, JournalDelivery, JournalRequest, OutcomeRow } from '../../src/evidence/journal.ts';

export const T0 = Date.parse('2026-11-28T12:00:00.000Z');
export const at = (ms: number): string => new Date(T0 + ms).toISOString();

const OUTCOMES: OutcomeRow[] = [
  {
    name: 'paid',
    amount: 0.01,
    status: 200,
    webhooks: [{ status: 'PAID', afterSeconds: 0, kind: 'valid' }],
    meaning: '',
  },
  { name: 'rate-limited-429', amount: 0.29, status: 429, retryAfterSeconds: 1, webhooks: [], meaning: '' },
  {
    name: 'error-500-paid',
    amount: 0.51,
    status: 500,
    webhooks: [{ status: 'PAID', afterSeconds: 0, kind: 'valid' }],
    meaning: '',
  },
  {
    name: 'webhook-malformed',
    amount: 0.24,
    status: 200,
    webhooks: [
      { status: 'PAID', afterSeconds: 0, kind: 'malformed' },
      { status: 'PAID', afterSeconds: 0.5, kind: 'valid' },
    ],
    meaning: '',
  },
];

let seq = 0;
export const HOOK = 'http://127.0.0.1:5050/pix';

function request(over: Partial<JournalRequest> & { ms: number }): JournalRequest {
  seq += 1;
  const { ms, ...rest } = over;
  return {
    seq,
    at: at(ms),
    elapsedMs: 2,
    method: 'POST',
    path: '/pix/payment',
    operation: 'withdraw',
    scheme: 'http',
    host: '127.0.0.1:4020',
    remoteLoopback: true,
    headerNames: [],
    headers: {},
    credentials: {},
    body: { bytes: 0, truncated: false, json: false },
    departures: [],
    answer: {
      status: 200,
      retryAfterSeconds: null,
      withdrawalId: `w${seq}`,
      tokenId: null,
      reportedStatus: 'PROCESSING',
    },
    ...rest,
  };
}

export const token = (ms: number, id: string): JournalRequest =>
  request({
    ms,
    path: '/auth/token',
    operation: 'token',
    answer: { status: 200, retryAfterSeconds: null, withdrawalId: null, tokenId: id },
  });

export function withdraw(
  ms: number,
  tokenId: string,
  fields: Record<string, unknown> = {},
  status: number | null = 200,
  code = `c${seq + 1}`,
): JournalRequest {
  const value = {
    amount: 0.01,
    code,
    name: 'Ana',
    key_type: 'EMAIL',
    document: '1',
    key_pix: 'a@b.c',
    PostBackUrl: HOOK,
    check_code: true,
    ...fields,
  };
  return request({
    ms,
    code,
    credentials: { token: 'valid', tokenId },
    body: { bytes: 100, truncated: false, json: true, value },
    answer: {
      status,
      retryAfterSeconds: status === 429 ? 1 : null,
      withdrawalId: status === 200 ? `w${seq}` : null,
      tokenId: null,
      ...(status === 200 ? { reportedStatus: 'PROCESSING' } : {}),
    },
  });
}

/** A withdrawal the outcome table answered 401 (unauthorized-401), as a served request is journaled. */
export const unauthorized = (ms: number, tokenId: string): JournalRequest => ({
  ...withdraw(ms, tokenId, {}, 401),
  outcome: { name: 'unauthorized-401', amount: 0.01 },
});

let dseq = 0;
export function delivery(
  kind: JournalDelivery['kind'],
  answer: JournalDelivery['answer'],
  url = HOOK,
  over: Partial<JournalDelivery> = {},
): JournalDelivery {
  dseq += 1;
  return {
    seq: dseq,
    withdrawalId: 'w',
    code: 'c',
    url,
    event: 'PAID',
    kind,
    webhookId: `m${dseq}`,
    attempt: 1,
    of: 1,
    sentAt: at(5000 + dseq),
    beforeAnswer: false,
    durationMs: 3,
    answer,
    ...over,
  };
}

/** `expiresInSeconds`: the lifetime every token's answer stated. */
export function journal(
  requests: JournalRequest[],
  deliveries: JournalDelivery[] = [],
  expiresInSeconds = 7200,
): ClientRun {
  const tokens = requests
    .filter((r) => r.answer.tokenId !== null)
    .map((r) => ({ id: r.answer.tokenId ?? '', issuedAt: r.at, requestSeq: r.seq, expiresInSeconds }));
  const j: Journal = {
    namespace: 'ns-test',
    limits: {
      webhookTimeoutMs: 5000,
      journalMaxEntries: 10000,
      journalRequestBytes: 16777216,
      journalDeliveryBytes: 4194304,
      simulatorJournalBytes: 268435456,
    },
    dropped: { requests: 0, deliveries: 0 },
    tokens,
    requests,
    deliveries,
    due: [],
  };
  return { journal: j, outcomes: OUTCOMES };
}

export const ok = { status: 200 } as const;

/** A correct client: one token, two withdrawals, every kind of delivery answered as it should be. */
export function correctRun(): ClientRun {
  const first = withdraw(10, 't1');
  return journal(
    [token(0, 't1'), first, withdraw(20, 't1', { key_pix: 'b@b.c' })],
    [
      delivery('valid', ok, HOOK, { withdrawalId: first.answer.withdrawalId ?? '', sentAt: at(15) }),
      delivery('duplicate', ok),
      delivery('out-of-order', ok),
      delivery('malformed', { status: 400 }),
      delivery('valid', ok),
      delivery('extra-fields', ok),
    ],
  );
}
