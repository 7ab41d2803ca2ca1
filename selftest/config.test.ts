/** The configuration is the suite's public interface: every mistake stops the run with a message naming the variable. */
import assert from 'node:assert/strict';
import { createPrivateKey } from 'node:crypto';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parseEnv } from 'node:util';
import { loadConfig } from '../src/config/config.ts';
import { isValidCnpj, isValidCpf, keyKindOf, keyProblem } from '../src/config/pix-keys.ts';
import { certificateAuthority, encryptedKey, pkcs12 } from './support/certificates.ts';
import { TEST_PAYEE } from './support/live-env.ts';

const ROOT = join(import.meta.dirname, '..');
import { ConfigError } from '../src/config/errors.ts';
import { environmentWithDotEnv } from '../src/config/dotenv.ts';
import { VARIABLES } from '../src/config/variables.ts';
import { webhookCollection } from '../src/run/run-metadata.ts';
import { planFor, withdrawalPlan } from '../src/run/plan.ts';
import { DEFAULT_RUN_SHAPE } from '../src/checks/family.ts';
import { loadSpec } from '../src/spec/spec.ts';
import { temporaryDir } from './support/temporary.ts';

const LIVE_WITHOUT_TARGET = {
  PIX_CLIENT_ID: 'client',
  PIX_CLIENT_SECRET: 'secret-value',
  PIX_CERT_CLIENT: Buffer.from('public key').toString('base64'),
};

const LIVE = { PIX_BASE_URL: 'https://api.example.com', ...LIVE_WITHOUT_TARGET };

function refusal(env: Record<string, string>): ConfigError {
  try {
    loadConfig(env);
  } catch (error) {
    assert.ok(error instanceof ConfigError, `expected a ConfigError, got ${String(error)}`);
    return error;
  }
  assert.fail('the configuration was accepted');
}

const problemWith = (env: Record<string, string>): string => refusal(env).variable;

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
    assert.equal(config.maxTotal, 1.6); // PIX_MAX_PAYOUTS (80) × PIX_AMOUNT
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

  it('bounds every response body by PIX_MAX_RESPONSE_BYTES: 4 MiB unless set, a whole number from 1024 bytes to 1 GiB', () => {
    assert.equal(loadConfig({}).maxResponseBytes, 4 * 1024 * 1024);
    assert.equal(loadConfig({ PIX_MAX_RESPONSE_BYTES: '2048' }).maxResponseBytes, 2048);
    assert.equal(loadConfig({ PIX_MAX_RESPONSE_BYTES: '1024' }).maxResponseBytes, 1024);
    assert.equal(loadConfig({ PIX_MAX_RESPONSE_BYTES: '1073741824' }).maxResponseBytes, 1_073_741_824);
    for (const value of ['abc', '1023', '1073741825', '2k', '-2048', '2048.5'])
      assert.equal(
        refusal({ PIX_MAX_RESPONSE_BYTES: value }).message,
        `PIX_MAX_RESPONSE_BYTES: is '${value}'. Use a whole number from 1024 to 1073741824.`,
        value,
      );
  });

  it('turns the webhook retry probe on with PIX_WEBHOOK_RETRY_WAIT_S: off (0) unless set, whole seconds up to an hour', () => {
    assert.equal(loadConfig({}).webhook.retryWaitMs, 0);
    assert.equal(loadConfig({ PIX_WEBHOOK_RETRY_WAIT_S: '0' }).webhook.retryWaitMs, 0);
    assert.equal(loadConfig({ PIX_WEBHOOK_RETRY_WAIT_S: '45' }).webhook.retryWaitMs, 45_000);
    assert.equal(loadConfig({ PIX_WEBHOOK_RETRY_WAIT_S: '3600' }).webhook.retryWaitMs, 3_600_000);
    for (const value of ['3601', '-1', '1.5', '30s', 'yes'])
      assert.equal(
        refusal({ PIX_WEBHOOK_RETRY_WAIT_S: value }).message,
        `PIX_WEBHOOK_RETRY_WAIT_S: is '${value}'. Use a whole number from 0 to 3600.`,
        value,
      );
  });

  it('allows plain http on loopback', () => {
    assert.equal(
      loadConfig({ ...LIVE, PIX_BASE_URL: 'http://127.0.0.1:4020' }).baseUrl,
      'http://127.0.0.1:4020',
    );
  });
});

