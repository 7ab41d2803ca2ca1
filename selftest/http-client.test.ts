/**
 * The suite's HTTP client against a local server that records what arrives: it sends exactly what
 * it records, follows no redirect, and bounds every exchange in bytes (after decompression) and time.
 */
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { type AddressInfo, createServer as createNetServer, type Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { gzipSync } from 'node:zlib';
import { HttpClient, IDLE_CONNECTION_MS, send, TransportError } from '../src/transport/http.ts';

const LIMIT = 64 * 1024;

interface Arrival {
  readonly headers: readonly string[];
  readonly body: string;
}

describe('the HTTP client', () => {
  const arrivals: Arrival[] = [];
  const routes: Record<string, (res: ServerResponse) => void> = {
    '/ok': (res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}'),
    '/redirect': (res) => res.writeHead(302, { location: '/ok' }).end(),
    '/gzip': (res) =>
      res.writeHead(200, { 'content-encoding': 'gzip' }).end(gzipSync(Buffer.from('{"small":true}'))),
    '/huge': (res) =>
      res.writeHead(200, { 'content-length': 10 * LIMIT }).end(Buffer.alloc(10 * LIMIT, 0x20)),
    '/endless': (res) => {
      res.writeHead(200);
      const chunk = Buffer.alloc(LIMIT / 4, 0x20);
      const pump = (): void => {
        let room = true;
        while (!res.destroyed && room) room = res.write(chunk);
        if (!res.destroyed) res.once('drain', pump);
      };
      pump();
    },
    '/bomb': (res) =>
      res.writeHead(200, { 'content-encoding': 'gzip' }).end(gzipSync(Buffer.alloc(100 * LIMIT))),
    '/silent': () => undefined,
  };
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      arrivals.push({ headers: req.rawHeaders, body: Buffer.concat(chunks).toString('utf8') });
      (routes[req.url ?? ''] ?? routes['/ok'])?.(res);
    });
  });
  const client = new HttpClient({ maxResponseBytes: LIMIT, tokenField: 'access_token' });
  let base = '';

  before(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => {
    client.close();
    server.closeAllConnections();
    server.close();
  });

  const post = (path: string, headers: Record<string, string> = {}, body?: string, timeoutMs = 5_000) =>
    send(client, 'createToken', { method: 'POST', url: `${base}${path}`, headers, body }, timeoutMs);

  it('sends exactly the headers it records, in order, and nothing of its own', async () => {
    const exchange = await post(
      '/ok',
      { client_id: 'c', Accept: 'application/json', accept: 'text/plain' },
      '{}',
    );
    assert.deepEqual(arrivals.at(-1)?.headers, Object.entries(exchange.request.headers).flat());
    assert.deepEqual(Object.keys(exchange.request.headers), [
      'Host',
      'client_id',
      'Accept',
      'accept',
      'Content-Length',
      'Connection',
    ]);
    assert.equal(arrivals.at(-1)?.body, '{}');
  });

  it('sends a no-break space around a header value as the one byte 0xA0 beside a UTF-8 body, which the server reads back', async () => {
    const bytes: Buffer[] = [];
    const raw = createNetServer((socket) => {
      socket.on('data', (chunk: Buffer) => {
        bytes.push(chunk);
        if (Buffer.concat(bytes).includes('\r\n\r\n'))
          socket.end('HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n');
      });
    });
    await new Promise<void>((resolve) => raw.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(raw.address() as AddressInfo).port}/raw`;
    // With a body too: node sends a string body with the head in one write, in the body's encoding.
    await send(
      client,
      'createWithdraw',
      { method: 'POST', url, headers: { client_secret: '\u00a0s3cret\u00a0' }, body: '{"a":"é"}' },
      5_000,
    );
    raw.close();
    // latin1: one byte per character, so U+00A0 is the byte 0xA0 (UTF-8 would send 0xC2 0xA0).
    const line = Buffer.from('\r\nclient_secret: \u00a0s3cret\u00a0\r\n', 'latin1');
    const sent = Buffer.concat(bytes);
    assert.ok(sent.includes(line), sent.toString('hex'));
    assert.ok(sent.includes(Buffer.from('\r\n\r\n{"a":"é"}', 'utf8')), sent.toString('hex'));
    await post('/ok', { client_id: '\u00a0c\u00a0' }, '{}');
    assert.deepEqual(arrivals.at(-1)?.headers.slice(2, 4), ['client_id', '\u00a0c\u00a0']);
  });

  it('leaves out a header the case leaves out, and never sends URL user-info', async () => {
    const exchange = await post('/ok', { client_id: 'c' }, undefined);
    const url = new URL(base);
    url.username = 'someone';
    url.password = 'a-password-123';
    const withUserInfo = await send(
      client,
      'createToken',
      { method: 'POST', url: `${url.toString()}ok`, headers: {}, body: undefined },
      5_000,
    );
    const names = (headers: readonly string[]): string[] =>
      headers.filter((_, i) => i % 2 === 0).map((name) => name.toLowerCase());
    assert.deepEqual(names(arrivals.at(-2)?.headers ?? []), [
      'host',
      'client_id',
      'content-length',
      'connection',
    ]);
    assert.deepEqual(Object.keys(exchange.request.headers), [
      'Host',
      'client_id',
      'Content-Length',
      'Connection',
    ]);
    assert.ok(!withUserInfo.request.url.includes('a-password-123'));
    assert.deepEqual(arrivals.at(-1)?.headers, Object.entries(withUserInfo.request.headers).flat());
  });

  it('follows no redirect, and decompresses what the server compressed anyway', async () => {
    assert.equal((await post('/redirect')).response.status, 302);
    assert.deepEqual((await post('/gzip')).response.json, { small: true });
  });

  for (const [path, what] of [
    ['/huge', 'a body over the limit'],
    ['/endless', 'a body that never ends'],
    ['/bomb', 'a gzip bomb, counted after decompression'],
  ] as const) {
    it(`stops reading ${what}, with a transport error that names the limit`, async () => {
      await assert.rejects(
        post(path),
        (error) => error instanceof TransportError && /PIX_MAX_RESPONSE_BYTES=65536/.test(error.message),
      );
    });
  }

  it('gives up when no answer comes in time', async () => {
    await assert.rejects(
      post('/silent', {}, undefined, 200),
      (error) =>
        error instanceof TransportError &&
        /timed out after 200 ms \(PIX_REQUEST_TIMEOUT_MS\)/.test(error.message),
    );
  });

  it('keeps a connection for the next request, but not one idle long enough for the server to be closing it', async () => {
    const own = new HttpClient({ maxResponseBytes: LIMIT, tokenField: 'access_token' });
    const ok = () =>
      send(own, 'createToken', { method: 'POST', url: `${base}/ok`, headers: {}, body: undefined }, 5_000);
    const mine = new Set<Socket>();
    const count = (socket: Socket): void => {
      mine.add(socket);
    };
    server.on('connection', count);
    try {
      await ok();
      await ok();
      assert.equal(mine.size, 1, 'the second request went out on the first one’s connection');
      // This process's timers fire in order: the pool's idle close comes before this wait ends.
      await new Promise((done) => setTimeout(done, IDLE_CONNECTION_MS + 500));
      assert.ok(
        [...mine].every((socket) => socket.destroyed),
        'the idle connection was closed',
      );
      await ok();
      assert.equal(mine.size, 2, 'the request after the pause opened a new connection');
    } finally {
      server.off('connection', count);
      own.close();
    }
  });
});
