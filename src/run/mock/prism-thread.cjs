// The embedded mock's thread (prism.ts): Prism's `prism` command, its arguments in process.argv as
// the Worker was given them, then, once it answers, a few requests of its own that warm it up.
const { Buffer } = require('node:buffer');
const { request } = require('node:http');
const { connect } = require('node:net');
const { setTimeout } = require('node:timers');
const { URL } = require('node:url');
const { parentPort, workerData } = require('node:worker_threads');

const { bin, url } = workerData;
const { hostname: host, port } = new URL(url);

function answers() {
  return new Promise((resolve) => {
    const socket = connect({ host, port: Number(port) });
    socket.setTimeout(500);
    const done = (ok) => {
      socket.destroy();
      resolve(ok);
    };
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
    socket.once('timeout', () => done(false));
  });
}

// Prism compiles a route's security check, its validators and its answer on the first request that
// needs them: these go first, so that the tests' first requests find the code ready. None is a valid
// withdrawal and none names a PostBackUrl: Prism has no address to post a webhook to.
const WARM_UP_ROUNDS = 3;
const WARM_UP_TIMEOUT_MS = 2_000;
const WARM_UP_REQUESTS = [
  ['/auth/token', { client_id: 'warm-up', cert_client: 'd2FybS11cA==', accept: 'application/json' }, ''],
  ['/auth/token', { accept: 'application/json' }, ''],
  [
    '/pix/payment',
    {
      client_id: 'warm-up',
      client_secret: 'warm-up',
      authorization: 'Bearer warm-up',
      accept: 'application/json',
    },
    '{"amount":"not a number"}',
  ],
  ['/pix/payment', { accept: 'application/json' }, '{}'],
];

function answered(path, headers, body) {
  return new Promise((resolve) => {
    const req = request(
      {
        host,
        port,
        path,
        method: 'POST',
        headers: {
          ...headers,
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
        },
        timeout: WARM_UP_TIMEOUT_MS,
      },
      (res) => res.resume().on('end', resolve).on('error', resolve),
    );
    req.on('timeout', () => req.destroy());
    req.on('error', resolve);
    req.end(body);
  });
}

async function serveWhenReady() {
  // Bounded by the caller's start-up limit, which ends this thread.
  while (!(await answers())) await new Promise((resolve) => setTimeout(resolve, 25));
  parentPort.postMessage({ listening: true });
  for (let round = 0; round < WARM_UP_ROUNDS; round += 1)
    for (const [path, headers, body] of WARM_UP_REQUESTS) await answered(path, headers, body);
}

require('./faker-english-only.cjs');
require(bin);
void serveWhenReady();