describe('a live gate fails closed', () => {
  it('makes an INCOMPLETE live run fail unless PIX_REQUIRE_COMPLETE=0, and leaves the mock at 0', () => {
    assert.equal(loadConfig(LIVE).requireComplete, true);
    assert.equal(loadConfig({ ...LIVE, PIX_REQUIRE_COMPLETE: '0' }).requireComplete, false);
    assert.equal(loadConfig({ ...LIVE, PIX_REQUIRE_COMPLETE: '1' }).requireComplete, true);
    assert.equal(loadConfig({}).requireComplete, false);
    assert.equal(loadConfig({ PIX_REQUIRE_COMPLETE: '1' }).requireComplete, true);
  });

  it('is not switched off by an unedited copy of .env.example', () => {
    const example = readFileSync(join(ROOT, '.env.example'), 'utf8');
    assert.doesNotMatch(example, /^PIX_REQUIRE_COMPLETE=0/m);
  });
});

describe('the duplicate race and the token lifetime probe', () => {
  const PAYING = { ...LIVE, ...TEST_PAYEE };

  it('races 3 by default, narrowed to what PIX_CONCURRENCY and PIX_RATE_LIMIT let go together', () => {
    assert.equal(loadConfig(PAYING).raceWidth, 3);
    assert.equal(loadConfig({ ...PAYING, PIX_CONCURRENCY: '2' }).raceWidth, 2);
    assert.equal(loadConfig({ ...PAYING, PIX_RATE_LIMIT: '2' }).raceWidth, 2);
    assert.equal(loadConfig({ ...PAYING, PIX_RACE_WIDTH: '4' }).raceWidth, 4);
  });

  it('refuses a race wider than the limits, or limits that leave no race, naming the variable', () => {
    assert.equal(problemWith({ ...PAYING, PIX_RACE_WIDTH: '5' }), 'PIX_RACE_WIDTH');
    assert.equal(problemWith({ ...PAYING, PIX_RACE_WIDTH: '3', PIX_RATE_LIMIT: '2' }), 'PIX_RACE_WIDTH');
    assert.equal(problemWith({ ...PAYING, PIX_RACE_WIDTH: '1' }), 'PIX_RACE_WIDTH');
    assert.equal(problemWith({ ...PAYING, PIX_CONCURRENCY: '1' }), 'PIX_CONCURRENCY');
    assert.equal(problemWith({ ...PAYING, PIX_RATE_LIMIT: '1' }), 'PIX_RATE_LIMIT');
    // Without payouts no race runs, so one request at a time is a setting like any other.
    assert.equal(loadConfig({ ...LIVE, PIX_CONCURRENCY: '1' }).concurrency, 1);
  });

  it('counts the race, its copy after and the probe in the plan, exactly', () => {
    const spec = loadSpec();
    const base = withdrawalPlan(spec, 0.01).requests;
    // Live with payouts allowed, the run's first withdrawal comes before any test.
    assert.equal(withdrawalPlan(spec, 0.01, DEFAULT_RUN_SHAPE, true).requests, base + 1);
    assert.equal(planFor(loadConfig(PAYING)).requests, base + 1);
    assert.equal(planFor(loadConfig({ ...PAYING, PIX_RACE_WIDTH: '4' })).requests, base + 2);
    assert.equal(planFor(loadConfig({ ...PAYING, PIX_TOKEN_LIFETIME_PROBE_S: '60' })).requests, base + 2);
    assert.equal(planFor(loadConfig(PAYING)).bound, 3 * (base + 1));
    assert.equal(problemWith({ ...PAYING, PIX_TOKEN_LIFETIME_PROBE_S: '0' }), 'PIX_TOKEN_LIFETIME_PROBE_S');
  });
});

