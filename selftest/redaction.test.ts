/**
 * The one redaction path, piece by piece: the forms a secret travels in, parsed values, redaction
 * before a cut, the registry shared between processes, what the configuration and the responses
 * feed it, and the caps on what reaches a report. The whole path against a hostile provider is
 * slow/hostile.test.ts.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { loadConfig } from '../src/config/config.ts';
import { describeResponse, parseJson } from '../src/evidence/exchange.ts';
import { harvestTokens } from '../src/secrets/harvest.ts';
import { Ledger } from '../src/run/ledger.ts';
import { excerpt, redact, redactHeaders, redactJson } from '../src/secrets/redact.ts';
import { runState, shareRunState } from '../src/base/run-state.ts';
import { boundedJson, shapeOf } from '../src/evidence/shape.ts';
import { ConfigError } from '../src/config/errors.ts';
import { isRegisteredSecret, openSecretsRegistry, registerSecret } from '../src/secrets/registry.ts';
import type { JsonValue } from '../src/base/json.ts';
import { registerConfigSecrets } from '../src/config/register-secrets.ts';
import { secretRunsIn } from './support/leaks.ts';
import { inOnePass } from './support/one-pass.ts';
import { temporaryDir } from './support/temporary.ts';

const ROOT = join(import.meta.dirname, '..');
const unique = (label: string): string => `${label}-${Math.random().toString(36).slice(2, 12)}`;

/** No run of 8 characters of the secret survives, which also rules out a secret cut in two. */
const leaksPartOf = (text: string, secret: string): boolean => secretRunsIn(text, secret).length > 0;

