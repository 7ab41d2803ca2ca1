/**
 * The command pix-certify client certifies cannot reach the signer: its environment holds none of
 * the suite's own PIX_* variables (never PIX_SIGNING_KEY_FILE), and every process it leaves running
 * (in its group, or in a session of its own) is ended and named before the run goes on.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { test } from 'node:test';
import { commandEnvironment, runCommand } from '../src/run/command-under-test.ts';
import { registerSecret } from '../src/secrets/registry.ts';
import { secretRunsIn } from './support/leaks.ts';
import { alive } from './support/process-alive.ts';
import { temporaryDir } from './support/temporary.ts';

const NAMESPACE = {
  PIX_BASE_URL: 'http://127.0.0.1:1/ns/x',
  PIX_CLIENT_ID: 'id',
  PIX_CLIENT_SECRET: 'namespace-secret-for-this-test-only',
  PIX_CERT_CLIENT: 'Y2VydA==',
  PIX_CERT_FILE: '/tmp/cert.pem',
};

test("the command's environment: the namespace's five variables and the caller's own, none of the suite's", () => {
  const env = commandEnvironment(
    {
      HOME: '/home/me',
      APP_SETTING: 'kept',
      PIX_SIGNING_KEY_FILE: '/keys/signing.pem',
      PIX_REPORT_DIR: 'reports',
      PIX_STRICT: '1',
      PIX_RUN_ID: 'internal',
      PIX_BASE_URL: 'https://provider.example',
      PIX_CLIENT_SECRET: 'the caller-s own secret',
    },
    NAMESPACE,
  );
  assert.deepEqual(env, { HOME: '/home/me', APP_SETTING: 'kept', ...NAMESPACE });
});

test('a child the command started in a session of its own is ended and named once the command exits', {
  skip: process.platform !== 'linux' && 'reads /proc',
}, async () => {
  const child = `require('node:child_process').spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)', 'left-behind'], { detached: true, stdio: 'ignore' }).unref()`;
  const told: string[] = [];
  const run = await runCommand({
    words: [process.execPath, '-e', child],
    env: commandEnvironment(process.env, NAMESPACE),
    timeoutS: 30,
    marker: `PIX_CLIENT_SECRET=${NAMESPACE.PIX_CLIENT_SECRET}`,
    tell: (line) => told.push(line),
    output: { stdout: new PassThrough().resume(), stderr: new PassThrough().resume() },
  });
  assert.equal(run.exitCode, 0, told.join('\n'));
  assert.equal(run.leftovers.length, 1, JSON.stringify(run.leftovers));
  const [leftover] = run.leftovers;
  assert.match(leftover?.command ?? '', /left-behind/);
  assert.equal(alive(leftover?.pid ?? 0), false, 'the child was ended');
}); // prettier-ignore

/** A stream that keeps what is written to it. */
function collected(): { stream: PassThrough; text: () => string } {
  const chunks: Buffer[] = [];
  const stream = new PassThrough();
  stream.on('data', (chunk: Buffer) => chunks.push(chunk));
  return { stream, text: () => Buffer.concat(chunks).toString() };
}

test("the command's output reaches the console with its secret and every token issued meanwhile masked, even split across two writes, its colours kept", async () => {
  const secret = randomBytes(32).toString('hex');
  const token = randomBytes(32).toString('hex');
  registerSecret(secret);
  const go = join(temporaryDir('pix-console-'), 'go');
  // Prints the secret on both outputs, then, once told the token was issued, the token in two writes apart.
  const script = `const wait = () => new Promise((r) => setTimeout(r, 20));
process.stdout.write('\\u001b[32msecret ' + process.env.PIX_CLIENT_SECRET.slice(0, 30));
await wait();
process.stdout.write(process.env.PIX_CLIENT_SECRET.slice(30) + '\\u001b[0m\\n');
process.stderr.write('secret on stderr ' + process.env.PIX_CLIENT_SECRET + '\\n');
process.stdout.write('ready\\n');
while (!(await import('node:fs')).existsSync(process.env.GO)) await wait();
process.stdout.write('token ' + process.env.TOKEN.slice(0, 40));
await wait();
process.stdout.write(process.env.TOKEN.slice(40) + '\\n');`;
  const stdout = collected();
  const stderr = collected();
  // The simulator registers a token as it issues it: here once the command is running.
  stdout.stream.on('data', () => {
    if (!stdout.text().includes('ready') || existsSync(go)) return;
    registerSecret(token, 'token');
    writeFileSync(go, '');
  });
  const run = await runCommand({
    words: [process.execPath, '--input-type=module', '-e', script],
    env: commandEnvironment(process.env, { ...NAMESPACE, PIX_CLIENT_SECRET: secret, TOKEN: token, GO: go }),
    timeoutS: 30,
    marker: `PIX_CLIENT_SECRET=${secret}`,
    tell: () => undefined,
    output: { stdout: stdout.stream, stderr: stderr.stream },
  });
  assert.equal(run.exitCode, 0, stderr.text());
  assert.equal(
    stdout.text(),
    `\u001b[32msecret ***(64 chars)\u001b[0m\nready\ntoken ***(64 chars, …${token.slice(-4)})\n`,
  );
  assert.equal(stderr.text(), 'secret on stderr ***(64 chars)\n');
  for (const value of [secret, token])
    assert.deepEqual(secretRunsIn(stdout.text() + stderr.text(), value), []);
});
