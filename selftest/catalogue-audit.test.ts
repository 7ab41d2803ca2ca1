/**
 * Nothing PASSED unjudged: every check of the catalogue, fed through the recorder an input with
 * nothing to judge (no delivery, no answer: a 429 the environment did not process, no race, no
 * token), is SKIPPED with a reason or finds something, never PASSED. A check added without an entry
 * here fails the walk, and a check made to pass on empty input is caught (the second test).
 * Every client and handler check can fail: a fault of the example integrator is declared to trip it
 * at its level (selftest/support/integrator-faults.ts, run by the slow tier's client matrix).
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { TestInfo } from '@playwright/test';
import type { Check } from '../src/checks/check.ts';
import { CODE_ROOT } from '../src/base/paths.ts';
import { FAMILIES, catalogue } from '../src/checks/catalogue.ts';
import { webhookIsJson, type WebhookInput } from '../src/checks/webhook.ts';
import {
  CHECKS_ANNOTATION,
  EVALUATIONS_ATTACHMENT,
  type CheckDefinition,
  type Evaluation,
} from '../src/checks/vocabulary.ts';
import type { Exchange } from '../src/evidence/exchange.ts';
import { Recorder } from '../src/run/recorder.ts';
import type { Target } from '../src/run/target.ts';
import { loadSpec } from '../src/spec/spec.ts';
import { answered, delivered } from './support/exchanges.ts';
import { type Band, INTEGRATOR_FAULTS } from './support/integrator-faults.ts';

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
  'RESPONSE-ERROR-NO-INTERNALS': [
    noAnswer({ exchange: notProcessed }),
    { label: 'an answer that is no error', input: { exchange: accepted }, exchange: accepted },
  ],
  'CHECK-CODE-TRUE-REFUSES-DUPLICATE': [noAnswer({ first: notProcessed, second: notProcessed })],
  'CHECK-CODE-FALSE-ALLOWS-DUPLICATE': [noAnswer({ first: notProcessed, second: notProcessed })],
  'CHECK-CODE-TRUE-REFUSES-LATER-DUPLICATE': [
    noAnswer({ exchange: notProcessed, afterMs: 40_000, moment: 'near the end of the run' }),
  ],
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
  'WEBHOOK-RETRY-PACE': [{ label: 'no request to the address', input: { attempts: [] }, exchange: accepted }],
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

/**
 * What is wrong with the integrator faults against the client catalogue and the example's sources: a
 * check no fault trips at its level (a `must` check FAILED, a `should` one WARNING), a band naming a
 * check the catalogue does not have or a fault the example does not know, a stale exemption.
 */
function integratorFaultProblems(
  checks: readonly CheckDefinition[],
  faults: Readonly<Record<string, Band>>,
  exampleSource: string,
): string[] {
  const known = new Set(checks.map((c) => c.id));
  const bandsOf = (band: Band): Omit<Band, 'readings'>[] => [band, ...Object.values(band.readings ?? {})];
  const named = Object.entries(faults).flatMap(([fault, band]) => [
    ...(exampleSource.includes(`'${fault}'`)
      ? []
      : [`${fault}: no such INTEGRATOR_FAULT in examples/integrator/src`]),
    ...bandsOf(band)
      .flatMap(({ failed = [], warned = [] }) => [...failed, ...warned])
      .filter((id) => !known.has(id))
      .map((id) => `${fault}: ${id} is no check of the catalogue`),
  ]);
  const trippedAt = (check: CheckDefinition): boolean =>
    Object.values(faults)
      .flatMap(bandsOf)
      .some((band) => (check.level === 'must' ? band.failed : band.warned)?.includes(check.id));
  const untripped = checks
    .filter((c) => c.level !== 'observe' && !trippedAt(c))
    .map((c) => `${c.id} (${c.level}): no fault of the example integrator trips it`);
  return [...named, ...untripped];
}

describe('the integrator fault matrix, declared', () => {
  const client = catalogue('client');
  const sources = join(CODE_ROOT, 'examples', 'integrator', 'src');
  const exampleSource = readdirSync(sources)
    .map((file) => readFileSync(join(sources, file), 'utf8'))
    .join('\n');

  it('trips every client and handler check at its level, naming only checks and faults that exist', () => {
    assert.ok(client.length >= 20, `${client.length} client and handler checks`);
    assert.deepEqual(integratorFaultProblems(client, INTEGRATOR_FAULTS, exampleSource), []);
  });

  it('fails when a check has no fault, a fault names no check or no fault of the example', () => {
    const withoutValues = Object.fromEntries(
      Object.entries(INTEGRATOR_FAULTS).filter(([fault]) => fault !== 'key-type-lowercase'),
    );
    const misspelt = {
      ...withoutValues,
      'no-bearer': { failed: ['CLIENT-WITHDRAW-BEARR'] },
      'no-such-fault': {},
    };
    assert.deepEqual(integratorFaultProblems(client, misspelt, exampleSource), [
      'no-bearer: CLIENT-WITHDRAW-BEARR is no check of the catalogue',
      'no-such-fault: no such INTEGRATOR_FAULT in examples/integrator/src',
      'CLIENT-WITHDRAW-BEARER (must): no fault of the example integrator trips it',
      'CLIENT-BODY-VALUES (should): no fault of the example integrator trips it',
    ]);
    const failedShould = { ...INTEGRATOR_FAULTS, 'key-type-lowercase': { failed: ['CLIENT-BODY-VALUES'] } };
    assert.deepEqual(integratorFaultProblems(client, failedShould, exampleSource), [
      'CLIENT-BODY-VALUES (should): no fault of the example integrator trips it',
    ]);
    const renewedOnlyPlain = {
      ...INTEGRATOR_FAULTS,
      'ignore-expires-in': { failed: [] },
    };
    assert.deepEqual(integratorFaultProblems(client, renewedOnlyPlain, exampleSource), [
      'CLIENT-TOKEN-RENEWED (must): no fault of the example integrator trips it',
    ]);
  });
});
