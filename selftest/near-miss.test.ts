/**
 * Near-miss credentials (issue 40 item 3): the values one edit from the real one that a prefix, a
 * truncated or a case-insensitive compare takes for it, sent beside each wholly wrong credential and
 * judged with it as one finding that names the values that were not refused; for client_id and
 * client_secret, a no-break space around the real value, which a trimming compare takes (issue 53).
 */
import assert from 'node:assert/strict';
import { createPublicKey, generateKeyPairSync, X509Certificate } from 'node:crypto';
import { selfSigned } from './support/certificates.ts';
import { describe, it } from 'node:test';
import { verdictOf } from '../src/checks/check.ts';
import { credentialCases, nearMissHeaders, type CredentialCase } from '../src/checks/credentials.ts';
import {
  certificateNearMisses,
  otherPublicKey,
  plainNearMisses,
  tokenNearMisses,
  whiteSpaceNearMisses,
} from '../src/checks/near-miss.ts';
import { loadSpec, type OperationId } from '../src/spec/spec.ts';
import { registerSecret } from '../src/secrets/registry.ts';
import { redact } from '../src/secrets/redact.ts';
import { answered } from './support/exchanges.ts';

const caseOf = (operation: OperationId, id: string): CredentialCase => {
  const found = credentialCases(loadSpec(), operation).find((c) => c.check.id === id);
  assert.ok(found !== undefined, id);
  return found;
};

/** Which of two values each compare takes for the same. */
const prefix = (real: string, sent: string) => real.startsWith(sent) || sent.startsWith(real);
const truncated = (width: number) => (real: string, sent: string) =>
  real.slice(0, width) === sent.slice(0, width);
const anyCase = (real: string, sent: string) => real.toLowerCase() === sent.toLowerCase();

