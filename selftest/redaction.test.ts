/**
 * The one redaction path, piece by piece: the forms a secret travels in, parsed values, redaction
 * before a cut, the registry shared between processes, what the configuration and the responses
 * feed it, and the caps on what reaches a report. The whole path against a hostile provider is
 * hostile.test.ts.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { loadConfig } from '../src/config/config.ts';
import { describeResponse, parseJson } from '../src/evidence/exchange.ts';
import { harvestTokens } from '../src/secrets/harvest.ts';
import { Ledger } from '../src/run/ledger.ts';
import { excerpt, redact, redactJson } from '../src/secrets/redact.ts';
import { runState, shareRunState } from '../src/base/run-state.ts';
import { boundedJson, shapeOf } from '../src/evidence/shape.ts';
import { ConfigError } from '../src/config/errors.ts';
import { openSecretsRegistry, registerSecret } from '../src/secrets/registry.ts';
import { registerConfigSecrets } from '../src/config/register-secrets.ts';

const ROOT = join(import.meta.dirname, '..');
const unique = (label: string): string => `${label}-${Math.random().toString(36).slice(2, 12)}`;

/** No run of 8 characters of the secret survives, which also rules out a secret cut in two. */
function leaksPartOf(text: string, secret: string): boolean {
  for (let i = 0; i + 8 <= secret.length; i++) if (text.includes(secret.slice(i, i + 8))) return true;
  return false;
}

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

  it('masks credentials by their shape when nobody registered them', () => {
    const out = redact(
      'access_token=abcdefgh12345678&x=1 {"refresh_token":"zyxwvuts87654321"} https://user:pa55word99@host/p',
    );
    assert.ok(!/abcdefgh12345678|zyxwvuts87654321|pa55word99|user:/.test(out), out);
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
    const dir = mkdtempSync(join(tmpdir(), 'pix-ledger-'));
    const ledger = new Ledger(dir, 'run');
    ledger.intent({
      checkId: 'X',
      code: 'c-1',
      amount: 0.01,
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
