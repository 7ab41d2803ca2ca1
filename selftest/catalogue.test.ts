/**
 * What holds the checks together, in process: the catalogue as the union of the families, how a
 * test declares the checks it judges (src/checks/declare.ts), the ids generated checks are named
 * with (operation-names.ts), and the names tests and reporters hand results through (vocabulary.ts).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FAMILIES, catalogue, clientChecks } from '../src/checks/catalogue.ts';
import { clientUnknownOutcome } from '../src/checks/client-requests.ts';
import { declaredChecks, judging, titleOf } from '../src/checks/declare.ts';
import { needsFor, slug } from '../src/checks/operation-names.ts';
import { responseComplete } from '../src/checks/responses.ts';
import { tokenIssued, tokenReusable } from '../src/checks/token.ts';
import {
  CHECKS_ANNOTATION,
  EVALUATIONS_ATTACHMENT,
  OBSERVATIONS_ATTACHMENT,
} from '../src/checks/vocabulary.ts';
import { loadSpec } from '../src/spec/spec.ts';

const ANSWER_IDS =
  'RESPONSE-STATUS-DOCUMENTED RESPONSE-JSON RESPONSE-SCHEMA RESPONSE-COMPLETE RESPONSE-ERROR-NO-INTERNALS';

describe('the catalogue', () => {
  it('is every family, in the order docs/checks.md lists them', () => {
    assert.deepEqual(
      FAMILIES.map((f) => f.name),
      ['token', 'credentials', 'Accept handling', 'request bodies', 'silent values', 'check_code', 'every response', 'error bodies', 'webhook', 'transport'], // prettier-ignore
    );
  });

  it("holds each family's checks once, as definitions without their judge", () => {
    const spec = loadSpec();
    const all = catalogue('provider');
    assert.deepEqual(
      all.map((c) => c.id),
      FAMILIES.flatMap((f) => f.checks(spec).map((c) => c.id)),
    );
    assert.equal(new Set(all.map((c) => c.id)).size, all.length, 'ids are unique');
    assert.deepEqual(all[0], {
      id: tokenIssued.id,
      title: tokenIssued.title,
      clause: tokenIssued.clause,
      level: tokenIssued.level,
      reason: tokenIssued.reason,
      remedy: tokenIssued.remedy,
      needs: tokenIssued.needs,
    });
    assert.equal(catalogue('provider'), all, 'built once');
  });

  it("holds the integrator's side as families of the same catalogue: the client's checks, then its handler's", () => {
    const client = catalogue('client');
    assert.deepEqual(
      client.map((c) => c.id),
      clientChecks('client').map((c) => c.id),
    );
    assert.ok(
      client.every((c) => /^(CLIENT|HANDLER)-/.test(c.id)),
      'no provider check judges a journal',
    );
    assert.deepEqual(
      clientChecks('handler').map((c) => c.id),
      client.filter((c) => c.id.startsWith('HANDLER-')).map((c) => c.id),
    );
    const unknownOutcome = client.find((c) => c.id === clientUnknownOutcome.id);
    assert.ok(unknownOutcome);
    assert.equal(unknownOutcome.money, 'a double payout', 'a definition keeps what a finding can cost');
    assert.equal('judge' in unknownOutcome, false, 'definitions, without their judge');
  });
});

describe('a test declares the checks it judges (declare.ts)', () => {
  it('lists its checks and those every response is held to, once each, and keeps its tags', () => {
    assert.deepEqual(judging({ checks: [tokenIssued, responseComplete], tags: ['@auth', '@smoke'] }), {
      tag: ['@auth', '@smoke'],
      annotation: { type: 'pix-checks', description: `TOKEN-ISSUED RESPONSE-COMPLETE ${ANSWER_IDS.replace(' RESPONSE-COMPLETE', '')}` }, // prettier-ignore
    });
    assert.deepEqual(judging({ checks: [tokenReusable], tags: ['@payout'] }).annotation, {
      type: 'pix-checks',
      description: `TOKEN-REUSE ${ANSWER_IDS}`,
    });
  });

  it('lists only its own checks when it sends no request', () => {
    assert.deepEqual(judging({ checks: [tokenIssued], tags: [], sendsRequests: false }), {
      tag: [],
      annotation: { type: 'pix-checks', description: 'TOKEN-ISSUED' },
    });
  });

  it('is read back from the annotations: the ids, none declared, or an empty declaration', () => {
    assert.deepEqual(
      declaredChecks([
        { type: 'issue', description: 'X' },
        { type: 'pix-checks', description: 'A B-C' },
      ]),
      new Set(['A', 'B-C']),
    );
    assert.equal(declaredChecks([{ type: 'issue', description: 'A' }]), undefined);
    assert.equal(declaredChecks([]), undefined);
    assert.deepEqual(declaredChecks([{ type: 'pix-checks' }]), new Set(['']));
  });

  it("titles a test as the check's title reads in a sentence, with its clause", () => {
    assert.equal(titleOf('Refuses a withdrawal without code', '§2.1 (not shown)'), 'refuses a withdrawal without code (§2.1 (not shown))'); // prettier-ignore
    assert.equal(titleOf('X', '§7'), 'x (§7)');
  });
});

describe('the names of generated checks (operation-names.ts)', () => {
  it('makes an id part of any name: upper case, one dash for each run of other characters, none at the ends', () => {
    assert.equal(slug('cert_client'), 'CERT-CLIENT');
    assert.equal(slug('key  pix'), 'KEY-PIX');
    assert.equal(slug('(PostBackUrl)'), 'POSTBACKURL');
    assert.equal(slug('-a1-'), 'A1');
  });

  it('needs a payout for every withdrawal, and a provider when the mock cannot judge', () => {
    assert.deepEqual(needsFor('createToken', false), []);
    assert.deepEqual(needsFor('createToken', true), ['provider']);
    assert.deepEqual(needsFor('createWithdraw', false), ['payout']);
    assert.deepEqual(needsFor('createWithdraw', true), ['provider', 'payout']);
  });
});

describe('the names results travel under (vocabulary.ts)', () => {
  it('keeps the attachment and annotation names that blob reports of earlier runs and shards carry', () => {
    assert.equal(EVALUATIONS_ATTACHMENT, 'pix-evaluations');
    assert.equal(OBSERVATIONS_ATTACHMENT, 'pix-observations');
    assert.equal(CHECKS_ANNOTATION, 'pix-checks');
  });
});
