/**
 * Self-test of the standalone receiver (npm run receiver) as its own process, as it is deployed: its
 * configuration errors, the suite certifying the sandbox through it (and two runs at once never
 * seeing each other's deliveries), a wrong token, a restart between delivery and poll, and mutual
 * TLS with a CA made here. Everything on 127.0.0.1; every process started here is stopped here.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { startSandbox, type RunningSandbox } from '../sandbox/server.ts';
import { loadConfig } from '../src/config/config.ts';
import { loadTarget } from '../src/run/target.ts';
import { ReceiverConnection, WebhookClient } from '../src/webhook/receiver-client.ts';
import type { Delivery } from '../src/evidence/delivery.ts';
import { remoteReceiverOf } from '../src/webhook/setup.ts';
import { loadReceiverSettings } from '../src/receiver/settings.ts';
import { certificateAuthority, type Certificate } from './support/certificates.ts';
import { sandboxEnv } from './support/live-env.ts';
import { send, type Answer } from './support/receiver-requests.ts';
import { runSuite, TYPESCRIPT_LOADER } from './support/run-suite.ts';
import { ConfigError } from '../src/config/errors.ts';
import { temporaryDir } from './support/temporary.ts';

const ROOT = join(import.meta.dirname, '..');
const TOKEN = 'selftest-service-token-0123456789abcdef';
const START_TIMEOUT_MS = 20_000;

interface Service {
  readonly url: string;
  readonly child: ChildProcess;
  /** What it printed so far, stdout and stderr together. */
  output(): string;
  /** Ends the process (SIGTERM, or SIGKILL as a crash would) and resolves once it has exited. */
  stop(signal?: NodeJS.Signals): Promise<void>;
}

/** Only the variables given: nothing of this process's PIX_* reaches the receiver. */
function receiverEnvironment(env: Record<string, string>): NodeJS.ProcessEnv {
  const base = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('PIX_')));
  return { ...base, ...env };
}

