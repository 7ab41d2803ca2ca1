/**
 * The simulator bounded in bytes (issue 50): 550 requests with a code of about 1 MB, no credentials,
 * knowing only a namespace's name. The sandbox runs as its own process, so its resident memory is its
 * own: what it keeps grows 64 MB at most, and the namespace's journal still answers 200 with what was dropped.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { join } from 'node:path';
import { after, before, it } from 'node:test';

const ROOT = join(import.meta.dirname, '..', '..');
const MB = 1024 * 1024;

const sandbox = spawn(
  process.execPath,
  ['--expose-gc', '--import', 'tsx', join(ROOT, 'selftest', 'support', 'sandbox-process.ts')],
  {
    cwd: ROOT,
    stdio: ['pipe', 'pipe', 'inherit'],
  },
);
const lines = createInterface({ input: sandbox.stdout })[Symbol.asyncIterator]();
let url = '';
let controlToken = '';

/** The next line the sandbox's process prints. */
async function nextLine(): Promise<string> {
  const next: IteratorResult<string> = await lines.next();
  assert.ok(next.done !== true, 'the sandbox process ended');
  return next.value;
}

/** Resident memory of the sandbox's process once its garbage is collected: what it keeps. */
async function rssBytes(): Promise<number> {
  sandbox.stdin.write('rss\n');
  return Number(await nextLine());
}

before(async () => {
  const started = JSON.parse(await nextLine()) as { url: string; controlToken: string };
  url = started.url;
  controlToken = started.controlToken;
});

after(() => {
  sandbox.stdin.end();
});

const control = (method: string, path: string, body?: unknown): Promise<Response> =>
  fetch(`${url}${path}`, {
    method,
    headers: { authorization: `Bearer ${controlToken}` },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });

/** `count` withdrawals with a code of about 1 MB and no credentials, `width` at a time. */
async function flood(count: number, width: number): Promise<void> {
  const body = JSON.stringify({ amount: 0.01, code: 'c'.repeat(MB - 200), name: 'x', key_type: 'EVP', document: '1', key_pix: 'k', PostBackUrl: 'http://127.0.0.1:9/' });
  for (let sent = 0; sent < count; sent += width) {
    await Promise.all(Array.from({ length: Math.min(width, count - sent) }, async () => {
      const answer = await fetch(`${url}/ns/flooded/pix/payment`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
      assert.equal(answer.status, 400, "refused: no Accept, no credentials");
      await answer.arrayBuffer();
    }));
  }
} // prettier-ignore

it('550 unauthenticated 1 MB codes: the sandbox grows 64 MB at most and the journal answers 200', async () => {
  assert.equal((await control('POST', '/_sim/namespaces', { name: 'flooded' })).status, 201);
  await flood(50, 10);
  const before = await rssBytes();
  await flood(550, 10);
  const journal = await control('GET', '/_sim/namespaces/flooded/journal');
  assert.equal(journal.status, 200);
  const { requests, dropped } = (await journal.json()) as { requests: { code?: string; body: { text?: string } }[]; dropped: { requests: number } };
  const grown = (await rssBytes()) - before;
  process.stdout.write(`# the sandbox grew ${(grown / MB).toFixed(1)} MB; the journal keeps ${requests.length} requests, dropped ${dropped.requests}\n`);
  assert.ok(grown <= 64 * MB, `grew ${(grown / MB).toFixed(1)} MB`);
  assert.equal(requests.length + dropped.requests, 600, 'every request kept or counted as dropped');
  assert.ok(requests.every((r) => (r.code?.length ?? 0) <= 257 && (r.body.text?.length ?? 0) <= 4097), 'codes and refused bodies are journaled cut');
}); // prettier-ignore
