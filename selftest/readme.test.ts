/**
 * The README a user reads first: short, every link resolving, and its live example complete. The
 * example is taken from the README as written (the block after `<!-- live-example -->`), its address,
 * credentials and webhook address replaced by the sandbox's and this machine's, and run to a complete
 * certification.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parseEnv } from 'node:util';
import { scenarioUrl, startSandbox, type RunningSandbox } from '../sandbox/server.ts';
import { runSuite, type SuiteRun } from './support/run-suite.ts';
import { temporaryDir } from './support/temporary.ts';

const ROOT = join(import.meta.dirname, '..');
const README = join(ROOT, 'README.md');
const text = readFileSync(README, 'utf8');

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens. */
const slug = (heading: string): string =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');

/** The Markdown outside fenced code blocks, where links are links. */
const prose = (markdown: string): string => markdown.replace(/^```[\s\S]*?^```/gm, '');

function anchorsOf(file: string): Set<string> {
  const headings = prose(readFileSync(file, 'utf8')).match(/^#{1,6} .+$/gm) ?? [];
  return new Set(headings.map((line) => slug(line.replace(/^#+ /, '').replace(/`/g, ''))));
}

/** Why a link of `from` does not resolve, or undefined when it does. */
function brokenLink(from: string, target: string): string | undefined {
  if (/^[a-z]+:/i.test(target)) return `${target}: the README links only to files of the repository`;
  const [path = '', anchor] = target.split('#', 2);
  const file = path === '' ? from : resolve(dirname(from), path);
  if (!existsSync(file)) return `${target}: no such file`;
  if (anchor !== undefined && !anchorsOf(file).has(anchor)) return `${target}: no heading #${anchor}`;
  return undefined;
}

/** The .env the live example writes, and the command it then runs. */
function liveExample(markdown: string): { env: Record<string, string>; command: string } {
  const after = markdown.split('<!-- live-example -->')[1] ?? '';
  const block = /```sh\n([\s\S]*?)```/.exec(after)?.[1] ?? '';
  const dotenv = /cat > \.env <<'EOF'\n([\s\S]*?)\nEOF\n/.exec(block)?.[1];
  assert.ok(dotenv !== undefined, 'the live example writes .env with a here-document');
  const command = block.split('\nEOF\n')[1]?.trim() ?? '';
  return { env: parseEnv(dotenv) as Record<string, string>, command };
}

/** A port free on loopback now, for the webhook receiver the example fixes with PIX_WEBHOOK_PORT. */
function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => {
        resolvePort(typeof address === 'object' && address !== null ? address.port : 0);
      });
    });
  });
}

describe('the README', () => {
  it('is read in five minutes: under 250 lines', () => {
    const lines = text.split('\n').length;
    assert.ok(lines < 250, `${lines} lines`);
  });

  it('links only to what exists: files of the repository and their headings', () => {
    const links = [...prose(text).matchAll(/\]\(([^)\s]+)\)/g)].map((match) => match[1] ?? '');
    assert.ok(links.length > 10, `${links.length} links found`);
    const broken = links.flatMap((target) => brokenLink(README, target) ?? []);
    assert.deepEqual(broken, []);
  });
});

describe("the README's live example, run against the sandbox", () => {
  let sandbox: RunningSandbox;
  let work: string;
  let run: SuiteRun;
  const example = liveExample(text);

  before(
    async () => {
      sandbox = await startSandbox();
      work = temporaryDir('pix-readme-');
      const certFile = join(work, 'client-public-key.pem');
      writeFileSync(certFile, Buffer.from(sandbox.credentials.certClient, 'base64'));
      const port = await freePort();
      const substitutes: Record<string, string> = {
        PIX_BASE_URL: scenarioUrl(sandbox, 'reference'),
        PIX_CLIENT_ID: sandbox.credentials.clientId,
        PIX_CLIENT_SECRET: sandbox.credentials.clientSecret,
        PIX_CERT_FILE: certFile,
        PIX_WEBHOOK_PUBLIC_URL: `http://127.0.0.1:${port}`,
        PIX_WEBHOOK_PORT: String(port),
      };
      for (const name of Object.keys(substitutes))
        assert.ok(name in example.env, `the live example sets ${name}`);
      run = await runSuite({ ...example.env, ...substitutes, PIX_REPORT_DIR: join(work, 'reports') });
    },
    { timeout: 150_000 },
  );
  after(async () => {
    await sandbox.close();
    rmSync(work, { recursive: true, force: true });
  });

  it('runs the installed command', () => {
    assert.equal(example.command, 'npx pix-certify');
  });

  it('certifies the sandbox completely: PASSED, every check judged, exit 0', () => {
    assert.equal(run.code, 0, run.stdout.slice(-3000));
    assert.equal(run.report?.verdict, 'PASSED', run.stdout.slice(-3000));
    assert.equal(run.report.complete, true);
    assert.deepEqual(run.idsWith('SKIPPED'), []);
  });
});
