/**
 * Nothing PASSED unjudged: every check of the catalogue, fed through the recorder an input with
 * nothing to judge (no delivery, no answer: a 429 the environment did not process, no race, no
 * token), is SKIPPED with a reason or finds something, never PASSED. A check added without an entry
 * here fails the walk, and a check made to pass on empty input is caught (the second test).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { TestInfo } from '@playwright/test';
import type { Check } from '../src/checks/check.ts';
import { FAMILIES } from '../src/checks/catalogue.ts';
import { webhookIsJson, type WebhookInput } from '../src/checks/webhook.ts';
import { CHECKS_ANNOTATION, EVALUATIONS_ATTACHMENT, type Evaluation } from '../src/checks/vocabulary.ts';
import type { Exchange } from '../src/evidence/exchange.ts';
import { Recorder } from '../src/run/recorder.ts';
import type { Target } from '../src/run/target.ts';
import { loadSpec } from '../src/spec/spec.ts';
import { answered, delivered } from './support/exchanges.ts';

/** An input with nothing to judge, and the exchange the call site hands the recorder with it. */
interface Empty {
  readonly label: string;
  readonly input: unknown;
  readonly exchange?: Exchange;
}

const notProcessed = answered(429, '{"error":"too_many_requests"}');
const tokenNotProcessed = answered(429, '{}', 'application/json', 'createToken');
const noAnswer = (input: unknown, exchange = notProcessed): Empty => ({
  label: 'an answer the environment did not process (429)',
  input,
  exchange,
});
const accepted = answered(200, '{"id":"w-1"}', 'application/json', 'createWithdraw', '{"amount":0.01}');
const webhook = (deliveries: WebhookInput['deliveries'], label: string): Empty => ({
  label,
  input: {
    withdrawal: accepted,
    code: 'C-1',
    postBackUrl: 'http://127.0.0.1:1/hook/1',
    deliveries,
    incomplete: [],
    strays: { listed: [], total: 0, unlisted: 0 },
    timeoutMs: 1,
  },
  exchange: accepted,
});
const noDelivery = webhook([], 'no delivery');
const onlyGet = webhook([delivered('', { method: 'GET', contentType: null })], 'a GET, no POSTed body');
const tokenInput = (exchange: Exchange): unknown => ({ exchange, field: 'access_token' });
const judgedResponse = {
  exchange: notProcessed,
  documented: [200, 400],
  alsoAllowed: [],
  validate: undefined,
};

/** Families whose every check judges one exchange of its own (generated from the spec). */
const EXCHANGE_FAMILIES = new Set(['Accept handling', 'request bodies', 'silent values']);
/** The credential cases judge their answers: the wrong value's and its near misses'. */
const CREDENTIAL_ENTRIES: readonly Empty[] = [
  noAnswer([{ exchange: notProcessed }]),
  { label: 'no request answered', input: [] },
];

/** Each other check's inputs with nothing to judge, by id; an empty list says why there is none. */
const EMPTY: Readonly<Record<string, readonly Empty[] | { none: string }>> = {
  'TOKEN-ISSUED': [noAnswer(tokenNotProcessed, tokenNotProcessed)],
  'TOKEN-FIELD': [noAnswer(tokenInput(tokenNotProcessed), tokenNotProcessed)],
  'TOKEN-USABLE': [
    noAnswer(tokenInput(tokenNotProcessed), tokenNotProcessed),
    { label: 'no token', input: tokenInput(answered(200, '{}', 'application/json', 'createToken')) },
  ],
  'TOKEN-SIZE': [
    noAnswer(tokenInput(tokenNotProcessed), tokenNotProcessed),
    { label: 'no token', input: tokenInput(answered(200, '{}', 'application/json', 'createToken')) },
  ],
  'TOKEN-LIFETIME-COVERS-RENEWAL': [noAnswer(tokenNotProcessed, tokenNotProcessed)],
  'TOKEN-REUSE': [
    { label: 'no withdrawal answered', input: [] },
    { label: 'one withdrawal answered', input: [accepted] },
  ],
  'TOKEN-SURVIVES-NEWER-TOKEN': [noAnswer({ fate: 'accepted', answer: notProcessed })],
  'RESPONSE-STATUS-DOCUMENTED': [noAnswer(judgedResponse)],
  'RESPONSE-JSON': [noAnswer(judgedResponse)],
  'RESPONSE-SCHEMA': [noAnswer(judgedResponse)],
  'RESPONSE-COMPLETE': [noAnswer({ failure: undefined })],
  'CHECK-CODE-TRUE-REFUSES-DUPLICATE': [noAnswer({ first: notProcessed, second: notProcessed })],
  'CHECK-CODE-FALSE-ALLOWS-DUPLICATE': [noAnswer({ first: notProcessed, second: notProcessed })],
  'CHECK-CODE-TRUE-REFUSES-LATER-DUPLICATE': [noAnswer({ exchange: notProcessed, afterMs: 40_000 })],
  'CHECK-CODE-TRUE-REFUSES-CONCURRENT-DUPLICATE': [
    { label: 'no copy answered', input: [] },
    { label: 'one copy answered', input: [accepted] },
  ],
  'WEBHOOK-DELIVERED': [noDelivery],
  'WEBHOOK-POST': [noDelivery],
  'WEBHOOK-JSON': [noDelivery, onlyGet],
  'WEBHOOK-REFERS-TO-WITHDRAWAL': [noDelivery, onlyGet],
  'WEBHOOK-MATCHES-WITHDRAWAL': [noDelivery, onlyGet],
  'WEBHOOK-NONE-FOR-REFUSED': [
    noAnswer({ refusals: [] }),
    { label: 'no withdrawal refused', input: { refusals: [] } },
  ],
  'WEBHOOK-CALLBACK-FIELD-CASE-SENSITIVE': [noAnswer({ deliveries: [] })],
  'TRANSPORT-ENCRYPTED': { none: 'it judges the configured base URL, which every run has' },
};

