/**
 * The command pix-certify client certifies cannot reach the signer: its environment holds none of
 * the suite's own PIX_* variables (never PIX_SIGNING_KEY_FILE), and every process it leaves running
 * (in its group, or in a session of its own) is ended and named before the run goes on.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { commandEnvironment, runCommand } from '../src/run/command-under-test.ts';
import { alive } from './support/process-alive.ts';

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
  });
  assert.equal(run.exitCode, 0, told.join('\n'));
  assert.equal(run.leftovers.length, 1, JSON.stringify(run.leftovers));
  const [leftover] = run.leftovers;
  assert.match(leftover?.command ?? '', /left-behind/);
  assert.equal(alive(leftover?.pid ?? 0), false, 'the child was ended');
}); // prettier-ignore
