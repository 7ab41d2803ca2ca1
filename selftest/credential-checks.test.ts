/**
 * The request-header families' judges, called directly: the credential checks generated from the
 * spec (src/checks/credentials.ts) with the refusal rule each variant is held to and the wrong
 * values it sends, the Accept checks (accept.ts) and the transport check (connection.ts).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  ACCEPT_NOTE,
  NOT_ACCEPTABLE,
  acceptFamily,
  applyPlainHeaderCase,
  plainHeaderCases,
} from '../src/checks/accept.ts';
import { verdictOf } from '../src/checks/check.ts';
import { DEFAULT_RUN_SHAPE } from '../src/checks/family.ts';
import {
  REFUSAL_NOTE,
  applyCredentialCase,
  credentialCases,
  credentialsFamily,
  forgeToken,
  type CredentialCase,
} from '../src/checks/credentials.ts';
import { transportEncrypted, transportFamily } from '../src/checks/connection.ts';
import { loadSpec, type OperationId } from '../src/spec/spec.ts';
import { Inventor } from '../src/spec/invent.ts';
import { answered } from './support/exchanges.ts';

const spec = loadSpec();
const invent = (): Inventor => Inventor.forTest(11, ['credential-checks']);
const caseOf = (operation: OperationId, id: string): CredentialCase => {
  const found = credentialCases(spec, operation).find((c) => c.check.id === id);
  assert.ok(found !== undefined, id);
  return found;
};

describe('the credential checks generated from the spec (§4.1, §4.2, §5.2, §5.4)', () => {
  it('one per credential header and way of being wrong, with its clause and what it needs', () => {
    const table = (operation: OperationId) =>
      credentialCases(spec, operation).map((c) => [c.check.id, c.check.clause, c.check.level, c.check.needs.join(','), c.variant, c.credential.header]);
    assert.deepEqual(table('createToken'), [
      ['TOKEN-REFUSE-MISSING-CLIENT-ID', '§4.1, §5.4', 'must', '', 'missing', 'client_id'],
      ['TOKEN-REFUSE-WRONG-CLIENT-ID', '§4.1, §5.4', 'must', 'provider', 'wrong', 'client_id'],
      ['TOKEN-REFUSE-MISSING-CERT-CLIENT', '§4.1, §5.4', 'must', '', 'missing', 'cert_client'],
      ['TOKEN-REFUSE-WRONG-CERT-CLIENT', '§4.1, §5.4', 'must', 'provider', 'wrong', 'cert_client'],
      ['TOKEN-REFUSE-MALFORMED-CERT-CLIENT', '§4.1, §5.4', 'must', 'provider', 'malformed', 'cert_client'],
    ]);
    assert.deepEqual(table('createWithdraw'), [
      ['PAYMENT-REFUSE-MISSING-CLIENT-ID', '§4.2, §5.4', 'must', 'payout', 'missing', 'client_id'],
      ['PAYMENT-REFUSE-WRONG-CLIENT-ID', '§4.2, §5.4', 'must', 'provider,payout', 'wrong', 'client_id'],
      ['PAYMENT-REFUSE-MISSING-CLIENT-SECRET', '§4.2, §5.4', 'must', 'payout', 'missing', 'client_secret'],
      ['PAYMENT-REFUSE-WRONG-CLIENT-SECRET', '§4.2, §5.4', 'must', 'provider,payout', 'wrong', 'client_secret'],
      ['PAYMENT-REFUSE-MISSING-AUTHORIZATION', '§4.2, §5.2', 'must', 'payout', 'missing', 'Authorization'],
      ['PAYMENT-REFUSE-NOT-BEARER-AUTHORIZATION', '§4.2, §5.2', 'must', 'payout', 'not-bearer', 'Authorization'],
      ['PAYMENT-REFUSE-FORGED-AUTHORIZATION', '§4.2, §5.2', 'must', 'provider,payout', 'forged', 'Authorization'],
      ['PAYMENT-REFUSE-RANDOM-AUTHORIZATION', '§4.2, §5.2', 'must', 'provider,payout', 'random', 'Authorization'],
    ]);
  }); // prettier-ignore

  it('titles each check as the test that judges it reads: the operation, the header and how it is wrong', () => {
    const titles = (operation: OperationId) => Object.fromEntries([...credentialCases(spec, operation), ...plainHeaderCases(spec, operation)].map((c) => [c.check.id, c.check.title]));
    assert.deepEqual(titles('createToken'), {
      'TOKEN-REFUSE-MISSING-CLIENT-ID': 'Refuses a token request without client_id',
      'TOKEN-REFUSE-WRONG-CLIENT-ID': 'Refuses a token request with a wrong client_id, or a near miss of it',
      'TOKEN-REFUSE-MISSING-CERT-CLIENT': 'Refuses a token request without cert_client',
      'TOKEN-REFUSE-WRONG-CERT-CLIENT': "Refuses a token request with a cert_client that is valid base64 but not the client's, or a near miss of it",
      'TOKEN-REFUSE-MALFORMED-CERT-CLIENT': 'Refuses a token request with a cert_client that is not base64',
      'TOKEN-ACCEPT-MISSING': 'Handles a token request without Accept without a server error',
      'TOKEN-ACCEPT-NOT-JSON': 'Handles a token request with Accept: text/plain without a server error',
    });
    assert.deepEqual(titles('createWithdraw'), {
      'PAYMENT-REFUSE-MISSING-CLIENT-ID': 'Refuses a withdrawal without client_id',
      'PAYMENT-REFUSE-WRONG-CLIENT-ID': 'Refuses a withdrawal with a wrong client_id, or a near miss of it',
      'PAYMENT-REFUSE-MISSING-CLIENT-SECRET': 'Refuses a withdrawal without client_secret',
      'PAYMENT-REFUSE-WRONG-CLIENT-SECRET': 'Refuses a withdrawal with a wrong client_secret, or a near miss of it',
      'PAYMENT-REFUSE-MISSING-AUTHORIZATION': 'Refuses a withdrawal without Authorization',
      'PAYMENT-REFUSE-NOT-BEARER-AUTHORIZATION': 'Refuses a withdrawal with the token under a scheme other than Bearer',
      'PAYMENT-REFUSE-FORGED-AUTHORIZATION': 'Refuses a withdrawal with a forged bearer token (the real one altered), or a near miss of it',
      'PAYMENT-REFUSE-RANDOM-AUTHORIZATION': 'Refuses a withdrawal with a random bearer token',
      'PAYMENT-ACCEPT-MISSING': 'Handles a withdrawal without accept without a server error',
      'PAYMENT-ACCEPT-NOT-JSON': 'Handles a withdrawal with accept: text/plain without a server error',
    });
  }); // prettier-ignore

  it('holds each variant to its row of the refusal table: 403 for a key missing or wrong (§5.4), 401 or 403 for a token', () => {
    const bands = (c: CredentialCase) =>
      [200, 400, 401, 403, 500].map((status) => verdictOf(c.check.judge([{ exchange: answered(status) }])));
    for (const c of [...credentialCases(spec, 'createToken'), ...credentialCases(spec, 'createWithdraw')]) {
      const expected =
        c.credential.kind === 'token'
          ? ['FAILED', 'WARNING', 'PASSED', 'PASSED', 'FAILED']
          : c.variant === 'malformed'
            ? ['FAILED', 'PASSED', 'WARNING', 'PASSED', 'FAILED']
            : ['FAILED', 'WARNING', 'WARNING', 'PASSED', 'FAILED'];
      assert.deepEqual(bands(c), expected, c.check.id);
    }
  });

  it("names the rule it broke: missing and wrong keys apart, a token's own", () => {
    const expectedOf = (operation: OperationId, id: string) => caseOf(operation, id).check.judge([{ exchange: answered(200) }])[0]?.expected;
    assert.equal(expectedOf('createToken', 'TOKEN-REFUSE-MISSING-CLIENT-ID'), 'refused with 403 (credential header missing)');
    assert.equal(expectedOf('createToken', 'TOKEN-REFUSE-WRONG-CERT-CLIENT'), 'refused with 403 (credential well-formed but wrong)');
    assert.equal(expectedOf('createToken', 'TOKEN-REFUSE-MALFORMED-CERT-CLIENT'), 'refused with 400 or 403 (credential malformed)');
    assert.equal(expectedOf('createWithdraw', 'PAYMENT-REFUSE-MISSING-AUTHORIZATION'), 'refused with 401 or 403 (bearer token missing, not Bearer, forged or random)');
    assert.equal(expectedOf('createWithdraw', 'PAYMENT-REFUSE-WRONG-CLIENT-SECRET'), 'refused with 403 (credential well-formed but wrong)');
  }); // prettier-ignore

  it('makes a family of both operations whose withdrawals are the payment cases', () => {
    assert.equal(credentialsFamily.name, 'credentials');
    assert.equal(credentialsFamily.file, 'src/checks/credentials.ts');
    assert.equal(credentialsFamily.checks(spec).length, 13);
    // 8 cases, three of them with near misses: client_id and client_secret 6 each (4 edits, 2 spaces), the forged token 4.
    assert.equal(credentialsFamily.withdrawals(spec, DEFAULT_RUN_SHAPE), 24);
    assert.equal(REFUSAL_NOTE, 'the status the environment refused the request with');
  });
});

describe('the wrong credentials sent', () => {
  const headers = { client_id: 'client-0001', client_secret: 'secret-abc', Authorization: 'Bearer real' };

  it('leaves out a missing header whatever its case, and keeps the others', () => {
    assert.deepEqual(
      applyCredentialCase({ CLIENT_ID: 'c', accept: 'application/json' }, caseOf('createWithdraw', 'PAYMENT-REFUSE-MISSING-CLIENT-ID'), 't', invent()),
      { accept: 'application/json' },
    ); // prettier-ignore
  });

  it('sends a value that is not base64 for a malformed certificate', () => {
    const sent = applyCredentialCase({ cert_client: 'QUJD' }, caseOf('createToken', 'TOKEN-REFUSE-MALFORMED-CERT-CLIENT'), undefined, invent()); // prettier-ignore
    assert.deepEqual(sent, { cert_client: 'this is not base64!' });
  });

  it('sends the real token under another scheme, or none when there is none', () => {
    const notBearer = caseOf('createWithdraw', 'PAYMENT-REFUSE-NOT-BEARER-AUTHORIZATION');
    assert.equal(applyCredentialCase(headers, notBearer, 'tok-1', invent()).Authorization, 'Token tok-1');
    assert.equal(applyCredentialCase(headers, notBearer, undefined, invent()).Authorization, 'Token ');
  });

  it('sends a forged token of the real one’s length and a random one of 48 hex digits, as Bearer', () => {
    const forged = applyCredentialCase(headers, caseOf('createWithdraw', 'PAYMENT-REFUSE-FORGED-AUTHORIZATION'), 'abcdefghijkl', invent()).Authorization; // prettier-ignore
    assert.match(forged ?? '', /^Bearer [A-Za-z0-9]{12}$/);
    assert.notEqual(forged, 'Bearer abcdefghijkl');
    assert.equal(applyCredentialCase(headers, caseOf('createWithdraw', 'PAYMENT-REFUSE-FORGED-AUTHORIZATION'), undefined, invent()).Authorization, 'Bearer x'); // prettier-ignore
    const random = applyCredentialCase(headers, caseOf('createWithdraw', 'PAYMENT-REFUSE-RANDOM-AUTHORIZATION'), 'tok', invent()); // prettier-ignore
    assert.match(random.Authorization ?? '', /^Bearer [0-9a-f]{48}$/);
    assert.equal(random.client_id, 'client-0001');
  });

  it('replaces a wrong value whatever the header’s case, and invents one when there was none', () => {
    const wrongId = caseOf('createWithdraw', 'PAYMENT-REFUSE-WRONG-CLIENT-ID');
    const sent = applyCredentialCase({ accept: 'application/json', Client_Id: 'abc-123' }, wrongId, undefined, invent()); // prettier-ignore
    assert.deepEqual(Object.keys(sent), ['accept', 'client_id']);
    assert.match(sent.client_id ?? '', /^[0-9a-f]{3}-[0-9a-f]{3}$/, 'hex stays hex, the dash kept');
    assert.notEqual(sent.client_id, 'abc-123');
    assert.equal(applyCredentialCase({}, wrongId, undefined, invent()).client_id, 'x');
  });

  it('makes a wrong certificate that is not a PEM from the whole base64 alphabet, padding kept', () => {
    const long = 'QUJD'.repeat(50);
    const drawn = applyCredentialCase({ cert_client: long }, caseOf('createToken', 'TOKEN-REFUSE-WRONG-CERT-CLIENT'), undefined, invent()).cert_client ?? ''; // prettier-ignore
    assert.match(drawn, /[IOl+/]/, 'base64 letters a plain lookalike never draws');
    assert.match(drawn, /^[A-Za-z0-9+/]{200}$/);
    const real = 'QUJD+/xyz0==';
    const other = applyCredentialCase({ cert_client: real }, caseOf('createToken', 'TOKEN-REFUSE-WRONG-CERT-CLIENT'), undefined, invent()).cert_client ?? ''; // prettier-ignore
    assert.match(other, /^[A-Za-z0-9+/]{10}==$/);
    assert.notEqual(other, real);
  });

  it('keeps a PEM certificate’s armour and CRLF line ends', () => {
    const pem = `-----BEGIN PUBLIC KEY-----\r\n${'A'.repeat(64)}\r\n${'B'.repeat(10)}=\r\n-----END PUBLIC KEY-----\r\n`;
    const other = applyCredentialCase({ cert_client: Buffer.from(pem).toString('base64') }, caseOf('createToken', 'TOKEN-REFUSE-WRONG-CERT-CLIENT'), undefined, invent()).cert_client ?? ''; // prettier-ignore
    const decoded = Buffer.from(other, 'base64').toString('latin1');
    assert.match(decoded, /^-----BEGIN PUBLIC KEY-----\r\n[A-Za-z0-9+/]{64}\r\n[A-Za-z0-9+/]{10}=\r\n-----END PUBLIC KEY-----\r\n$/); // prettier-ignore
    const [, first, second] = decoded.split('\r\n');
    assert.ok(
      first !== 'A'.repeat(64) && second !== `${'B'.repeat(10)}=`,
      'every line of the key is another',
    );
  });

  it('reads as a PEM only a whole one: with text before or after it, the whole value is redrawn, its length kept', () => {
    const wrongCert = caseOf('createToken', 'TOKEN-REFUSE-WRONG-CERT-CLIENT');
    const pem = `-----BEGIN PUBLIC KEY-----\n${'A'.repeat(16)}\n-----END PUBLIC KEY-----\n`;
    for (const text of [`note\n${pem}`, `${pem}note`]) {
      const real = Buffer.from(text).toString('base64');
      const other =
        applyCredentialCase({ cert_client: real }, wrongCert, undefined, invent()).cert_client ?? '';
      assert.equal(other.length, real.length, text);
      assert.doesNotMatch(
        Buffer.from(other, 'base64').toString('latin1'),
        /-----BEGIN PUBLIC KEY-----/,
        text,
      );
    }
  });

  it('keeps the bytes of a PEM that are not base64 as they were, one byte each', () => {
    const pem = Buffer.from('-----BEGIN PUBLIC KEY-----\nAB\u00e9CD\n-----END PUBLIC KEY-----\n', 'latin1');
    const other = applyCredentialCase({ cert_client: pem.toString('base64') }, caseOf('createToken', 'TOKEN-REFUSE-WRONG-CERT-CLIENT'), undefined, invent()).cert_client ?? ''; // prettier-ignore
    const decoded = Buffer.from(other, 'base64');
    assert.equal(decoded.length, pem.length);
    assert.equal(decoded[29], 0xe9);
  });

  it('reads a PEM that ends without a line break', () => {
    const pem = `-----BEGIN CERTIFICATE-----\n${'C'.repeat(16)}\n-----END CERTIFICATE-----`;
    const other = applyCredentialCase({ cert_client: Buffer.from(pem).toString('base64') }, caseOf('createToken', 'TOKEN-REFUSE-WRONG-CERT-CLIENT'), undefined, invent()).cert_client ?? ''; // prettier-ignore
    assert.match(Buffer.from(other, 'base64').toString('latin1'), /^-----BEGIN CERTIFICATE-----\n[A-Za-z0-9+/]{16}\n-----END CERTIFICATE-----$/); // prettier-ignore
  });
});

describe('a forged token', () => {
  it('alters only the signature of a JWT', () => {
    const forged = forgeToken('aaaa.bbbb.cccc', invent());
    assert.match(forged, /^aaaa\.bbbb\.[A-Za-z0-9]{4}$/);
    assert.notEqual(forged, 'aaaa.bbbb.cccc');
  });

  it('alters every part of a token that is no JWT, keeping its punctuation', () => {
    for (const token of ['aaaa.bbbb', 'aaaa.bbbb.cccc.dddd', 'opaque_token-0001']) {
      const forged = forgeToken(token, invent());
      assert.equal(forged.replace(/[A-Za-z0-9]/g, '*'), token.replace(/[A-Za-z0-9]/g, '*'), token);
      for (const part of token.split(/[._-]/)) assert.ok(!forged.includes(part), `${token}: ${forged}`);
    }
  });

  it('keeps a hex token hex, its dots and dashes too, and draws any other from letters and digits', () => {
    assert.match(forgeToken('0123456789abcdef0123', invent()), /^[0-9a-f]{20}$/);
    assert.match(forgeToken('dead-beef.0123', invent()), /^[0-9a-f]{4}-[0-9a-f]{4}\.[0-9a-f]{4}$/);
    for (const token of ['ZZZZZZZZZZZZZZZZ0123', '0123ZZZZZZZZZZZZZZZZ', 'ABCDEFGHJKLMNPQRSTUV']) {
      const forged = forgeToken(token, invent());
      assert.match(forged, /^[A-Za-z0-9]{20}$/, token);
      assert.match(forged, /[g-zA-Z]/, `${token}: not hex`);
    }
  });

  it('replaces every letter, digit, + and /, and keeps every other character', () => {
    const forged = forgeToken('AAAA+/zzzz9999_~', invent());
    assert.equal(forged.slice(-2), '_~');
    for (const [i, c] of Array.from('AAAA+/zzzz9999').entries())
      assert.notEqual(forged[i], c, `${i}: ${forged}`);
  });

  it('is never the real token: an empty one becomes x', () => {
    assert.equal(forgeToken('', invent()), 'x');
  });
});

describe('the Accept checks (§4.1, §4.2): tolerance and refusal both pass, a server error fails', () => {
  it('one per operation for the header left out and one for text/plain', () => {
    const table = (operation: OperationId) =>
      plainHeaderCases(spec, operation).map((c) => [c.check.id, c.check.clause, c.check.level, c.check.needs.join(','), c.header, c.value]);
    assert.deepEqual(table('createToken'), [
      ['TOKEN-ACCEPT-MISSING', '§4.1', 'must', '', 'Accept', undefined],
      ['TOKEN-ACCEPT-NOT-JSON', '§4.1', 'must', '', 'Accept', 'text/plain'],
    ]);
    assert.deepEqual(table('createWithdraw'), [
      ['PAYMENT-ACCEPT-MISSING', '§4.2', 'must', 'payout', 'accept', undefined],
      ['PAYMENT-ACCEPT-NOT-JSON', '§4.2', 'must', 'payout', 'accept', 'text/plain'],
    ]);
    assert.equal(acceptFamily.withdrawals(spec, DEFAULT_RUN_SHAPE), 2);
    assert.deepEqual(acceptFamily.checks(spec).map((c) => c.id), ['TOKEN-ACCEPT-MISSING', 'TOKEN-ACCEPT-NOT-JSON', 'PAYMENT-ACCEPT-MISSING', 'PAYMENT-ACCEPT-NOT-JSON']);
    assert.equal(acceptFamily.name, 'Accept handling');
  }); // prettier-ignore

  it('passes anything below 500 and fails a 5xx with the answer', () => {
    assert.equal(NOT_ACCEPTABLE, 406);
    assert.equal(ACCEPT_NOTE, 'the status answered: 406 (refused) or 2xx (tolerated) are both allowed');
    for (const c of plainHeaderCases(spec, 'createWithdraw')) {
      for (const status of [200, 400, 406, 415, 499]) assert.deepEqual(c.check.judge(answered(status)), [], `${status}`);
      for (const status of [500, 503])
        assert.deepEqual(c.check.judge(answered(status, '{"e":1}')), [
          { verdict: 'FAILED', expected: 'served or refused, not a server error', actual: `${status} application/json {"e":1}` },
        ]);
    }
  }); // prettier-ignore

  it('leaves the header out whatever its case, or sets it to text/plain', () => {
    const [missing, notJson] = plainHeaderCases(spec, 'createToken');
    assert.ok(missing !== undefined && notJson !== undefined);
    assert.deepEqual(applyPlainHeaderCase({ accept: 'application/json', client_id: 'c' }, missing), { client_id: 'c' });
    assert.deepEqual(applyPlainHeaderCase({ accept: 'application/json', client_id: 'c' }, notJson), { client_id: 'c', Accept: 'text/plain' });
  }); // prettier-ignore
});

describe('TRANSPORT-ENCRYPTED: credentials over https or on this machine (§2.2, not shown)', () => {
  it('passes https anywhere and http to a loopback address', () => {
    for (const baseUrl of ['https://pix.example.com', 'https://10.0.0.1:8443/api', 'http://127.0.0.1:4020', 'http://localhost', 'http://[::1]:80'])
      assert.deepEqual(transportEncrypted.judge({ baseUrl }), [], baseUrl);
  }); // prettier-ignore

  it('warns of plain http elsewhere, naming only scheme and host', () => {
    assert.deepEqual(transportEncrypted.judge({ baseUrl: 'http://pix.example.com:8080/v1?x=1' }), [
      { verdict: 'WARNING', expected: 'an https:// base address', actual: 'http://pix.example.com:8080 (allowed by PIX_ALLOW_INSECURE=1)' },
    ]); // prettier-ignore
    assert.equal(verdictOf(transportEncrypted.judge({ baseUrl: 'http://128.0.0.1' })), 'WARNING');
  });

  it('is a should check of its own family, which sends no withdrawal', () => {
    assert.deepEqual([transportEncrypted.id, transportEncrypted.clause, transportEncrypted.level], ['TRANSPORT-ENCRYPTED', '§2.2 (not shown)', 'should']); // prettier-ignore
    assert.deepEqual(transportFamily.checks(spec), [transportEncrypted]);
    assert.equal(transportFamily.withdrawals(spec, DEFAULT_RUN_SHAPE), 0);
    assert.equal(transportFamily.file, 'src/checks/connection.ts');
    assert.equal(transportFamily.name, 'transport');
  });
});