/** A recorder for one test that declared these checks; what it recorded is read back from its attachment. */
function recorderFor(ids: readonly string[]): { verify: Recorder; recorded: () => Promise<Evaluation[]> } {
  let body = '[]';
  const testInfo = {
    title: 'the catalogue audit',
    annotations: [{ type: CHECKS_ANNOTATION, description: ids.join(' ') }],
    attach: (name: string, { body: attached }: { body: string }) => {
      if (name === EVALUATIONS_ATTACHMENT) body = attached;
      return Promise.resolve();
    },
  } as unknown as TestInfo;
  const verify = new Recorder({ missing: () => undefined } as unknown as Target, testInfo);
  return {
    verify,
    recorded: async () => {
      await verify.flush();
      return JSON.parse(body) as Evaluation[];
    },
  };
}

/** Every check that PASSED an input with nothing to judge, or was skipped without a reason. */
async function passedUnjudged(checks: readonly Check<never>[], families: ReadonlyMap<string, string>) {
  const found: string[] = [];
  for (const check of checks) {
    const family = families.get(check.id) ?? '';
    const entry = EXCHANGE_FAMILIES.has(family)
      ? [noAnswer(notProcessed)]
      : family === 'credentials'
        ? CREDENTIAL_ENTRIES
        : EMPTY[check.id];
    if (entry === undefined) {
      found.push(`${check.id}: no entry in this file's EMPTY table`);
      continue;
    }
    if ('none' in entry) continue;
    for (const { label, input, exchange } of entry) {
      const { verify, recorded } = recorderFor([check.id]);
      verify.check(check as Check<unknown>, input, exchange);
      const [evaluation] = await recorded();
      if (evaluation?.verdict === 'PASSED') found.push(`${check.id}: PASSED on ${label}`);
      if (evaluation?.verdict === 'SKIPPED' && (evaluation.reason ?? '') === '')
        found.push(`${check.id}: SKIPPED on ${label} without a reason`);
    }
  }
  return found;
}

describe('the catalogue audit', () => {
  const spec = loadSpec();
  const families = new Map(FAMILIES.flatMap((f) => f.checks(spec).map((c) => [c.id, f.name] as const)));
  const checks = FAMILIES.flatMap((f) => f.checks(spec));

  it('walks every check: fed nothing to judge, none PASSES, and each skip says why', async () => {
    assert.ok(checks.length > 60, `${checks.length} checks`);
    assert.deepEqual(await passedUnjudged(checks, families), []);
  });

  it('fails when a check is made to pass on empty input', async () => {
    const weakened = checks.map((c) =>
      c.id === webhookIsJson.id ? { ...c, unjudgeable: () => undefined } : c,
    );
    assert.deepEqual(await passedUnjudged(weakened, families), [
      'WEBHOOK-JSON: PASSED on no delivery',
      'WEBHOOK-JSON: PASSED on a GET, no POSTed body',
    ]);
  });
});
