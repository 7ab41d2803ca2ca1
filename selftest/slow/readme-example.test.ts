/**
 * The README's live example, run as a user runs it: the block after `<!-- live-example -->` as
 * written, changing only what the README tells a user to change (the address, the credentials, the
 * certificate file) and leaving out the lines it names for a run on one machine. Against the sandbox
 * that is a complete certification; with the placeholder webhook address left in, the run stops with
 * exit 2 naming PIX_WEBHOOK_PUBLIC_URL before any withdrawal (the ledger is written before each).
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parseEnv } from 'node:util';
import { scenarioUrl, startSandbox, type RunningSandbox } from '../../sandbox/server.ts';
import { runSuite, stopLines, type SuiteRun } from '../support/run-suite.ts';
import { temporaryDir } from '../support/temporary.ts';

const README = readFileSync(join(import.meta.dirname, '..', '..', 'README.md'), 'utf8');

/** The .env the live example writes, and the command it then runs. */
function liveExample(markdown: string): { env: Record<string, string>; command: string } {
  const after = markdown.split('<!-- live-example -->')[1] ?? '';
  const block = /```sh\n([\s\S]*?)```/.exec(after)?.[1] ?? '';
  const dotenv = /cat > \.env <<'EOF'\n([\s\S]*?)\nEOF\n/.exec(block)?.[1];
  assert.ok(dotenv !== undefined, 'the live example writes .env with a here-document');
  const command = block.split('\nEOF\n')[1]?.trim() ?? '';
  return { env: parseEnv(dotenv) as Record<string, string>, command };
}

/** The variables the README says to leave out on one machine, in the order it names them. */
function leftOutOnOneMachine(markdown: string): string[] {
  const sentence = /leave out the last\s+two lines\*\*,([^:]*):/.exec(markdown)?.[1] ?? '';
  return [...sentence.matchAll(/`(PIX_[A-Z_]+)`/g)].map((match) => match[1] ?? '');
}

/** A port free on loopback now, for the receiver a tunnel would forward to (PIX_WEBHOOK_PORT). */
function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolvePort(typeof address === 'object' && address !== null ? address.port : 0));
    });
  });
}

describe("the README's live example, run against the sandbox", () => {
  const example = liveExample(README);
  let sandbox: RunningSandbox;
  let work: string;
  let onOneMachine: SuiteRun;
  let withPlaceholder: SuiteRun;
  let throughTunnel: SuiteRun;
  let tunnel: string;

  before(
    async () => {
      sandbox = await startSandbox();
      work = temporaryDir('pix-readme-');
      const certFile = join(work, 'client-public-key.pem');
      writeFileSync(certFile, Buffer.from(sandbox.credentials.certClient, 'base64'));
      // What a user changes: the address, the credentials and the certificate file; nothing else.
      const changed: Record<string, string> = {
        PIX_BASE_URL: scenarioUrl(sandbox, 'reference'),
        PIX_CLIENT_ID: sandbox.credentials.clientId,
        PIX_CLIENT_SECRET: sandbox.credentials.clientSecret,
        PIX_CERT_FILE: certFile,
      };
      for (const name of Object.keys(changed))
        assert.ok(name in example.env, `the live example sets ${name}`);
      const asWritten = { ...example.env, ...changed };
      const leftOut = Object.fromEntries(
        Object.entries(asWritten).filter(([name]) => !leftOutOnOneMachine(README).includes(name)),
      );
      // A tunnel stands in for the address this machine's receiver is reached at: its own port.
      const port = await freePort();
      tunnel = `http://127.0.0.1:${port}`;
      [onOneMachine, withPlaceholder, throughTunnel] = await Promise.all([
        runSuite({ ...leftOut, PIX_REPORT_DIR: join(work, 'one-machine') }),
        runSuite({ ...asWritten, PIX_REPORT_DIR: join(work, 'placeholder') }),
        runSuite({
          ...asWritten,
          PIX_WEBHOOK_PUBLIC_URL: tunnel,
          PIX_WEBHOOK_PORT: String(port),
          PIX_REPORT_DIR: join(work, 'tunnel'),
        }),
      ]);
    },
    { timeout: 170_000 },
  );
  after(async () => {
    await sandbox.close();
    rmSync(work, { recursive: true, force: true });
  });

  it('runs the installed command, and names the two webhook lines as the last two to leave out on one machine', () => {
    assert.equal(example.command, 'npx pix-certify');
    const lastTwo = README.split('<!-- live-example -->')[1]
      ?.split('\nEOF\n')[0]
      ?.trim()
      .split('\n')
      .slice(-2);
    assert.deepEqual(
      lastTwo?.map((line) => line.split('=')[0]),
      leftOutOnOneMachine(README),
    );
    assert.deepEqual(leftOutOnOneMachine(README), ['PIX_WEBHOOK_PUBLIC_URL', 'PIX_WEBHOOK_PORT']);
  });

  it('on one machine, as the README says: certifies the sandbox completely, PASSED, exit 0', () => {
    assert.equal(onOneMachine.code, 0, onOneMachine.stdout.slice(-3000) + onOneMachine.stderr);
    assert.equal(onOneMachine.report?.verdict, 'PASSED', onOneMachine.stdout.slice(-3000));
    assert.equal(onOneMachine.report.complete, true);
    assert.deepEqual(onOneMachine.idsWith('SKIPPED'), []);
  });

  it('with the placeholder webhook address left in: exit 2 in one line naming PIX_WEBHOOK_PUBLIC_URL, no withdrawal sent', () => {
    assert.equal(withPlaceholder.code, 2, withPlaceholder.stdout + withPlaceholder.stderr);
    const [line, ...more] = stopLines(withPlaceholder);
    assert.deepEqual(more, []);
    assert.match(
      line ?? '',
      /^PIX_WEBHOOK_PUBLIC_URL: 'https:\/\/your-tunnel\.example' does not reach the run's webhook receiver: .* No withdrawal was sent\.$/,
    );
    assert.equal(existsSync(join(withPlaceholder.reportDir, 'ledger.jsonl')), false);
    assert.equal(withPlaceholder.report, undefined);
  });

  it('with an address that reaches the receiver: proves it before the first withdrawal, and certifies', () => {
    assert.equal(throughTunnel.code, 0, throughTunnel.stdout.slice(-3000) + throughTunnel.stderr);
    assert.ok(
      throughTunnel.stdout.includes(`  proven: a test POST through ${tunnel} reached the receiver\n`),
      throughTunnel.stdout.slice(0, 3000),
    );
    assert.equal(throughTunnel.report?.verdict, 'PASSED');
  });
});
