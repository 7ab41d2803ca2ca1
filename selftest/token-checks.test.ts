/**
 * The token family's judges (src/checks/token.ts), called directly: for each check the input that
 * conforms, each input that breaks it, and the edges that decide the verdict, with the finding's
 * expected and actual text. The fault matrix proves the same checks through a whole run; these prove
 * them in process, where a mutation run sees them.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DEFAULT_RUN_SHAPE } from '../src/checks/family.ts';
import {
  MAX_TOKEN_BYTES,
  RENEWAL_INTERVAL_SECONDS,
  TOKEN_LIFE_WITHDRAWALS,
  TOKEN_REUSE_WITHDRAWALS,
  refusedBeforeRenewal,
  sendableInHeader,
  statedLifetime,
  tokenFamily,
  tokenFate,
  tokenInField,
  tokenIssued,
  tokenLifetime,
  tokenReusable,
  tokenSize,
  tokenSurvivesNewer,
  tokenUsable,
} from '../src/checks/token.ts';
import { loadSpec } from '../src/spec/spec.ts';
import { answered } from './support/exchanges.ts';

const tokenAnswer = (body: string) => answered(200, body, 'application/json', 'createToken');
const inField = (body: string, field = 'access_token') => ({ exchange: tokenAnswer(body), field });

describe('the token family: what each check is', () => {
  it('names its clause, its level and what it needs (§4.1, §5.1–§5.3)', () => {
    assert.deepEqual(
      tokenFamily.checks(loadSpec()).map(({ id, clause, level, needs }) => ({ id, clause, level, needs })),
      [
        { id: 'TOKEN-ISSUED', clause: '§4.1, §5.1', level: 'must', needs: [] },
        { id: 'TOKEN-FIELD', clause: '§4.1, §2.3 (not shown)', level: 'must', needs: [] },
        { id: 'TOKEN-USABLE', clause: '§5.2', level: 'must', needs: [] },
        { id: 'TOKEN-SIZE', clause: '§5.2 (not shown)', level: 'should', needs: [] },
        { id: 'TOKEN-LIFETIME-COVERS-RENEWAL', clause: '§5.3, §8, §5 (not shown)', level: 'should', needs: [] },
        { id: 'TOKEN-REUSE', clause: '§5.3, §5.2', level: 'must', needs: ['provider', 'payout'] },
        { id: 'TOKEN-SURVIVES-NEWER-TOKEN', clause: '§5.3, §5 (not shown)', level: 'should', needs: ['provider', 'payout'] },
      ],
    ); // prettier-ignore
  });

  it('sends three withdrawals for reuse and three for the token life, one more when the lifetime is probed', () => {
    assert.equal(TOKEN_REUSE_WITHDRAWALS, 3);
    assert.equal(TOKEN_LIFE_WITHDRAWALS, 3);
    assert.equal(tokenFamily.withdrawals(loadSpec(), DEFAULT_RUN_SHAPE), 6);
    assert.equal(tokenFamily.withdrawals(loadSpec(), { ...DEFAULT_RUN_SHAPE, tokenLifetimeProbe: true }), 7);
    assert.equal(tokenFamily.file, 'src/checks/token.ts');
    assert.equal(tokenFamily.name, 'token');
  });

  it('renews every 7200 s (§5.3, §8) and keeps a token under 8 KB', () => {
    assert.equal(RENEWAL_INTERVAL_SECONDS, 7200);
    assert.equal(MAX_TOKEN_BYTES, 8192);
  });
});

describe('TOKEN-ISSUED: a valid token request gets 200 (§4.1)', () => {
  it('passes 200 only', () => {
    assert.deepEqual(tokenIssued.judge(tokenAnswer('{"access_token":"t"}')), []);
    for (const status of [201, 204, 400, 401, 403, 500])
      assert.deepEqual(
        tokenIssued.judge(answered(status, '{"error":"x"}', 'application/json', 'createToken')),
        [{ verdict: 'FAILED', expected: '200 with the access token', actual: `${status} application/json {"error":"x"}` }],
        String(status),
      ); // prettier-ignore
  });
});

describe('TOKEN-FIELD: the token is a non-empty string at PIX_TOKEN_FIELD (§4.1, §2.3)', () => {
  it('passes a non-empty string at the field, at a dotted path too', () => {
    assert.deepEqual(tokenInField.judge(inField('{"access_token":"abc"}')), []);
    assert.deepEqual(tokenInField.judge(inField('{"data":{"token":" x "}}', 'data.token')), []);
  });

  it('fails an empty, blank, non-string or missing token, and names the string fields present', () => {
    const fails = (body: string, actual: string, field = 'access_token') =>
      assert.deepEqual(tokenInField.judge(inField(body, field)), [
        { verdict: 'FAILED', expected: `a non-empty string at '${field}'`, actual },
      ]);
    fails('{"access_token":""}', `200 application/json {"access_token":""} (string fields present: access_token; set PIX_TOKEN_FIELD if one of them is the token)`); // prettier-ignore
    fails('{"access_token":" \\t "}', `200 application/json {"access_token":"***(3 chars)"} (string fields present: access_token; set PIX_TOKEN_FIELD if one of them is the token)`); // prettier-ignore
    fails('{"access_token":12345}', '200 application/json {"access_token":12345}');
    fails('{"token":"abc","type":"Bearer"}', `200 application/json {"token":"***(3 chars)","type":"Bearer"} (string fields present: token, type; set PIX_TOKEN_FIELD if one of them is the token)`); // prettier-ignore
    fails('{"data":{"token":"abc"}}', '200 application/json {"data":{"token":"***(3 chars)"}}');
    fails('"abc"', '200 application/json "abc"');
  });
});

describe('TOKEN-USABLE: the token can travel in a header (§5.2)', () => {
  it('tells the characters a header value cannot carry: controls but horizontal tab, and DEL', () => {
    for (const code of [0x00, 0x01, 0x08, 0x0a, 0x0d, 0x1f, 0x7f])
      assert.equal(sendableInHeader(`ab${String.fromCharCode(code)}cd`), false, `U+${code.toString(16)}`);
    for (const code of [0x09, 0x20, 0x41, 0x7e, 0x80, 0xe9])
      assert.equal(sendableInHeader(`ab${String.fromCharCode(code)}cd`), true, `U+${code.toString(16)}`);
    assert.equal(sendableInHeader(''), true);
  });

  it('passes a visible token, and no token at all (TOKEN-FIELD judges that)', () => {
    assert.deepEqual(tokenUsable.judge(inField('{"access_token":"eyJ.a-b_c.~+/="}')), []);
    assert.deepEqual(tokenUsable.judge(inField('{"access_token":"a\\tb"}')), []);
    assert.deepEqual(tokenUsable.judge(inField('{}')), []);
  });

  it('fails a token with a line break, saying its length and the character, never the token', () => {
    assert.deepEqual(tokenUsable.judge(inField('{"access_token":"secret\\nrest"}')), [
      {
        verdict: 'FAILED',
        expected: 'a token with no control character',
        actual: 'a token of 11 characters with a control character ("\\n")',
      },
    ]);
    assert.deepEqual(tokenUsable.judge(inField('{"access_token":"ab\\u007f"}')), [
      {
        verdict: 'FAILED',
        expected: 'a token with no control character',
        actual: 'a token of 3 characters with a control character ("\u007f")',
      },
    ]);
  });
});

describe('TOKEN-SIZE: the token fits in 8 KB (§5.2, not shown)', () => {
  const sized = (token: string) => tokenSize.judge(inField(JSON.stringify({ access_token: token })));

  it('passes 8192 bytes and warns from 8193, counting bytes, not characters', () => {
    assert.deepEqual(sized('a'.repeat(8192)), []);
    assert.deepEqual(sized('a'.repeat(8193)), [
      { verdict: 'WARNING', expected: 'a token of at most 8192 bytes', actual: 'a token of 8193 bytes' },
    ]);
    assert.deepEqual(sized('é'.repeat(4097)), [
      { verdict: 'WARNING', expected: 'a token of at most 8192 bytes', actual: 'a token of 8194 bytes' },
    ]);
  });

  it('passes a missing or non-string token (TOKEN-FIELD judges that)', () => {
    assert.deepEqual(tokenSize.judge(inField('{}')), []);
    assert.deepEqual(tokenSize.judge(inField('{"access_token":12345}')), []);
  });
});

describe('TOKEN-LIFETIME-COVERS-RENEWAL: a stated lifetime lasts the renewal interval (§5.3, §8)', () => {
  const lifetime = (body: string) => tokenLifetime.judge(tokenAnswer(body));
  const short = (seconds: number) => ({
    verdict: 'WARNING',
    expected: 'a token valid for at least 7200 s, or no stated lifetime',
    actual: `the response says the token expires in ${seconds} s`,
  });

  it('passes 7200 s and more, or no stated lifetime; warns below', () => {
    assert.deepEqual(lifetime('{"expires_in":7200}'), []);
    assert.deepEqual(lifetime('{"expires_in":86400}'), []);
    assert.deepEqual(lifetime('{"access_token":"t"}'), []);
    assert.deepEqual(lifetime('{"expires_in":7199}'), [short(7199)]);
    assert.deepEqual(lifetime('{"expires_in":0}'), [short(0)]);
  });

  it('reads expires_in and expiresIn in any case, at the top level or one object down, and nothing else', () => {
    for (const name of ['expires_in', 'expiresIn', 'EXPIRES_IN', 'expiresin'])
      assert.deepEqual(lifetime(`{"${name}":60}`), [short(60)], name);
    assert.deepEqual(lifetime('{"data":{"expires_in":60}}'), [short(60)]);
    for (const body of [
      '{"token_expires_in":60}',
      '{"expires_in_ms":60}',
      '{"expires__in":60}',
      '{"data":{"inner":{"expires_in":60}}}',
      '[{"expires_in":60}]',
      '{"data":[{"expires_in":60}]}',
    ])
      assert.deepEqual(lifetime(body), [], body);
  });

  it('reads a number or a numeric string; a blank, non-numeric or infinite one states nothing', () => {
    assert.deepEqual(lifetime('{"expires_in":"60"}'), [short(60)]);
    assert.deepEqual(lifetime('{"expires_in":" 60 "}'), [short(60)]);
    for (const value of ['""', '"  "', '"soon"', '"Infinity"', '"-Infinity"', 'null', 'true', 'false', '[]'])
      assert.deepEqual(lifetime(`{"expires_in":${value}}`), [], value);
  });

  it('warns for each short lifetime it states; statedLifetime is the shortest', () => {
    const body = '{"expires_in":3600,"data":{"expiresIn":60}}';
    assert.deepEqual(lifetime(body), [short(3600), short(60)]);
    assert.equal(statedLifetime(tokenAnswer(body)), 60);
    assert.equal(statedLifetime(tokenAnswer('{"expires_in":"90000","data":{"expires_in":100000}}')), 90000);
    assert.equal(statedLifetime(tokenAnswer('{"access_token":"t"}')), undefined);
    assert.equal(statedLifetime(tokenAnswer('{"expires_in":"soon","data":{"expires_in":60,"inner":{"ttl":1}}}')), 60, 'nothing else counts'); // prettier-ignore
    assert.equal(statedLifetime(answered(200, 'not json', 'text/plain', 'createToken')), undefined);
  });

  it('judges a measured lifetime: a token refused before 7200 s warns, saying what was stated', () => {
    const refused = (ageSeconds: number, stated: string) => [
      {
        verdict: 'WARNING',
        expected: 'a token accepted until the 7200-second renewal interval',
        actual: `a token kept apart and used once was refused at ${ageSeconds} s (${stated})`,
      },
    ];
    assert.deepEqual(tokenLifetime.judge({ ageSeconds: 7199, statedSeconds: 3600 }), refused(7199, 'expires_in 3600'));
    assert.deepEqual(tokenLifetime.judge({ ageSeconds: 10, statedSeconds: undefined }), refused(10, 'no stated lifetime'));
    assert.deepEqual(tokenLifetime.judge({ ageSeconds: 7200, statedSeconds: 60 }), []);
    assert.deepEqual(refusedBeforeRenewal({ ageSeconds: 9000, statedSeconds: undefined }), []);
    assert.deepEqual(refusedBeforeRenewal({ ageSeconds: 0, statedSeconds: 0 }), refused(0, 'expires_in 0'));
  }); // prettier-ignore
});

describe("a token's fate, read against a forged token's answer and a fresh one's", () => {
  it('is accepted as the fresh token was, refused as the forged one was, else unclear', () => {
    const reading = { forged: [401, 403], fresh: 200 };
    assert.equal(tokenFate(200, reading), 'accepted');
    assert.equal(tokenFate(401, reading), 'refused');
    assert.equal(tokenFate(403, reading), 'refused');
    assert.equal(tokenFate(400, reading), 'unclear');
    assert.equal(tokenFate(500, reading), 'unclear');
  });

  it('reads nothing when the fresh token was refused as a forged one', () => {
    assert.equal(tokenFate(401, { forged: [401], fresh: 401 }), 'fresh-refused');
    assert.equal(tokenFate(200, { forged: [403, 401], fresh: 401 }), 'fresh-refused');
    assert.equal(tokenFate(400, { forged: [401], fresh: 400 }), 'accepted');
  });
});

describe('TOKEN-SURVIVES-NEWER-TOKEN: an earlier token outlives a newer one (§5.3, not shown)', () => {
  it('passes an accepted first token and warns a refused one, with its answer', () => {
    const answer = answered(401, '{"error":"revoked"}');
    assert.deepEqual(tokenSurvivesNewer.judge({ fate: 'accepted', answer }), []);
    assert.deepEqual(tokenSurvivesNewer.judge({ fate: 'refused', answer }), [
      {
        verdict: 'WARNING',
        expected: 'the first token still accepted after a second was issued',
        actual:
          'refused once a newer token was issued: 401 application/json {"error":"revoked"}; several instances or CI shards of one client would revoke each other\'s tokens',
      },
    ]);
  });
});

describe('TOKEN-REUSE: one token serves every withdrawal until renewal (§5.3, §5.2)', () => {
  it('passes when every withdrawal got 200, and fails each other one by its place', () => {
    assert.deepEqual(tokenReusable.judge([answered(200), answered(200), answered(200)]), []);
    assert.deepEqual(tokenReusable.judge([]), []);
    assert.deepEqual(tokenReusable.judge([answered(200), answered(401, '{"e":1}'), answered(201)]), [
      {
        verdict: 'FAILED',
        expected: 'withdrawal 2 of 3 with the same token accepted (200)',
        actual: '401 application/json {"e":1}',
      },
      {
        verdict: 'FAILED',
        expected: 'withdrawal 3 of 3 with the same token accepted (200)',
        actual: '201 application/json {}',
      },
    ]);
  });
});