describe('the near misses of a value', () => {
  it('around client_id and client_secret are a no-break space before and after, which trim() and strip() remove and HTTP keeps', () => {
    const real = 'sandbox-secret-0123456789abcdef';
    const spaced = whiteSpaceNearMisses(real);
    assert.deepEqual(
      spaced.map((n) => n.variant),
      ['space-before', 'space-after'],
    );
    assert.deepEqual(
      spaced.map((n) => n.value),
      [`\u00a0${real}`, `${real}\u00a0`],
    );
    for (const { value } of spaced) {
      assert.equal(value.trim(), real);
      assert.notEqual(value, real);
      // What HTTP strips around a field value (RFC 9110 §5.5) is only space and tab.
      assert.equal(value.replace(/^[ \t]+|[ \t]+$/g, ''), value);
    }
  });

  it('are one edit at the end each, the shape kept, and the case where case can matter', () => {
    assert.deepEqual(plainNearMisses('sandbox-secret-0123456789abcdef'), [
      { variant: 'last-changed', value: 'sandbox-secret-0123456789abcdeg' },
      { variant: 'one-short', value: 'sandbox-secret-0123456789abcde' },
      { variant: 'one-more', value: 'sandbox-secret-0123456789abcdefg' },
      { variant: 'case-changed', value: 'SANDBOX-SECRET-0123456789ABCDEF' },
    ]);
    // A UUID stays hex, and hex is read either way: its first character changes instead of its case.
    assert.deepEqual(
      plainNearMisses('123e4567-e89b-12d3-a456-42661417400f').map((n) => n.value),
      ['123e4567-e89b-12d3-a456-426614174000', '123e4567-e89b-12d3-a456-42661417400', '123e4567-e89b-12d3-a456-42661417400f0', '223e4567-e89b-12d3-a456-42661417400f'],
    );
    assert.deepEqual(plainNearMisses('12345').map((n) => n.value), ['12346', '1234', '123456', '22345']);
    assert.equal(plainNearMisses('Client@Example.com').at(-1)?.variant, 'first-changed');
    assert.deepEqual(plainNearMisses(''), []);
  }); // prettier-ignore

  it('are taken for the real value by a prefix, a truncated and a case-insensitive compare, never by an exact one', () => {
    const real = 'a-client-secret-of-forty-characters-0001';
    const misses = plainNearMisses(real);
    const taken = (same: (r: string, s: string) => boolean) => misses.filter((n) => same(real, n.value)).map((n) => n.variant);
    assert.deepEqual(taken(prefix), ['one-short', 'one-more']);
    assert.deepEqual(taken(truncated(32)), ['last-changed', 'one-short', 'one-more']);
    assert.deepEqual(taken(anyCase), ['case-changed']);
    assert.deepEqual(taken((r, s) => r === s), []);
    const suffix = (r: string, s: string) => r.slice(-4) === s.slice(-4);
    assert.deepEqual(plainNearMisses('0123456789').filter((n) => suffix('0123456789', n.value)).map((n) => n.variant), ['first-changed']);
  }); // prettier-ignore

  it("edit a JWT's signature so that its decoded bytes differ, never only the padding bits", () => {
    const signature = 'c2lnbmF0dXJlLW9mLXRoZS1yZWFsLXRva2Vu';
    const jwt = `eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJjbGllbnQifQ.${signature}`;
    for (const sig of [signature, `${signature}AB`, `${signature}ABC`]) {
      for (const near of tokenNearMisses(jwt.replace(signature, sig))) {
        const [head = '', payload = '', edited = ''] = near.value.split('.');
        assert.equal(`${head}.${payload}`, 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJjbGllbnQifQ');
        assert.notDeepEqual(Buffer.from(edited, 'base64url'), Buffer.from(sig, 'base64url'), `${near.variant} of ${sig}`);
      }
    }
    assert.deepEqual(tokenNearMisses('0f'.repeat(32)).map((n) => n.variant), ['last-changed', 'one-short', 'one-more', 'first-changed']);
  }); // prettier-ignore

  it("edit cert_client inside the key material, the PEM's armour kept", () => {
    const pem = generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey.export({ type: 'spki', format: 'pem' }).toString();
    const certClient = Buffer.from(pem).toString('base64');
    const misses = certificateNearMisses(certClient);
    assert.deepEqual(misses.map((n) => n.variant), ['last-changed', 'one-short', 'one-more', 'case-changed']);
    for (const near of misses) {
      const decoded = Buffer.from(near.value, 'base64').toString('latin1');
      assert.match(decoded, /^-----BEGIN PUBLIC KEY-----\n[\s\S]+\n-----END PUBLIC KEY-----\n$/);
      assert.notEqual(decoded, pem);
    }
  }); // prettier-ignore

  it('change the key a parser reads out of cert_client, never only bytes past it, whatever its length', () => {
    for (const [type, options] of [['rsa', { modulusLength: 2048 }], ['rsa', { modulusLength: 1024 }], ['ec', { namedCurve: 'P-256' }], ['ec', { namedCurve: 'P-384' }], ['ed25519', {}]] as const) {
      const { publicKey } = generateKeyPairSync(type as 'rsa', options as { modulusLength: number });
      const der = publicKey.export({ type: 'spki', format: 'der' });
      const pem = publicKey.export({ type: 'spki', format: 'pem' });
      for (const certClient of [Buffer.from(pem).toString('base64'), der.toString('base64')]) {
        for (const near of certificateNearMisses(certClient)) {
          const bytes = Buffer.from(near.value, 'base64');
          const text = bytes.toString('latin1');
          let read: Buffer | undefined;
          try {
            read = createPublicKey(text.includes('-----BEGIN') ? text : { key: bytes, format: 'der', type: 'spki' }).export({ type: 'spki', format: 'der' });
          } catch {
            read = undefined; // refused by the parser: not taken for the key either
          }
          assert.ok(read === undefined || !read.equals(der), `${type} ${near.variant}`);
        }
      }
    }
  }); // prettier-ignore

  it('edit a certificate only by its case: its end is its signature, which a parser of the key never reads', () => {
    const { cert } = selfSigned();
    for (const certClient of [Buffer.from(cert).toString('base64'), new X509Certificate(cert).raw.toString('base64')]) {
      const misses = certificateNearMisses(certClient);
      assert.deepEqual(misses.map((n) => n.variant), ['case-changed']);
      assert.notEqual(misses[0]?.value, certClient);
    }
  }); // prettier-ignore

  it("make another real public key of the same kind, whose header's first 72 characters are the real one's", async () => {
    for (const [type, options] of [['rsa', { modulusLength: 2048 }], ['ec', { namedCurve: 'P-384' }], ['ed25519', {}]] as const) {
      const { publicKey } = generateKeyPairSync(type as 'rsa', options as { modulusLength: number });
      const pem = publicKey.export({ type: 'spki', format: 'pem' });
      const other = await otherPublicKey(Buffer.from(pem).toString('base64'));
      assert.ok(other !== undefined, type);
      const otherPem = Buffer.from(other, 'base64');
      assert.notDeepEqual(otherPem, Buffer.from(pem), type);
      const parsed = createPublicKey(otherPem.toString());
      assert.equal(parsed.asymmetricKeyType, publicKey.asymmetricKeyType);
      assert.deepEqual(parsed.asymmetricKeyDetails, publicKey.asymmetricKeyDetails);
      if (type !== 'ed25519') assert.equal(other.slice(0, 72), Buffer.from(pem).toString('base64').slice(0, 72), type);
    }
    const der = generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey.export({ type: 'spki', format: 'der' });
    const otherDer = await otherPublicKey(der.toString('base64'));
    assert.ok(otherDer !== undefined && otherDer !== der.toString('base64'));
    assert.equal(await otherPublicKey(Buffer.from('-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n').toString('base64')), undefined);
    assert.equal(await otherPublicKey('bm90IGEga2V5'), undefined);
  }); // prettier-ignore
});

describe('the cases that send near misses', () => {
  it('are the wholly wrong client_id, client_secret and cert_client and the forged token, with their requests counted', () => {
    const table = (operation: OperationId) => credentialCases(loadSpec(), operation).filter((c) => c.nearMissesBeside !== undefined).map((c) => [c.check.id, c.requests]);
    assert.deepEqual(table('createToken'), [['TOKEN-REFUSE-WRONG-CLIENT-ID', 7], ['TOKEN-REFUSE-WRONG-CERT-CLIENT', 6]]);
    assert.deepEqual(table('createWithdraw'), [
      ['PAYMENT-REFUSE-WRONG-CLIENT-ID', 7],
      ['PAYMENT-REFUSE-WRONG-CLIENT-SECRET', 7],
      ['PAYMENT-REFUSE-FORGED-AUTHORIZATION', 5],
    ]);
  }); // prettier-ignore

  it('send each near miss in the header it edits, the other headers as they were', async () => {
    const headers = { client_id: 'Client-7', client_secret: 'shh-secret', accept: 'application/json', Authorization: 'Bearer tok' };
    const sent = await nearMissHeaders(headers, caseOf('createWithdraw', 'PAYMENT-REFUSE-WRONG-CLIENT-SECRET'), 'tok');
    assert.deepEqual(sent.map((s) => s.headers.client_secret), ['shh-secreu', 'shh-secre', 'shh-secretu', 'SHH-SECRET', '\u00a0shh-secret', 'shh-secret\u00a0']);
    for (const s of sent) assert.deepEqual({ ...s.headers, client_secret: '' }, { ...headers, client_secret: '' });
    const bearer = await nearMissHeaders(headers, caseOf('createWithdraw', 'PAYMENT-REFUSE-FORGED-AUTHORIZATION'), 'tok');
    assert.deepEqual(bearer.map((s) => s.headers.Authorization), ['Bearer tol', 'Bearer to', 'Bearer tokl', 'Bearer TOK']);
    assert.deepEqual(await nearMissHeaders(headers, caseOf('createWithdraw', 'PAYMENT-REFUSE-MISSING-CLIENT-SECRET'), 'tok'), []);
    const pem = generateKeyPairSync('rsa', { modulusLength: 2048 }).publicKey.export({ type: 'spki', format: 'pem' });
    const cert = await nearMissHeaders({ cert_client: Buffer.from(pem).toString('base64') }, caseOf('createToken', 'TOKEN-REFUSE-WRONG-CERT-CLIENT'), undefined);
    assert.deepEqual(cert.map((s) => s.nearMiss), ['other-key', 'last-changed', 'one-short', 'one-more', 'case-changed']);
  }); // prettier-ignore

  it('are masked as the secret they come from, wherever an answer echoes them', async () => {
    const secret = 'near-miss-secret-0123456789abcdefXYZ';
    registerSecret(secret);
    const headers = { client_id: 'Client-7', client_secret: secret, accept: 'application/json' };
    const sent = await nearMissHeaders(
      headers,
      caseOf('createWithdraw', 'PAYMENT-REFUSE-WRONG-CLIENT-SECRET'),
      'tok',
    );
    assert.equal(sent.length, 6);
    for (const { headers: h } of sent) {
      const echoed = redact(`{"message":"client_secret ${h.client_secret ?? ''} is not valid"}`);
      assert.ok(!echoed.includes(secret.slice(0, 20)), echoed);
    }
    // client_id is no secret: its near misses stay as they are.
    const ids = await nearMissHeaders(
      headers,
      caseOf('createWithdraw', 'PAYMENT-REFUSE-WRONG-CLIENT-ID'),
      'tok',
    );
    assert.ok(redact(ids[0]?.headers.client_id ?? '').startsWith('Client-'));
  });

  it('judge the wrong value and its near misses as one finding, naming each value that was not refused', () => {
    const secret = caseOf('createWithdraw', 'PAYMENT-REFUSE-WRONG-CLIENT-SECRET');
    const refused = answered(403);
    assert.deepEqual(secret.check.judge([{ exchange: refused }, { nearMiss: 'one-short', exchange: refused }]), []);
    const found = secret.check.judge([
      { exchange: refused },
      { nearMiss: 'last-changed', exchange: refused },
      { nearMiss: 'one-short', exchange: answered(200, '{"id":"w-1"}') },
      { nearMiss: 'one-more', exchange: answered(401) },
    ]);
    assert.equal(found.length, 1);
    assert.equal(verdictOf(found), 'FAILED');
    const [finding] = found;
    assert.ok(finding !== undefined);
    assert.equal(finding.expected, 'each of 4 values refused with 403 (credential well-formed but wrong)');
    assert.match(finding.actual, /^one character short: accepted: 200 .*; one character more: 401 .*also a refusal the document lists/);
    assert.doesNotMatch(finding.actual, /last character/);
    const warned = secret.check.judge([{ exchange: answered(401) }, { nearMiss: 'case-changed', exchange: answered(401) }]);
    assert.equal(verdictOf(warned), 'WARNING');
    assert.match(warned[0]?.actual ?? '', /^the wholly wrong value: 401.*; the case changed: 401/);
    assert.equal(secret.check.unjudgeable([]), 'no request of the case was answered');
  }); // prettier-ignore

  it('warn, with the reason, when only the no-break spaces are accepted, and keep every other near miss its verdict', () => {
    const secret = caseOf('createWithdraw', 'PAYMENT-REFUSE-WRONG-CLIENT-SECRET');
    const refused = answered(403);
    const trimmed = [
      { exchange: refused },
      { nearMiss: 'one-short' as const, exchange: refused },
      { nearMiss: 'space-before' as const, exchange: answered(200, '{"id":"w-1"}') },
      { nearMiss: 'space-after' as const, exchange: answered(200, '{"id":"w-2"}') },
    ];
    const warned = secret.check.judge(trimmed);
    assert.equal(verdictOf(warned), 'WARNING');
    assert.match(
      warned[0]?.actual ?? '',
      /^a no-break space \(U\+00A0\) before it: accepted: 200 .*white space trimmed before the compare: lenient, but it takes a value that is not the registered one\); a no-break space \(U\+00A0\) after it: accepted/,
    );
    const alsoShort = secret.check.judge([
      ...trimmed.slice(0, 1),
      { nearMiss: 'one-short', exchange: answered(200) },
      ...trimmed.slice(2),
    ]);
    assert.equal(verdictOf(alsoShort), 'FAILED');
    // A server error on a spaced value is no trimming: it keeps its verdict.
    assert.equal(
      verdictOf(
        secret.check.judge([{ exchange: refused }, { nearMiss: 'space-after', exchange: answered(500) }]),
      ),
      'FAILED',
    );
    assert.deepEqual(
      secret.check.judge([{ exchange: refused }, { nearMiss: 'space-after', exchange: refused }]),
      [],
    );
  });
});
