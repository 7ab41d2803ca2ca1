/**
 * The embedded mock as certify serves it (Prism behind our front, src/run/mock/front.ts), with a
 * receiving socket as the PostBackUrl: no webhook follows a withdrawal it refused (400, 401, 403, a
 * forced 500) or one without PostBackUrl; each accepted withdrawal gets a webhook, with an id of its
 * own that its answer gave too; each refusal names the header or field and the clause. And `mock
 * --help`, `receiver --help` print their help and exit, starting nothing.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { serveMockFront, RELAY_PATH, type MockFront } from '../src/run/mock/front.ts';
import { startMock, type RunningMock } from '../src/run/mock/prism.ts';
import { TYPESCRIPT_LOADER } from './support/run-suite.ts';

interface Received {
  readonly path: string;
  readonly contentType: string | undefined;
  readonly body: Record<string, unknown>;
}

const LIMIT_MS = 10_000;
/** The `error` of the document's example answer per status (openapi/pix-withdrawal.yaml). */
const EXAMPLE_ERRORS: Readonly<Record<number, string>> = {
  400: 'bad_request',
  401: 'unauthorized',
  403: 'forbidden',
  500: 'internal_error',
};

/** Waits, bounded, until the list holds an entry the predicate accepts. */
async function until<T>(list: readonly T[], found: (entry: T) => boolean, what: string): Promise<T> {
  const deadline = Date.now() + LIMIT_MS;
  for (;;) {
    const entry = list.find(found);
    if (entry !== undefined) return entry;
    assert.ok(Date.now() < deadline, `timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

function readAll(req: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    let text = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (text += chunk));
    req.on('end', () => resolve(text));
  });
}

describe('the embedded mock behind its front', () => {
  let mock: RunningMock;
  let front: MockFront;
  let hooks: Server;
  let hooksUrl: string;
  const received: Received[] = [];
  const log: string[] = [];

  before(async () => {
    hooks = createServer((req, res) => {
      void readAll(req).then((body) => {
        received.push({
          path: req.url ?? '',
          contentType: req.headers['content-type'],
          body: JSON.parse(body) as Record<string, unknown>,
        });
        res.writeHead(200).end();
      });
    });
    await new Promise<void>((resolve) => hooks.listen(0, '127.0.0.1', resolve));
    hooksUrl = `http://127.0.0.1:${(hooks.address() as AddressInfo).port}`;
    mock = await startMock();
    front = await serveMockFront({ upstream: mock.url, onLog: (line) => log.push(line) });
  });
  after(async () => {
    await front.close();
    await mock.stop();
    hooks.close();
  });

  const VALID_HEADERS: Readonly<Record<string, string>> = {
    client_id: 'client-0001',
    client_secret: 'secret-0001',
    authorization: 'Bearer token-0001',
    accept: 'application/json',
    'content-type': 'application/json',
  };
  /** The valid headers with some changed; `without` leaves one out. */
  const headers = (changes: Record<string, string> = {}, without?: string): Record<string, string> =>
    Object.fromEntries(Object.entries({ ...VALID_HEADERS, ...changes }).filter(([name]) => name !== without));
  const body = (name: string, changes: Record<string, unknown> = {}): string =>
    JSON.stringify({
      amount: 0.01,
      code: `front-${name}`,
      name: 'Pedro Lima',
      key_type: 'EVP',
      document: '52998224725',
      key_pix: '123e4567-e89b-12d3-a456-426614174000',
      PostBackUrl: `${hooksUrl}/hook/${name}`,
      check_code: true,
      ...changes,
    });
  const withdraw = async (
    requestHeaders: Record<string, string>,
    text: string,
  ): Promise<{ status: number; json: Record<string, unknown> }> => {
    const response = await fetch(`${front.url}/pix/payment`, {
      method: 'POST',
      headers: requestHeaders,
      body: text,
    });
    return { status: response.status, json: (await response.json()) as Record<string, unknown> };
  };

  it('posts no webhook after a 400, 401, 403 or forced 500, and says why it refused', async () => {
    const refusals = [
      {
        name: 'r400',
        headers: headers(),
        status: 400,
        why: /amount must be a number \(§2\.1\); this body has a string/,
      },
      {
        name: 'r401',
        headers: headers({ authorization: 'Token token-0001' }),
        status: 401,
        why: /Authorization must read Bearer <access_token> \(§5\.2\)/,
      },
      {
        name: 'r403',
        headers: headers({}, 'client_id'),
        status: 403,
        why: /client_id is missing \(§4\.2, §5\.4\)/,
      },
      { name: 'r500', headers: headers({ prefer: 'code=500' }), status: 500, why: /./ },
    ];
    for (const refusal of refusals) {
      const changes = refusal.status === 400 ? { amount: '0.01' } : {};
      const { status, json } = await withdraw(refusal.headers, body(refusal.name, changes));
      assert.equal(status, refusal.status, refusal.name);
      assert.match(String(json.message), refusal.why, refusal.name);
      // The document's example of that refusal, its message told further.
      assert.equal(json.error, EXAMPLE_ERRORS[refusal.status], refusal.name);
      assert.doesNotMatch(JSON.stringify(json), /token-0001|secret-0001/, 'no value sent comes back');
    }
    // Prism runs its callback after each answer it gave itself (not the 403, which the front gave):
    // each reached the front, which dropped it.
    for (const status of [400, 401, 500])
      await until(
        log,
        (line) => line.endsWith(`the withdrawal was refused with ${status}`),
        `the drop after ${status}`,
      );
    const { status } = await withdraw(headers(), body('accepted'));
    assert.equal(status, 200);
    await until(received, (r) => r.path === '/hook/accepted', 'the webhook of the accepted withdrawal');
    assert.deepEqual(
      received.map((r) => r.path),
      ['/hook/accepted'],
      'no webhook reached the refused withdrawals',
    );
  });

  it('gives each accepted withdrawal its own id, which its webhook carries with its code and amount, as JSON by POST', async () => {
    const answers = [];
    for (const [name, amount] of [
      ['first', 0.01],
      ['second', 2.5],
    ] as const) {
      const answer = await withdraw(headers(), body(name, { amount }));
      assert.equal(answer.status, 200);
      answers.push(answer.json);
    }
    const [first, second] = await Promise.all(
      ['first', 'second'].map((name) =>
        until(received, (r) => r.path === `/hook/${name}`, `webhook ${name}`),
      ),
    );
    assert.equal(first?.body.id, answers[0]?.id);
    assert.equal(second?.body.id, answers[1]?.id);
    assert.notEqual(first?.body.id, second?.body.id);
    assert.notEqual(first?.body.end_to_end_id, second?.body.end_to_end_id);
    assert.match(String(first?.body.end_to_end_id), /^E\d{8}\d{12}[0-9a-f]{11}$/);
    assert.match(first?.contentType ?? '', /^application\/json/);
    assert.deepEqual([first?.body.code, first?.body.amount], ['front-first', 0.01]);
    assert.deepEqual([second?.body.code, second?.body.amount], ['front-second', 2.5]);
  });

  it('posts nothing for a body whose callback field is postbackurl, and says so in its log', async () => {
    const { PostBackUrl, ...rest } = JSON.parse(body('lowercase')) as Record<string, unknown>;
    const { status } = await withdraw(headers(), JSON.stringify({ ...rest, postbackurl: PostBackUrl }));
    assert.equal(status, 200, 'the schema lets every field out, PostBackUrl included (§2.1: not shown)');
    await until(
      log,
      (line) => line.includes('it has postbackurl: field names are case-sensitive'),
      'the note',
    );
    // A later webhook arrives after whatever Prism would have sent for the earlier withdrawal.
    await withdraw(headers(), body('after-lowercase'));
    await until(received, (r) => r.path === '/hook/after-lowercase', 'the next webhook');
    assert.ok(!received.some((r) => r.path === '/hook/lowercase'));
  });

  it('stays up through a body cut off and one over its limit, which it refuses with 400', async () => {
    const { port } = new URL(front.url);
    await new Promise<void>((resolve) => {
      const socket = connect(Number(port), '127.0.0.1', () => {
        socket.write('POST /pix/payment HTTP/1.1\r\nhost: x\r\ncontent-length: 100\r\n\r\n{"amount":');
        socket.destroy();
      });
      socket.once('close', () => resolve());
    });
    const large = await withdraw(headers(), body('large', { name: 'x'.repeat(1024 * 1024) }));
    assert.equal(large.status, 400);
    assert.match(String(large.json.message), /The body is over 1048576 bytes/);
    const { status } = await withdraw(headers(), body('after-faults'));
    assert.equal(status, 200);
    await until(received, (r) => r.path === '/hook/after-faults', 'the webhook after the faults');
  });

  it('refuses a webhook posted to a relay address it did not hand out', async () => {
    const response = await fetch(`${front.url}${RELAY_PATH}not-a-relay`, { method: 'POST', body: '{}' });
    assert.equal(response.status, 404);
  });
});

describe('mock --help and receiver --help', () => {
  for (const [command, variable] of [
    ['mock', 'PIX_MOCK_PORT'],
    ['receiver', 'PIX_RECEIVER_TOKEN'],
  ] as const) {
    it(`${command} --help prints its variables and exits 0 without starting a server`, async () => {
      const bin = join(import.meta.dirname, '..', 'bin', `${command}.ts`);
      // PIX_RECEIVER_TOKEN unset: a receiver that started would stop with exit 2 instead.
      const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('PIX_')));
      const { stdout } = await promisify(execFile)(
        process.execPath,
        ['--import', TYPESCRIPT_LOADER, bin, '--help'],
        {
          env,
          timeout: 20_000,
        },
      );
      assert.match(stdout, new RegExp(`^Usage: npm run ${command}$`, 'm'));
      assert.match(stdout, new RegExp(`^  ${variable} `, 'm'));
    });
  }
});