describe('redaction', () => {
  it('masks a secret in every form it travels in', () => {
    const secret = unique('canary/secret+with=chars');
    registerSecret(secret);
    const forms = [
      secret,
      JSON.stringify(secret),
      JSON.stringify(secret).replace(/\//g, '\\/'),
      encodeURIComponent(secret),
      new URLSearchParams({ s: secret }).toString(),
      `Basic ${Buffer.from(`client-id:${secret}`).toString('base64')}`,
      ...['', 'a', 'ab'].map((p) => Buffer.from(`${p}${secret}tail`).toString('base64')),
      Buffer.from(`x${secret}`).toString('base64url'),
    ];
    for (const form of forms) {
      const out = redact(`before ${form} after`);
      assert.match(out, /\*\*\*\(\d+ chars\)/, form);
      assert.ok(!out.includes(form), form);
    }
  });

  it('masks parsed values and member names, whatever the JSON text escaped', () => {
    const token = unique('canary-token-abcdefgh');
    registerSecret(token, 'token');
    const escaped = `{"${token.replace('c', '\\u0063')}": {"id": "${token.replace('-', '\\u002d')}"}}`;
    assert.ok(!escaped.includes(token));
    const out = JSON.stringify(redactJson(parseJson(escaped)));
    assert.ok(!out.includes(token), out);
    assert.match(out, /"\*\*\*\(\d+ chars, ….{4}\)":\{"id":"\*\*\*/);
    assert.ok(!describeResponse(response(escaped)).includes(token));
  });

  it('redacts before it cuts: a secret across the cut leaves nothing of itself', () => {
    const secret = unique('canary-across-the-cut-0123456789');
    registerSecret(secret);
    const body = `${'x'.repeat(290)}${secret}${'y'.repeat(50)}`;
    assert.ok(!leaksPartOf(excerpt(body, 300), secret));
    assert.ok(
      !leaksPartOf(
        describeResponse({ ...response(body), contentType: 'text/plain', json: undefined }),
        secret,
      ),
    );
  });

  it('masks a secret cut short or one character off, and leaves a value that only shares its first word', () => {
    const secret = unique('acme-prod-secret-0123456789');
    registerSecret(secret);
    const cut = secret.slice(0, 14);
    assert.doesNotMatch(redact(`"${cut}"`), new RegExp(cut));
    assert.doesNotMatch(redact(`${cut}…`), new RegExp(cut));
    assert.doesNotMatch(redact(`${secret.slice(0, -1)}X`), new RegExp(secret.slice(0, 12)));
    // A client id beside it (acme-prod-client) is no part of the secret: a reproduction must still send it.
    assert.equal(redact('client_id: acme-prod-client'), 'client_id: acme-prod-client');
  });

  it('masks credentials by their shape when nobody registered them', () => {
    const out = redact(
      'access_token=abcdefgh12345678&x=1 {"refresh_token":"zyxwvuts87654321"} https://user:pa55word99@host/p',
    );
    assert.ok(!/abcdefgh12345678|zyxwvuts87654321|pa55word99|user:/.test(out), out);
    // A URL run into the word or mark before it, as prose and logs write them.
    for (const before of ['see.', '-', 'x_', '(', 'A-'])
      assert.equal(redact(`${before}https://user:pa55word99@host/p`), `${before}https://***@host/p`);
  });

  it('shares secrets between the processes of a run, through a private directory it cleans up after', () => {
    const before = runState('secretsDir');
    // The registry of a run killed outright: the process that would have removed it is gone.
    const abandoned = join(tmpdir(), `pix-secrets-${spawnSync(process.execPath, ['-e', '']).pid}-abandoned`);
    mkdirSync(abandoned);
    const dir = openSecretsRegistry();
    assert.ok(!existsSync(abandoned), 'the next run removes it');
    try {
      const token = unique('canary-from-another-process');
      execFileSync(
        process.execPath,
        [
          '--import',
          'tsx',
          '--eval',
          `import('./src/secrets/registry.ts').then((m) => m.registerSecret('${token}', 'token'))`,
        ],
        { cwd: ROOT, env: process.env },
      );
      assert.equal(statSync(dir).mode & 0o777, 0o700);
      assert.equal(statSync(join(dir, 'secrets.jsonl')).mode & 0o777, 0o600);
      assert.ok(!redact(`echoed: ${token}`).includes(token));
    } finally {
      if (before === undefined) delete process.env.PIX_SECRETS_DIR;
      else shareRunState({ secretsDir: before });
    }
  });

  it("registers the configuration's secrets: the certificate's PEM and body, and URL user-info", () => {
    const body = `MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE${unique('canarybody').replace('-', '')}`;
    const pem = `-----BEGIN PUBLIC KEY-----\n${body}\n-----END PUBLIC KEY-----\n`;
    const password = unique('canary-password');
    const config = loadConfig({
      PIX_BASE_URL: `https://someone:${password}@api.example.com`,
      PIX_CLIENT_ID: 'client',
      PIX_CLIENT_SECRET: unique('canary-secret'),
      PIX_CERT_CLIENT: Buffer.from(pem).toString('base64'),
    });
    registerConfigSecrets(config);
    const out = redact(`${pem} ${JSON.stringify(pem)} ${body} ${config.baseUrl ?? ''} ${password}`);
    assert.ok(!out.includes(body) && !out.includes(password), out);
  });

  it('refuses a configured secret too short to mask, naming the variable', () => {
    const live = {
      PIX_BASE_URL: 'https://api.example.com',
      PIX_CLIENT_ID: 'client',
      PIX_CLIENT_SECRET: 'long-enough-secret',
      PIX_CERT_CLIENT: Buffer.from('public key').toString('base64'),
    };
    for (const [env, variable] of [
      [{ ...live, PIX_CLIENT_SECRET: 'short' }, 'PIX_CLIENT_SECRET'],
      [{ ...live, PIX_BASE_URL: 'https://me:short@api.example.com' }, 'PIX_BASE_URL'],
      [{ ...live, PIX_CERT_CLIENT: 'c2hv' }, 'PIX_CERT_CLIENT'],
    ] as const) {
      assert.throws(
        () => loadConfig(env),
        (error) => error instanceof ConfigError && error.variable === variable,
      );
    }
  });
});

function response(bodyText: string): Parameters<typeof describeResponse>[0] {
  return { status: 403, headers: {}, contentType: 'application/json', bodyText, json: parseJson(bodyText) };
}

describe('tokens in responses', () => {
  const harvested = (bodyText: string, tokenOperation = true, headers: Record<string, string> = {}) => {
    harvestTokens({ headers, bodyText, json: parseJson(bodyText) }, tokenOperation, 'data.credential');
  };

  it('registers every token a response carries, whatever its status or form', () => {
    const tokens = {
      json: unique('canary-json-token'),
      refresh: unique('canary-refresh'),
      id: unique('canary-id-token'),
      field: unique('canary-configured-field'),
      form: unique('canary-form-token'),
      bare: `${unique('canarybare')}0123456789`.replace(/-/g, ''),
      nested: unique('canary-nested'),
      header: unique('canary-header-token'),
    };
    harvested(
      JSON.stringify({ error: 'forbidden', access_token: tokens.json, refreshToken: tokens.refresh }),
    );
    harvested(JSON.stringify({ id_token: tokens.id, data: { credential: tokens.field } }));
    harvested(new URLSearchParams({ access_token: tokens.form, token_type: 'bearer' }).toString());
    harvested(tokens.bare);
    harvested(JSON.stringify({ message: `retry with access_token=${tokens.nested}` }), false);
    harvested('', false, { 'x-access-token': tokens.header });
    const out = redact(Object.values(tokens).join(' '));
    for (const [form, token] of Object.entries(tokens)) assert.ok(!out.includes(token), `${form}: ${out}`);
  });

  it('leaves fields that only look related, and bare bodies of the other operation', () => {
    harvested(JSON.stringify({ token_type: 'bearer-token-type-x', expires_in: 7200 }));
    harvested('plain-refusal-text-123456789', false);
    assert.equal(
      redact('bearer-token-type-x plain-refusal-text-123456789'),
      'bearer-token-type-x plain-refusal-text-123456789',
    );
  });
});

/** Masking by shape, to the character: what stays readable, and the mask each credential gets. */
describe('redaction by shape, exactly', () => {
  it('masks credential headers of a curl line, single- or double-quoted, any case, each of them', () => {
    const [a, b, c] = [fresh(20), fresh(12), fresh(9)];
    assert.equal(
      redact(`curl -H "Authorization: Bearer ${a}" -H "Client_Secret: ${b}" -H 'cert_client: ${c}' -H 'Cookie: ${b}' -H "accept: */*"`),
      `curl -H "Authorization: Bearer ***(20 chars, …${a.slice(-4)})" -H "Client_Secret: ***(12 chars)" -H 'cert_client: ***(9 chars)' -H 'Cookie: ***(12 chars)' -H "accept: */*"`,
    );
    assert.equal(
      redact(`Access_Token=${a}&x=1&PASSWORD=${b} token:${c}`),
      `Access_Token=***(20 chars, …${a.slice(-4)})&x=1&PASSWORD=***(12 chars) token:${c}`,
    );
  }); // prettier-ignore

  it('keeps the scheme of an authorization, masks a value without one whole, and the mask of a token or a secret by the name', () => {
    const [a, b, c, d, e] = [fresh(20), fresh(12), fresh(20), fresh(18), fresh(16)];
    assert.deepEqual(
      redactHeaders({ authorization: `Bearer  ${a}`, 'Proxy-Authorization': b, Authorization: ` Basic ${c}`, cookie: `Bearer ${d}\nx${e}` }),
      { authorization: `Bearer ***(20 chars, …${a.slice(-4)})`, 'Proxy-Authorization': '***(12 chars)', Authorization: '***(27 chars)', cookie: `***(${d.length + e.length + 9} chars)` },
    );
    assert.deepEqual(
      redactHeaders({ 'proxy-authorization': `Basic ${b}`, authorization: `Bearer ${d}\nx${e}`, cookie: `session ${b}` }),
      { 'proxy-authorization': 'Basic ***(12 chars)', authorization: `***(${d.length + e.length + 9} chars)`, cookie: '***(20 chars)' },
    );
    assert.deepEqual(
      redactHeaders({ 'Set-Cookie': a, 'x-trace': 'plain-value-123', client_secret: '', CERT_CLIENT: '***(40 chars)', cookie: '$PIX_COOKIE' }),
      { 'Set-Cookie': '***(20 chars)', 'x-trace': 'plain-value-123', client_secret: '', CERT_CLIENT: '***(40 chars)', cookie: '$PIX_COOKIE' },
    );
    assert.deepEqual(redactJson({ access_token: c, password: c, id_token: 'string', token: [c] }), {
      access_token: `***(20 chars, …${c.slice(-4)})`,
      password: '***(20 chars)',
      id_token: 'string',
      token: [c],
    });
    const types = ['string', 'number', 'boolean', 'null', 'object', 'array'];
    assert.deepEqual(redactJson(types.map((type) => ({ refresh_token: type }))), types.map((type) => ({ refresh_token: type })), 'a shape keeps its type names');
  }); // prettier-ignore

  it('masks a long Bearer token in prose, keeping its spacing, and leaves the short words after Bearer', () => {
    const token = fresh(24);
    assert.equal(
      redact(`sent Bearer\t ${token} and the Bearer token`),
      `sent Bearer\t ***(24 chars, …${token.slice(-4)}) and the Bearer token`,
    );
  });

  it('cuts an excerpt at the length asked, saying how much more there was, and leaves a short one whole', () => {
    assert.equal(excerpt('abcdefghij', 4), 'abcd… (6 more characters)');
    assert.equal(excerpt('abcdefghij', 10), 'abcdefghij');
  });

  it('masks a body of the largest size a response may have, made of runs every pattern reads, in one pass', () => {
    const masked = (unit: string, tail: string): string | undefined =>
      inOnePass('src/secrets/redact.ts', 'scan.redact(text).slice(-40)', unit, tail);
    assert.match(
      masked('A-', ' https://deploy:hunter2-pass@pix.example/x') ?? 'did not end',
      / https:\/\/\*\*\*@pix\.example\/x$/,
    );
    assert.match(masked('?token', '&token=abcdefgh12345678') ?? 'did not end', /&token=\*\*\*\(16 chars\)$/);
  });
});

/** A value no earlier test registered: letters and digits, `length` long. */
function fresh(length = 20): string {
  let value = '';
  while (value.length < length) value += Math.random().toString(36).slice(2);
  return `${value.slice(0, length - 1)}7`;
}

/**
 * What harvestTokens registers, exactly: each case names values that must become secrets and values
 * that must not (near misses of each pattern), so that a pattern loosened or tightened shows.
 */
describe('tokens in responses, value by value', () => {
  const harvest = (
    bodyText: string,
    {
      tokenOperation = false,
      headers = {},
    }: { tokenOperation?: boolean; headers?: Record<string, string> } = {},
  ): void =>
    harvestTokens({ headers, bodyText, json: parseJson(bodyText) }, tokenOperation, 'data.credential');
  const registered = (values: readonly string[]): string[] =>
    values.filter((value) => isRegisteredSecret(value));

  it('takes the members whose names end like a token, a secret, a password, a JWT or an assertion, and no others', () => {
    const taken = { access_token: fresh(), refreshToken: fresh(), 'ID-TOKEN': fresh(), client_secret: fresh(), password: fresh(), jwt: fresh(), client_assertion: fresh(), api_token_2: fresh() };
    const left = { token_type: fresh(), expires_in: fresh(), tokens: fresh(), secretary: fresh(), passwords: fresh(), scope: fresh() };
    harvest(JSON.stringify({ ...taken, ...left }));
    assert.deepEqual(registered(Object.values(taken)), Object.values(taken));
    assert.deepEqual(registered(Object.values(left)), []);
  }); // prettier-ignore

  it('takes a token without its scheme or surrounding spaces, and a password with spaces whole', () => {
    const [bearer, basic, spaced, inner, phrase] = [fresh(), fresh(), fresh(), fresh(), `correct horse ${fresh(8)}`];
    harvest(JSON.stringify({ access_token: `Bearer  ${bearer}`, id_token: `basic ${basic}`, refresh_token: `  ${spaced}\n`, token: `My Bearer ${inner}`, password: phrase }));
    assert.deepEqual(registered([bearer, basic, spaced, `My Bearer ${inner}`, phrase]), [bearer, basic, spaced, `My Bearer ${inner}`, phrase]);
    assert.deepEqual(registered([`Bearer  ${bearer}`, `basic ${basic}`, `My ${inner}`, inner]), []);
  }); // prettier-ignore

  it('reads name=value and name: value in a text body, quoted or not, any case, each of them, padding and encoding included', () => {
    const v = Array.from({ length: 9 }, () => fresh(12));
    const [plain, spaced, quoted, single, upper, padded, dotted, encoded, plus] = v as [string, string, string, string, string, string, string, string, string];
    const eight = fresh(8);
    const seven = fresh(7);
    harvest([
      `access_token=${plain}&refresh_token = ${spaced}`,
      `"client_secret": "${quoted}", password='${single}' ACCESS_TOKEN:${upper}`,
      `token=${padded}== jwt=${dotted}.a~b-c_d/e+f`,
      `id_token=${encoded}%2Fx&assertion=${plus}+y token=${eight} token=${seven}`,
    ].join('\n'));
    assert.deepEqual(
      registered([plain, spaced, quoted, single, upper, `${padded}==`, `${dotted}.a~b-c_d/e+f`, `${encoded}%2Fx`, `${encoded}/x`, `${plus}+y`, `${plus} y`, eight]),
      [plain, spaced, quoted, single, upper, `${padded}==`, `${dotted}.a~b-c_d/e+f`, `${encoded}%2Fx`, `${encoded}/x`, `${plus}+y`, `${plus} y`, eight],
    );
    assert.deepEqual(registered([`${padded}=`, padded, dotted, seven, plain.slice(0, 8)]), []);
    const broken = `${fresh(10)}%E0%A4%A`;
    harvest(`access_token=${broken}`);
    assert.deepEqual(registered([broken]), [broken], 'an encoding that cannot be read is taken as it is');
  }); // prettier-ignore

  it('takes a JWT written inside any string, from its first word boundary, signature or not', () => {
    const [head, body, signature] = [`eyJ${fresh(10)}`, `eyJ${fresh(10)}`, `${fresh(6)}-_x`];
    const unsigned = `eyJ${fresh(9)}.eyJ${fresh(9)}.`;
    const short = `eyJ${fresh(3)}.${fresh(10)}.${fresh(4)}`;
    const shortBody = `eyJ${fresh(10)}.${fresh(3)}.${fresh(4)}`;
    const glued = `xeyJ${fresh(10)}.${fresh(10)}.${fresh(4)}`;
    harvest(JSON.stringify({ message: `use ${head}.${body}.${signature} then ${unsigned} not ${short} ${shortBody} ${glued}` }));
    assert.deepEqual(registered([`${head}.${body}.${signature}`, unsigned]), [`${head}.${body}.${signature}`, unsigned]);
    assert.deepEqual(registered([`${head}.${body}.${signature.slice(0, 1)}`, short, shortBody, glued, glued.slice(1)]), []);
  }); // prettier-ignore

  it("takes a token operation's bare body that looks like a token: 16 to 8192 characters with a digit, padding allowed", () => {
    const cases: [string, boolean][] = [
      [fresh(16), true],
      [`  ${fresh(20)}==\n`, true],
      [`${fresh(8)}.-~+/_${fresh(8)}`, true],
      [fresh(8192), true],
      [fresh(15), false],
      [fresh(8193), false],
      [`${fresh(10)} ${fresh(10)}`, false],
      [`${fresh(10)}=${fresh(10)}`, false],
      ['abcdefghijklmnopqrstuvwxyz', false],
      [`"${fresh(20)}"`, false],
      [`a b ${fresh(20)}`, false],
      [`${fresh(20)} and more`, false],
    ];
    for (const [body, taken] of cases) {
      harvest(body, { tokenOperation: true });
      assert.equal(isRegisteredSecret(body.trim()), taken, body.slice(0, 40));
    }
    const other = fresh(20);
    harvest(other);
    assert.equal(isRegisteredSecret(other), false, 'only the token operation');
    const token = fresh(20);
    harvest(token, { tokenOperation: true });
    assert.equal(redact(`issued ${token}`), `issued ***(20 chars, …${token.slice(-4)})`, 'masked as a token');
  }); // prettier-ignore

  it('takes the authorization header and headers named like a token, not the others', () => {
    const [authorization, header, other] = [fresh(), fresh(), fresh()];
    harvest('', { headers: { authorization: `Bearer ${authorization}`, 'x-api-token': header, 'x-request-id': other } });
    assert.deepEqual(registered([authorization, header, other, `Bearer ${authorization}`]), [authorization, header]);
  }); // prettier-ignore

  it('reads the configured field wherever it points, whatever its name, without its scheme', () => {
    const [configured, elsewhere] = [fresh(), fresh()];
    harvest(JSON.stringify({ data: { credential: `Bearer ${configured}`, other: elsewhere } }));
    assert.deepEqual(registered([configured, elsewhere]), [configured]);
  });

  it('walks eight levels deep, 10,000 members and 1,024 tokens, and no further', () => {
    const nested = (depth: number, token: string): JsonValue => (depth === 0 ? { access_token: token } : { a: nested(depth - 1, token) });
    const [deep, tooDeep, inArray] = [fresh(), fresh(), fresh()];
    harvest(JSON.stringify(nested(8, deep)));
    harvest(JSON.stringify(nested(9, tooDeep)));
    harvest(JSON.stringify({ list: [[`access_token=${inArray}`]] }));
    assert.deepEqual(registered([deep, tooDeep, inArray]), [deep, inArray]);
    const members = (fillers: number, token: string): string =>
      JSON.stringify({ ...Object.fromEntries(Array.from({ length: fillers }, (_, i) => [`f${i}`, i])), access_token: token });
    const [last, beyond] = [fresh(), fresh()];
    harvest(members(9_999, last));
    harvest(members(10_000, beyond));
    assert.deepEqual(registered([last, beyond]), [last]);
    const undecodable = Array.from({ length: 1_024 }, () => `${fresh(10)}%E0%A4%A`);
    harvest(undecodable.map((token) => `token=${token}`).join(' '));
    assert.deepEqual(registered(undecodable), undecodable, 'a value that cannot be decoded counts once');
    const many = Array.from({ length: 1_025 }, () => fresh());
    harvest(JSON.stringify(Object.fromEntries(many.map((token, i) => [`t${i}_token`, token]))));
    assert.deepEqual(registered(many), many.slice(0, 1_024));
    const text = Array.from({ length: 1_025 }, () => fresh());
    harvest(text.map((token) => `token=${token}`).join(' '));
    assert.deepEqual(registered(text), text.slice(0, 1_024));
    const jwts = Array.from({ length: 1_025 }, () => `eyJ${fresh(8)}.${fresh(8)}.${fresh(8)}`);
    harvest(JSON.stringify({ message: jwts.join(' ') }));
    assert.deepEqual(registered(jwts), jwts.slice(0, 1_024));
  }); // prettier-ignore
});

describe('bounds on what reaches a report', () => {
  const wide = Object.fromEntries(Array.from({ length: 200_000 }, (_, i) => [`f${i}`, i]));

  it('caps a shape in width and depth, and says so', () => {
    const shape = shapeOf({ ...wide, deep: { a: { b: { c: { d: 1 } } } } }) as Record<string, unknown>;
    assert.equal(Object.keys(shape).length, 101);
    assert.match(String(shape['…']), /^199901 more fields not shown \(capped at 100\)$/);
    assert.deepEqual(shapeOf({ a: { b: { c: { d: { e: 1 } } } } }), { a: { b: { c: { d: 'object' } } } });
  });

  it('bounds a value after masking it: a capped string never ends in part of a secret', () => {
    const secret = unique('canary-in-a-long-string-0123456789');
    registerSecret(secret);
    const value = boundedJson({ long: `${'z'.repeat(280)}${secret}${'z'.repeat(1000)}`, ...wide });
    const text = JSON.stringify(value);
    assert.ok(text.length < 10_000);
    assert.ok(!leaksPartOf(text, secret));
    assert.match(text, /more characters/);
  });

  it('writes no secret to the ledger, even as the id the provider returned', () => {
    const secret = unique('canary-withdrawal-id');
    registerSecret(secret);
    const dir = temporaryDir('pix-ledger-');
    const ledger = new Ledger(dir, 'run');
    ledger.intent({
      checkId: 'X',
      code: 'c-1',
      amount: 0.01,
      checkCode: true,
      payeeKey: 'payee@example.com',
      url: 'https://u:pw12345678@h/p',
    });
    ledger.outcome({ code: 'c-1', status: 200, outcome: 'accepted', providerId: secret });
    const text = readFileSync(ledger.path, 'utf8');
    rmSync(dir, { recursive: true });
    assert.ok(!text.includes(secret) && !text.includes('pw12345678'), text);
    assert.match(text, /"providerId":"\*\*\*\(\d+ chars\)"/);
  });
});
