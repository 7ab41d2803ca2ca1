/**
 * pix-certify client --readings: the readings chosen by name, and the command run once per reading in
 * a namespace playing it, with the variables that reading needs (PIX_TOKEN_FIELD), several at once.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { startSandbox } from '../sandbox/server.ts';
import { readClientSettings } from '../src/config/client-settings.ts';
import { chooseReadings, runClientReadings, type Reading } from '../src/run/client-readings.ts';

const KNOWN: Reading[] = [
  { name: 'simulator', description: 'the default', clientEnv: {} },
  { name: 'refuses-401', description: '401 for credentials', clientEnv: {} },
  { name: 'token-field', description: '{token, expiresIn}', clientEnv: { PIX_TOKEN_FIELD: 'token' } },
];

test('--readings takes all or names, and names the readings there are for an unknown one', () => {
  assert.deepEqual(chooseReadings('all', KNOWN), KNOWN);
  assert.deepEqual(
    (chooseReadings('token-field, simulator', KNOWN) as Reading[]).map((r) => r.name),
    ['simulator', 'token-field'],
  );
  assert.match(chooseReadings('slow,simulator', KNOWN) as string, /no reading slow; give all or some of simulator, refuses-401, token-field/);
  assert.match(chooseReadings(' , ', KNOWN) as string, /no reading named/);
}); // prettier-ignore

test('the command runs once per reading, in a namespace playing it, with the variables it needs', async () => {
  // The command asks for a token, and for one with a client_id that is not its own; it writes what it was answered.
  const script = `import { writeFileSync } from 'node:fs';
const ask = (id) => fetch(process.env.PIX_BASE_URL + '/auth/token', { method: 'POST', headers: { Accept: 'application/json', client_id: id, cert_client: process.env.PIX_CERT_CLIENT } });
const keys = Object.keys(await (await ask(process.env.PIX_CLIENT_ID)).json());
const wrong = (await ask('not-' + process.env.PIX_CLIENT_ID)).status;
writeFileSync(process.env.READINGS_PROBE_DIR + '/' + process.env.PIX_CLIENT_ID, JSON.stringify({ field: process.env.PIX_TOKEN_FIELD ?? null, keys, wrong }));`;
  const dir = mkdtempSync(join(tmpdir(), 'pix-readings-'));
  process.env.READINGS_PROBE_DIR = dir;
  try {
    const settings = readClientSettings({ PIX_CLIENT_WEBHOOK_WAIT_S: '1' });
    const invocation = { command: [process.execPath, '--input-type=module', '-e', script], serve: false, serveMs: 0, handler: undefined, host: '127.0.0.1', port: 0, timeoutS: 60, readings: 'all' };
    const told: string[] = [];
    let seen: { reading: string; probe: unknown }[] = [];
    const exit = await runClientReadings(invocation, settings, KNOWN, {
      startSimulator: startSandbox,
      tell: (line) => told.push(line),
      certify: (runs) => {
        seen = runs.map(({ reading, evidence }) => ({
          reading: reading.name,
          probe: JSON.parse(readFileSync(join(dir, `sim-${evidence.run.journal.namespace}`), 'utf8')) as unknown,
        }));
        return Promise.resolve(7);
      },
    });
    assert.equal(exit, 7, "the exit code is the certification's");
    assert.deepEqual(seen, [
      { reading: 'simulator', probe: { field: null, keys: ['access_token', 'token_type', 'expires_in'], wrong: 403 } },
      { reading: 'refuses-401', probe: { field: null, keys: ['access_token', 'token_type', 'expires_in'], wrong: 401 } },
      { reading: 'token-field', probe: { field: 'token', keys: ['token', 'expiresIn'], wrong: 403 } },
    ]);
    assert.ok(told.some((line) => line.startsWith('token-field: the command exited 0')), told.join('\n'));
  } finally {
    delete process.env.READINGS_PROBE_DIR;
    rmSync(dir, { recursive: true, force: true });
  }
}); // prettier-ignore