describe('an explicit target: variables only a provider uses need PIX_BASE_URL', () => {
  for (const [what, baseUrl] of [
    ['empty (a CI secret that does not exist)', { PIX_BASE_URL: '' }],
    ['unset', {}],
  ] as const) {
    it(`stops when PIX_BASE_URL is ${what}, naming it and every live-only variable set`, () => {
      const error = refusal({ ...baseUrl, ...LIVE_WITHOUT_TARGET, ...TEST_PAYEE, PIX_ALLOW_INSECURE: '1' });
      assert.equal(error.problems.length, 1);
      assert.equal(error.variable, 'PIX_BASE_URL');
      assert.match(
        error.message,
        baseUrl.PIX_BASE_URL === '' ? /^PIX_BASE_URL: is empty,/ : /^PIX_BASE_URL: is not set,/,
      );
      for (const name of [
        ...Object.keys(LIVE_WITHOUT_TARGET),
        ...Object.keys(TEST_PAYEE),
        'PIX_ALLOW_INSECURE',
      ])
        assert.ok(error.message.includes(name), `${name} is named`);
      assert.ok(!error.message.includes(LIVE.PIX_CLIENT_SECRET), 'names, never values');
    });
  }

  it('lets the flags at their default (0), as .env.example sets them, run the mock', () => {
    assert.equal(loadConfig({ PIX_ALLOW_PAYOUTS: '0', PIX_ALLOW_INSECURE: '0' }).mode, 'mock');
  });

  it('reads PIX_ENV_NAME as the environment label, and refuses one that is not one short line', () => {
    assert.equal(loadConfig({ PIX_ENV_NAME: ' Provider X UAT ' }).environmentName, 'Provider X UAT');
    assert.equal(loadConfig({ PIX_ENV_NAME: '' }).environmentName, undefined);
    assert.throws(
      () => loadConfig({ PIX_ENV_NAME: 'UAT\nFAILED' }),
      /PIX_ENV_NAME: is not one short line\. Give a label of at most 80 characters/,
    );
  });

  it('runs the mock from an unedited copy of .env.example', () => {
    const example = parseEnv(readFileSync(join(import.meta.dirname, '..', '.env.example'), 'utf8'));
    assert.equal(loadConfig(example).mode, 'mock');
  });
});

describe('every problem at once, one line each', () => {
  it('lists every missing variable of a live run with payouts', () => {
    const error = refusal({
      PIX_BASE_URL: 'https://api.example.com',
      PIX_ALLOW_PAYOUTS: '1',
      PIX_STRICT: 'yes',
    });
    assert.deepEqual(
      error.problems.map((p) => p.variable),
      [
        'PIX_CLIENT_ID',
        'PIX_CLIENT_SECRET',
        'PIX_CERT_CLIENT',
        'PIX_PAYEE_KEY_TYPE',
        'PIX_PAYEE_KEY',
        'PIX_PAYEE_DOCUMENT',
        'PIX_PAYEE_NAME',
        'PIX_STRICT',
      ],
    );
    const lines = error.message.split('\n');
    assert.equal(lines.length, error.problems.length);
    for (const [i, line] of lines.entries())
      assert.ok(line.startsWith(`${error.problems[i]?.variable ?? ''}: `), line);
  });

  it('suggests the variable a typo meant, and reports the rest too', () => {
    const error = refusal({ PIX_ALLOW_PAYOUT: '1', PIX_AMONT: '0.02', PIX_URL: 'x', PIX_AMOUNT: '0' });
    assert.deepEqual(error.message.split('\n'), [
      'PIX_ALLOW_PAYOUT: is not a variable of this suite. Did you mean PIX_ALLOW_PAYOUTS?',
      'PIX_AMONT: is not a variable of this suite. Did you mean PIX_AMOUNT?',
      'PIX_URL: is not a variable of this suite. Check the spelling: npm run certify -- --help and .env.example list every variable.',
      "PIX_AMOUNT: is '0'. Use a positive amount in BRL with at most two decimals, e.g. 0.01.",
    ]);
  });

  it('keeps the one-problem form of ConfigError for the code that throws it', () => {
    const error = new ConfigError('PIX_X', 'is wrong', 'Fix it.');
    assert.equal(error.message, 'PIX_X: is wrong. Fix it.');
    assert.equal(error.variable, 'PIX_X');
    assert.deepEqual(error.problems, [{ variable: 'PIX_X', line: 'PIX_X: is wrong. Fix it.' }]);
  });
});