function spawnReceiver(env: Record<string, string>): ChildProcess {
  return spawn(process.execPath, ['--import', TYPESCRIPT_LOADER, join(ROOT, 'bin', 'receiver.ts')], {
    cwd: ROOT,
    env: receiverEnvironment(env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/** Starts npm run receiver's program and resolves once it says where it listens. */
function startService(env: Record<string, string>): Promise<Service> {
  const child = spawnReceiver(env);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async (signal: NodeJS.Signals = 'SIGTERM'): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    await exited;
  };
  return new Promise((resolve, reject) => {
    let output = '';
    const timer = setTimeout(() => {
      void stop('SIGKILL');
      reject(new Error(`the receiver did not start within ${START_TIMEOUT_MS} ms: ${output}`));
    }, START_TIMEOUT_MS);
    const read = (chunk: Buffer): void => {
      output += chunk.toString('utf8');
      // One line says where it is bound; how this machine reaches it is in parentheses.
      const url = /^pix-certify receiver: bound to \S+, [^(]*\((https?:\/\/[^\s)]+)/m.exec(output)?.[1];
      if (url === undefined) return;
      clearTimeout(timer);
      resolve({ url, child, stop, output: () => output });
    };
    child.stdout?.on('data', read);
    child.stderr?.on('data', read);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the receiver exited with ${String(code)} before listening: ${output}`));
    });
  });
}

/** Runs the receiver with a configuration it must refuse: its exit code and what it printed. */
function refusal(env: Record<string, string>): Promise<{ code: number | null; stderr: string }> {
  const child = spawnReceiver(env);
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  return new Promise((resolve) => child.once('exit', (code) => resolve({ code, stderr })));
}

test('a configuration the receiver cannot serve is one line naming the variable', () => {
  const dir = temporaryDir('pix-receiver-config-');
  const missing = join(dir, 'missing.pem');
  const cases: [string, Record<string, string>][] = [
    ['PIX_RECEIVER_TOKEN', {}],
    ['PIX_RECEIVER_TOKEN', { PIX_RECEIVER_TOKEN: 'too-short' }],
    ['PIX_RECEIVER_TLS_KEY_FILE', { PIX_RECEIVER_TLS_CERT_FILE: join(ROOT, 'package.json') }],
    [
      'PIX_RECEIVER_TLS_CERT_FILE',
      { PIX_RECEIVER_TLS_CERT_FILE: missing, PIX_RECEIVER_TLS_KEY_FILE: missing },
    ],
    [
      'PIX_RECEIVER_TLS_KEY_FILE',
      {
        PIX_RECEIVER_TLS_CERT_FILE: join(ROOT, 'package.json'),
        PIX_RECEIVER_TLS_KEY_FILE: join(ROOT, 'package.json'),
      },
    ],
    ['PIX_RECEIVER_CLIENT_CA_FILE', { PIX_RECEIVER_CLIENT_CA_FILE: join(ROOT, 'package.json') }],
    ['PIX_RECEIVER_REQUIRE_CLIENT_CERT', { PIX_RECEIVER_REQUIRE_CLIENT_CERT: '1' }],
    ['PIX_RECEIVER_REQUIRE_CLIENT_CERT', { PIX_RECEIVER_REQUIRE_CLIENT_CERT: 'yes' }],
    ['PIX_RECEIVER_REQUIRE_CLIENT_CRT', { PIX_RECEIVER_REQUIRE_CLIENT_CRT: '1' }],
    ['PIX_RECEIVER_PORT', { PIX_RECEIVER_PORT: '70000' }],
  ];
  for (const [variable, env] of cases) {
    const token = variable === 'PIX_RECEIVER_TOKEN' ? {} : { PIX_RECEIVER_TOKEN: TOKEN };
    assert.throws(
      () => loadReceiverSettings({ ...token, ...env }),
      (error: unknown) =>
        error instanceof ConfigError && error.variable === variable && !error.message.includes('\n'),
      `${JSON.stringify(env)} should name ${variable}`,
    );
  }
});

test('npm run receiver without a token exits 2 with that one line, and starts nothing', async () => {
  const { code, stderr } = await refusal({});
  assert.equal(code, 2);
  assert.match(
    stderr,
    /^pix-certify receiver: PIX_RECEIVER_TOKEN: is not set; it protects the control API\. .+\n$/,
  );
});

describe("the suite's receiver variables", () => {
  const live = {
    PIX_BASE_URL: 'https://provider.example.test',
    PIX_CLIENT_ID: 'client',
    PIX_CLIENT_SECRET: 'client-secret-0000',
    PIX_CERT_CLIENT: Buffer.from('public key').toString('base64'),
  };
  const remote = {
    PIX_WEBHOOK_RECEIVER_URL: 'https://hooks.example.test/pix/',
    PIX_WEBHOOK_RECEIVER_TOKEN: TOKEN,
  };

  test('name the variable to fix when they cannot work', () => {
    const cases: [string, Record<string, string>][] = [
      ['PIX_WEBHOOK_RECEIVER_TOKEN', { PIX_WEBHOOK_RECEIVER_URL: remote.PIX_WEBHOOK_RECEIVER_URL }],
      ['PIX_WEBHOOK_RECEIVER_TOKEN', { ...remote, PIX_WEBHOOK_RECEIVER_TOKEN: 'short' }],
      ['PIX_WEBHOOK_RECEIVER_URL', { PIX_WEBHOOK_RECEIVER_TOKEN: TOKEN }],
      ['PIX_WEBHOOK_RECEIVER_URL', { ...remote, PIX_WEBHOOK_RECEIVER_URL: 'hooks.example.test' }],
      ['PIX_WEBHOOK_RECEIVER_URL', { ...remote, PIX_WEBHOOK_RECEIVER_URL: 'http://hooks.example.test' }],
      [
        'PIX_WEBHOOK_RECEIVER_URL',
        { ...remote, PIX_WEBHOOK_RECEIVER_URL: 'https://user:pw@hooks.example.test' },
      ],
      ['PIX_WEBHOOK_PUBLIC_URL', { ...remote, PIX_WEBHOOK_PUBLIC_URL: 'https://tunnel.example.test' }],
    ];
    for (const [variable, env] of cases)
      assert.throws(
        () => remoteReceiverOf(loadConfig({ ...live, ...env })),
        (error: unknown) => error instanceof ConfigError && error.variable === variable,
        `${JSON.stringify(env)} should name ${variable}`,
      );
    assert.deepEqual(remoteReceiverOf(loadConfig({ ...live, ...remote })), {
      url: 'https://hooks.example.test/pix',
      token: TOKEN,
    });
    assert.equal(remoteReceiverOf(loadConfig(live)), undefined);
  });

  test('with a remote receiver, a provider elsewhere can reach the webhook checks', () => {
    const internal = {
      PIX_RUN_ID: 'run',
      PIX_WEBHOOK_CONTROL_URL: 'http://127.0.0.1:1',
      PIX_WEBHOOK_CONTROL_TOKEN: TOKEN,
    };
    // loadTarget reads the run state from this process's environment, as a worker does.
    const missing = (env: Record<string, string>): string | undefined => {
      Object.assign(process.env, env);
      try {
        return loadTarget(loadConfig()).missing('webhook');
      } finally {
        for (const name of Object.keys(env)) Reflect.deleteProperty(process.env, name);
      }
    };
    assert.match(missing({ ...live, ...internal }) ?? '', /PIX_WEBHOOK_RECEIVER_URL/);
    assert.equal(missing({ ...live, ...internal, ...remote }), undefined);
  });
});

describe('the receiver as a service, used by the suite', () => {
  let sandbox: RunningSandbox;
  let service: Service;
  let dataDir: string;
  const sandboxLog: string[] = [];

  const receiverVariables = (token = TOKEN): Record<string, string> => ({
    PIX_WEBHOOK_RECEIVER_URL: service.url,
    PIX_WEBHOOK_RECEIVER_TOKEN: token,
  });
  const serviceEnv = (): Record<string, string> => ({
    PIX_RECEIVER_TOKEN: TOKEN,
    PIX_RECEIVER_PORT: '0',
    PIX_RECEIVER_DATA_DIR: dataDir,
  });

  before(async () => {
    dataDir = temporaryDir('pix-receiver-service-');
    [sandbox, service] = await Promise.all([
      startSandbox({ log: (line) => sandboxLog.push(line) }),
      startService(serviceEnv()),
    ]);
  });
  after(async () => {
    await Promise.all([sandbox.close(), service.stop()]);
  });

  test('answers the control API 401 without the token', async () => {
    const health = await send(`${service.url}/_receiver/v1/health`, { method: 'GET' });
    const runs = await send(`${service.url}/_receiver/v1/runs?base=${encodeURIComponent(service.url)}`);
    assert.deepEqual([health.status, runs.status], [401, 401]);
  });

  test("certifies the sandbox's webhook through it while another run, at the same time, gets none", async () => {
    const args = ['--grep', '@webhook'];
    const [reference, none] = await Promise.all([
      // A selected run is INCOMPLETE, which a live run only lets pass when asked to.
      runSuite(sandboxEnv(sandbox, 'reference', { ...receiverVariables(), PIX_REQUIRE_COMPLETE: '0' }), args),
      runSuite(sandboxEnv(sandbox, 'webhook-none', receiverVariables()), args),
    ]);
    assert.equal(reference.verdictOf('WEBHOOK-DELIVERED'), 'PASSED', reference.stdout.slice(-3000));
    assert.equal(reference.code, 0, reference.stdout.slice(-3000));
    assert.equal(none.verdictOf('WEBHOOK-DELIVERED'), 'FAILED', none.stdout.slice(-3000));
    assert.equal(none.code, 1);
    // The report says the webhooks came through this receiver, and never shows its token.
    const { options } = reference.report?.run as { options: Record<string, unknown> };
    const collection = String(options.webhookCollection);
    assert.ok(collection.startsWith(`the remote receiver at ${service.url}`), collection);
    assert.ok(!readFileSync(join(reference.reportDir, 'certification.html'), 'utf8').includes(TOKEN));
    // The service told each run it opened and closed, by a digest of its key, never the key: each suite
    // run opened two, the probe of its webhook address before its first withdrawal and its own.
    const log = service.output();
    assert.equal(
      log.match(/^pix-certify receiver: run [0-9a-f]{8} opened, webhooks under /gm)?.length,
      4,
      log,
    );
    assert.equal(
      log.match(/^pix-certify receiver: run [0-9a-f]{8} closed by its suite run: /gm)?.length,
      4,
      log,
    );

    // The reference run's webhooks went to its own addresses; the other run never saw one of them.
    const delivered = sandboxLog.flatMap((line) => /^webhook POST (\S+) -> 200 /.exec(line)?.[1] ?? []);
    assert.ok(delivered.length > 0, sandboxLog.join('\n'));
    const otherReport = readFileSync(join(none.reportDir, 'certification.json'), 'utf8');
    for (const url of delivered)
      assert.ok(!otherReport.includes(new URL(url).pathname), `${url} reached the other run`);
    // Each run unregistered its addresses at its end: nothing of them is left on the receiver's disk.
    assert.deepEqual(
      readdirSync(dataDir).filter((name) => name.endsWith('.jsonl')),
      [],
    );
  });

  test('refuses the first webhook of the retry probe for the run, and records the retry that follows', async () => {
    const env = sandboxEnv(sandbox, 'retrying', {
      ...receiverVariables(),
      PIX_WEBHOOK_RETRY_WAIT_S: '3',
      PIX_REQUIRE_COMPLETE: '0',
    });
    const run = await runSuite(env, ['--grep', 'sends again a webhook']);
    assert.equal(run.code, 0, run.stdout.slice(-3000));
    const observations = (run.report?.observations ?? []) as { topic: string; value: unknown }[];
    const retry = observations.find((o) => o.topic === 'webhook.retry');
    assert.deepEqual(
      { ...(retry?.value as Record<string, unknown>), afterSeconds: 'not pinned' },
      { retried: true, attempts: 2, afterSeconds: 'not pinned', waitSeconds: 3, refusedWith: 503 },
      JSON.stringify(observations),
    );
  });

  test('a wrong token stops the run with exit 2 and one line naming PIX_WEBHOOK_RECEIVER_TOKEN', async () => {
    const run = await runSuite(sandboxEnv(sandbox, 'reference', receiverVariables(`${TOKEN}-wrong`)));
    assert.equal(run.code, 2);
    assert.match(run.stderr.trim(), /^pix-certify: PIX_WEBHOOK_RECEIVER_TOKEN: .*401/);
    assert.equal(run.stderr.trim().split('\n').length, 1);
    assert.equal(run.report, undefined, 'a run was started');
  });

  test('a restart between delivery and poll loses nothing', async () => {
    const connection = new ReceiverConnection(service.url, TOKEN);
    const runUrl = await connection.openRun(service.url);
    const { path, url } = await new WebhookClient(runUrl, TOKEN).register();
    assert.equal(
      (await send(url, { headers: { 'content-type': 'application/json' }, body: '{"status":"PAID"}' }))
        .status,
      200,
    );

    // SIGKILL: no chance to flush anything on the way out, as in a crash.
    await service.stop('SIGKILL');
    service = await startService({ ...serviceEnv(), PIX_RECEIVER_PORT: new URL(service.url).port });
    const report = await new WebhookClient(runUrl, TOKEN).snapshot(path);
    assert.deepEqual(
      report.deliveries.map((d) => [d.outcome, d.body]),
      [['matched', '{"status":"PAID"}']],
    );
    await connection.closeRun(runUrl);
  });
});

describe('mutual TLS for webhooks, with a CA made here', () => {
  let dir: string;
  let service: Service;
  const file = (name: string): string => join(dir, name);
  const pem = (name: string): string => readFileSync(file(name), 'utf8');

  /** `name`.pem and `name`.key in the test's directory. */
  function write(name: string, { cert, key }: Certificate): void {
    writeFileSync(file(`${name}.pem`), cert);
    writeFileSync(file(`${name}.key`), key);
  }

  before(async () => {
    dir = temporaryDir('pix-receiver-tls-');
    const ca = certificateAuthority('Selftest Client CA');
    write('ca', ca);
    write('server', ca.issue({ names: ['127.0.0.1'] }));
    write('provider', ca.issue({ client: '/O=Provider Test/CN=webhooks.provider.test' }));
    write('stranger', certificateAuthority('not from the CA'));
    service = await startService({
      PIX_RECEIVER_TOKEN: TOKEN,
      PIX_RECEIVER_PORT: '0',
      PIX_RECEIVER_DATA_DIR: file('data'),
      PIX_RECEIVER_TLS_CERT_FILE: file('server.pem'),
      PIX_RECEIVER_TLS_KEY_FILE: file('server.key'),
      // The server's certificate is signed by the same CA here, so one file lets the test trust it too.
      PIX_RECEIVER_CLIENT_CA_FILE: file('ca.pem'),
      PIX_RECEIVER_REQUIRE_CLIENT_CERT: '1',
    });
  });
  after(() => service.stop());

  test('records the client certificate of a delivery, and refuses one without a certificate the CA signed', async () => {
    const control = async (method: string, route: string): Promise<Answer> =>
      send(`${service.url}/_receiver/v1${route}`, {
        method,
        headers: { authorization: `Bearer ${TOKEN}` },
        tls: { ca: pem('ca.pem') },
      });
    const { run } = JSON.parse(
      (await control('POST', `/runs?base=${encodeURIComponent(service.url)}`)).body,
    ) as { run: string };
    const { path, url } = JSON.parse((await control('POST', `/runs/${run}/addresses`)).body) as {
      path: string;
      url: string;
    };

    const post = async (tls: { cert?: string; key?: string }): Promise<number> =>
      (await send(url, { body: '{"status":"PAID"}', tls: { ca: pem('ca.pem'), ...tls } })).status;
    assert.equal(await post({ cert: pem('provider.pem'), key: pem('provider.key') }), 200);
    assert.equal(await post({}), 403);
    assert.equal(await post({ cert: pem('stranger.pem'), key: pem('stranger.key') }), 403);

    const report = JSON.parse((await control('GET', `/runs/${run}/addresses${path}`)).body) as {
      deliveries: Delivery[];
    };
    const seen = report.deliveries.map(({ outcome, answeredStatus, clientCertificate: c }) => [
      outcome,
      answeredStatus,
      c?.presented === true ? [c.authorized, c.subject, c.issuer, c.authorizationError !== null] : c,
    ]);
    assert.deepEqual(seen, [
      ['matched', 200, [true, 'O=Provider Test, CN=webhooks.provider.test', 'CN=Selftest Client CA', false]],
      ['refused', 403, { presented: false }],
      ['refused', 403, [false, 'CN=not from the CA', 'CN=not from the CA', true]],
    ]);
    const first = report.deliveries[0]?.clientCertificate;
    assert.match(first?.presented === true ? first.fingerprint256 : '', /^([0-9A-F]{2}:){31}[0-9A-F]{2}$/);
    assert.equal((await control('DELETE', `/runs/${run}`)).status, 204);
  });
});
