/** The configuration is the suite's public interface: every mistake stops the run with a message naming the variable. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigError, loadConfig } from '../tests/_support/config.ts';
import { isValidCnpj, isValidCpf, keyKindOf, keyProblem } from '../tests/_support/pix/keys.ts';
import { TEST_PAYEE } from './support/live-env.ts';

const LIVE = {
  PIX_BASE_URL: 'https://api.example.com',
  PIX_CLIENT_ID: 'client',
  PIX_CLIENT_SECRET: 'secret-value',
  PIX_CERT_CLIENT: Buffer.from('public key').toString('base64'),
};

function problemWith(env: Record<string, string>): string {
  try {
    loadConfig(env);
  } catch (error) {
    assert.ok(error instanceof ConfigError, `expected a ConfigError, got ${String(error)}`);
    return error.variable;
  }
  assert.fail('the configuration was accepted');
}

describe('configuration', () => {
  it('runs against the embedded mock with nothing set', () => {
    const config = loadConfig({});
    assert.equal(config.mode, 'mock');
    assert.equal(config.amountText, '0.01');
    assert.equal(config.webhook.timeoutMs, 3_000);
  });

  it('accepts a complete live configuration', () => {
    const config = loadConfig({ ...LIVE, ...TEST_PAYEE, PIX_AMOUNT: '0.02' });
    assert.equal(config.mode, 'live');
    assert.equal(config.baseUrl, 'https://api.example.com');
    assert.equal(config.webhook.timeoutMs, 15_000);
    assert.equal(config.maxTotal, 1.2);
  });

  const mistakes: [string, Record<string, string>, string][] = [
    ['a typo in a variable name', { PIX_ALLOW_PAYOUT: '1' }, 'PIX_ALLOW_PAYOUT'],
    ['plain http to another host', { ...LIVE, PIX_BASE_URL: 'http://api.example.com' }, 'PIX_BASE_URL'],
    ['a base URL that is not a URL', { ...LIVE, PIX_BASE_URL: 'api.example.com' }, 'PIX_BASE_URL'],
    ['live mode without a client id', { ...LIVE, PIX_CLIENT_ID: '' }, 'PIX_CLIENT_ID'],
    ['live mode without a secret', { ...LIVE, PIX_CLIENT_SECRET: '' }, 'PIX_CLIENT_SECRET'],
    ['a cert_client that is not base64', { ...LIVE, PIX_CERT_CLIENT: 'not base64!' }, 'PIX_CERT_CLIENT'],
    [
      'a cert file that does not exist',
      { ...LIVE, PIX_CERT_CLIENT: '', PIX_CERT_FILE: '/nonexistent/key.pem' },
      'PIX_CERT_FILE',
    ],
    ['payouts without a payee', { ...LIVE, PIX_ALLOW_PAYOUTS: '1' }, 'PIX_PAYEE_KEY_TYPE'],
    [
      'a CPF key with wrong check digits',
      { ...LIVE, ...TEST_PAYEE, PIX_PAYEE_KEY_TYPE: 'cpf', PIX_PAYEE_KEY: '52998224726' },
      'PIX_PAYEE_KEY',
    ],
    [
      'an EVP key in capitals',
      { ...LIVE, ...TEST_PAYEE, PIX_PAYEE_KEY: '123E4567-E89B-12D3-A456-426614174000' },
      'PIX_PAYEE_KEY',
    ],
    ['an unknown key type', { ...LIVE, ...TEST_PAYEE, PIX_PAYEE_KEY_TYPE: 'IBAN' }, 'PIX_PAYEE_KEY_TYPE'],
    [
      'an invalid document',
      { ...LIVE, ...TEST_PAYEE, PIX_PAYEE_DOCUMENT: '12345678900' },
      'PIX_PAYEE_DOCUMENT',
    ],
    ['an amount with three decimals', { PIX_AMOUNT: '0.011' }, 'PIX_AMOUNT'],
    ['an amount of zero', { PIX_AMOUNT: '0' }, 'PIX_AMOUNT'],
    ['a negative amount', { PIX_AMOUNT: '-1' }, 'PIX_AMOUNT'],
    ['a flag that is neither 0 nor 1', { PIX_STRICT: 'yes' }, 'PIX_STRICT'],
    ['a port out of range', { PIX_WEBHOOK_PORT: '70000' }, 'PIX_WEBHOOK_PORT'],
    ['a public webhook URL that is not a URL', { PIX_WEBHOOK_PUBLIC_URL: 'hooks' }, 'PIX_WEBHOOK_PUBLIC_URL'],
  ];
  for (const [what, env, variable] of mistakes) {
    it(`names ${variable} for ${what}`, () => assert.equal(problemWith(env), variable));
  }

  it('allows plain http to another host only with PIX_ALLOW_INSECURE=1', () => {
    assert.equal(
      loadConfig({ ...LIVE, PIX_BASE_URL: 'http://api.example.com', PIX_ALLOW_INSECURE: '1' }).allowInsecure,
      true,
    );
  });

  it('allows plain http on loopback', () => {
    assert.equal(
      loadConfig({ ...LIVE, PIX_BASE_URL: 'http://127.0.0.1:4020' }).baseUrl,
      'http://127.0.0.1:4020',
    );
  });
});

describe('Pix key formats (configuration only)', () => {
  it('validates CPF and CNPJ check digits, alphanumeric CNPJ included', () => {
    assert.ok(isValidCpf('52998224725'));
    assert.ok(!isValidCpf('11111111111'));
    assert.ok(isValidCnpj('11222333000181'));
    assert.ok(isValidCnpj('12ABC34501DE35'));
    assert.ok(!isValidCnpj('12ABC34501DE36'));
  });

  it('knows the spellings providers use', () => {
    assert.equal(keyKindOf('aleatoria'), 'EVP');
    assert.equal(keyKindOf('email'), 'EMAIL');
    assert.equal(keyProblem('PHONE', '+5511998765432'), undefined);
    assert.match(keyProblem('PHONE', '11998765432') ?? '', /E\.164/);
  });
});