describe('.env', () => {
  const dotEnv = (text: string): string => {
    const path = join(temporaryDir('pix-dotenv-'), '.env');
    writeFileSync(path, text);
    return path;
  };

  it('parses one that starts with a UTF-8 byte order mark and has CRLF line ends', () => {
    const env = environmentWithDotEnv(
      {},
      dotEnv('\uFEFFPIX_AMOUNT=0.02\r\nPIX_STRICT=1\r\nPIX_CODE_PREFIX="ci-"\r\n'),
    );
    const config = loadConfig(env);
    assert.equal(config.amountText, '0.02');
    assert.equal(config.strict, true);
    assert.equal(config.codePrefix, 'ci-');
  });

  it('is overridden by the environment', () => {
    const env = environmentWithDotEnv({ PIX_AMOUNT: '0.03' }, dotEnv('PIX_AMOUNT=0.02\n'));
    assert.equal(loadConfig(env).amountText, '0.03');
  });
});

describe('private CAs and mutual TLS: every problem at once, naming the file, never its contents', () => {
  const dir = temporaryDir('pix-config-tls-');
  const passphrase = 'config-test-passphrase';
  const files = {
    ca: join(dir, 'ca.pem'),
    cert: join(dir, 'client.pem'),
    key: join(dir, 'client.key'),
    encrypted: join(dir, 'encrypted.key'),
    pfx: join(dir, 'client.p12'),
    otherKey: join(dir, 'other.key'),
  };
  let keyLines: string[] = [];
  before(() => {
    const ca = certificateAuthority('Config Test CA');
    const client = ca.issue({ client: '/CN=client' });
    writeFileSync(files.ca, ca.cert);
    writeFileSync(files.cert, client.cert);
    writeFileSync(files.key, client.key);
    writeFileSync(files.encrypted, encryptedKey(client.key, passphrase));
    writeFileSync(files.pfx, pkcs12(client, passphrase));
    writeFileSync(files.otherKey, ca.key);
    keyLines = client.key.split('\n').filter((line) => line !== '' && !line.startsWith('-----'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  /** The problem lines, each checked to quote no line of a key. */
  const linesFor = (env: Record<string, string>): string[] => {
    const { problems, message } = refusal({ ...LIVE, ...env });
    for (const line of keyLines) assert.ok(!message.includes(line), 'no key material in a message');
    return problems.map((p) => p.line);
  };

  it('accepts a private CA with a PEM pair, an encrypted key with its passphrase, or a PFX', () => {
    const pem = loadConfig({
      ...LIVE,
      PIX_CA_FILE: files.ca,
      PIX_TLS_CERT_FILE: files.cert,
      PIX_TLS_KEY_FILE: files.key,
    });
    assert.match(pem.tls.privateCa ?? '', /^-----BEGIN CERTIFICATE-----/);
    assert.ok(pem.tls.client !== undefined && 'key' in pem.tls.client);
    const encrypted = loadConfig({
      ...LIVE,
      PIX_TLS_CERT_FILE: files.cert,
      PIX_TLS_KEY_FILE: files.encrypted,
      PIX_TLS_PASSPHRASE: passphrase,
    });
    assert.equal(encrypted.tls.client?.passphrase, passphrase);
    const pfx = loadConfig({ ...LIVE, PIX_TLS_PFX_FILE: files.pfx, PIX_TLS_PASSPHRASE: passphrase });
    assert.ok(pfx.tls.client !== undefined && 'pfx' in pfx.tls.client);
  });

  const cases: [string, Record<string, string>, string[]][] = [
    [
      'files that do not exist, all at once',
      { PIX_CA_FILE: join(dir, 'no-ca.pem'), PIX_TLS_CERT_FILE: join(dir, 'no.pem'), PIX_TLS_KEY_FILE: join(dir, 'no.key') },
      [
        `PIX_CA_FILE: '${join(dir, 'no-ca.pem')}' does not exist. Give the path of the private certificate authority’s certificate.`,
        `PIX_TLS_CERT_FILE: '${join(dir, 'no.pem')}' does not exist. Give the path of the client certificate.`,
        `PIX_TLS_KEY_FILE: '${join(dir, 'no.key')}' does not exist. Give the path of the private key of the client certificate (PEM).`,
      ],
    ],
    [
      'a CA file that holds a key, and files swapped',
      { PIX_CA_FILE: files.key, PIX_TLS_CERT_FILE: files.key, PIX_TLS_KEY_FILE: files.cert },
      [
        `PIX_CA_FILE: '${files.key}' holds a private key. Give the private certificate authority’s certificate in PEM (-----BEGIN CERTIFICATE-----).`,
        `PIX_TLS_CERT_FILE: '${files.key}' holds a private key. Give the client certificate in PEM (-----BEGIN CERTIFICATE-----).`,
        `PIX_TLS_KEY_FILE: '${files.cert}' holds a certificate, not a private key. Did you swap PIX_TLS_CERT_FILE and PIX_TLS_KEY_FILE?`,
      ],
    ],
    [
      'a certificate without its key',
      { PIX_TLS_CERT_FILE: files.cert },
      ['PIX_TLS_KEY_FILE: is not set, but PIX_TLS_CERT_FILE is. Give the private key of the client certificate (PEM), or both in one file as PIX_TLS_PFX_FILE.'],
    ],
    [
      'a key without its certificate',
      { PIX_TLS_KEY_FILE: files.key },
      ['PIX_TLS_CERT_FILE: is not set, but PIX_TLS_KEY_FILE is. Give the client certificate (PEM) that key belongs to, or both in one file as PIX_TLS_PFX_FILE.'],
    ],
    [
      'PEM and PFX both',
      { PIX_TLS_CERT_FILE: files.cert, PIX_TLS_KEY_FILE: files.key, PIX_TLS_PFX_FILE: files.pfx },
      ['PIX_TLS_PFX_FILE: is set together with PIX_TLS_CERT_FILE. Give the client certificate one way: PIX_TLS_CERT_FILE and PIX_TLS_KEY_FILE (PEM), or PIX_TLS_PFX_FILE alone.'],
    ],
    [
      'a PEM file given as the PFX',
      { PIX_TLS_PFX_FILE: files.cert },
      [`PIX_TLS_PFX_FILE: '${files.cert}' is a PEM file, not PKCS#12. Give PEM files as PIX_TLS_CERT_FILE and PIX_TLS_KEY_FILE.`],
    ],
    [
      'a wrong passphrase for an encrypted key',
      { PIX_TLS_CERT_FILE: files.cert, PIX_TLS_KEY_FILE: files.encrypted, PIX_TLS_PASSPHRASE: 'not-the-passphrase' },
      ['PIX_TLS_PASSPHRASE: does not decrypt the key in PIX_TLS_KEY_FILE. Give the passphrase the key was encrypted with.'],
    ],
    [
      'an encrypted key without a passphrase',
      { PIX_TLS_CERT_FILE: files.cert, PIX_TLS_KEY_FILE: files.encrypted },
      ['PIX_TLS_PASSPHRASE: is not set, but the key in PIX_TLS_KEY_FILE is encrypted. Give the passphrase it was encrypted with (from your secret store).'],
    ],
    [
      'a wrong passphrase for a PFX',
      { PIX_TLS_PFX_FILE: files.pfx, PIX_TLS_PASSPHRASE: 'not-the-passphrase' },
      ['PIX_TLS_PASSPHRASE: does not open PIX_TLS_PFX_FILE. Give the passphrase the file was exported with.'],
    ],
    [
      'a key that does not match the certificate',
      { PIX_TLS_CERT_FILE: files.cert, PIX_TLS_KEY_FILE: files.otherKey },
      ['PIX_TLS_KEY_FILE: does not match the certificate in PIX_TLS_CERT_FILE (their public keys differ). Give the private key that belongs to that certificate.'],
    ],
  ]; // prettier-ignore
  for (const [what, env, expected] of cases) {
    it(`stops on ${what}`, () => assert.deepEqual(linesFor(env), expected));
  }

  it('blames the passphrase also when a wrong one passes OpenSSL padding check and the key does not parse', () => {
    const encrypted = readFileSync(files.encrypted, 'utf8');
    // About one wrong passphrase in 256 decrypts to bytes that are no key instead of failing the padding check.
    const rare = Array.from({ length: 3000 }, (_, i) => `wrong-${i}`).find((wrong) => {
      try {
        createPrivateKey({ key: encrypted, passphrase: wrong });
        return false;
      } catch (error) {
        return (error as NodeJS.ErrnoException).code !== 'ERR_OSSL_BAD_DECRYPT';
      }
    });
    assert.ok(rare !== undefined, 'no wrong passphrase of 3000 got past the padding check');
    assert.deepEqual(
      linesFor({
        PIX_TLS_CERT_FILE: files.cert,
        PIX_TLS_KEY_FILE: files.encrypted,
        PIX_TLS_PASSPHRASE: rare,
      }),
      [
        'PIX_TLS_PASSPHRASE: does not decrypt the key in PIX_TLS_KEY_FILE. Give the passphrase the key was encrypted with.',
      ],
    );
  });
});

describe('the variables table', () => {
  it('.env.example documents exactly the variables the suite reads', () => {
    const example = Object.keys(
      parseEnv(readFileSync(join(import.meta.dirname, '..', '.env.example'), 'utf8')),
    );
    assert.deepEqual([...example].sort(), [...VARIABLES].sort());
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

describe('how the report says webhooks were collected', () => {
  it('names the local receiver, PIX_WEBHOOK_PUBLIC_URL, or the remote receiver with its URL and no token', () => {
    const token = 'remote-receiver-token-0123456789abcdefgh';
    assert.match(webhookCollection(loadConfig(LIVE)), /^the suite's own receiver at its bound address/);
    assert.match(
      webhookCollection(loadConfig({ ...LIVE, PIX_WEBHOOK_PUBLIC_URL: 'https://tunnel.example/hooks' })),
      /reaches at https:\/\/tunnel\.example\/hooks \(PIX_WEBHOOK_PUBLIC_URL\)$/,
    );
    const remote = webhookCollection(
      loadConfig({
        ...LIVE,
        PIX_WEBHOOK_RECEIVER_URL: 'https://receiver.example/base',
        PIX_WEBHOOK_RECEIVER_TOKEN: token,
      }),
    );
    assert.match(
      remote,
      /^the remote receiver at https:\/\/receiver\.example\/base \(PIX_WEBHOOK_RECEIVER_URL\)/,
    );
    assert.ok(!remote.includes(token));
  });
});
