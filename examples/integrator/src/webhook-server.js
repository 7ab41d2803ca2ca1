// The integrator's webhook handler: it stores each withdrawal's newest status, takes the same
// webhook twice without acting twice, never steps a PAID withdrawal back, ignores fields it does not
// know and answers 400 to a body it cannot read. A webhook may come before the withdrawal's own answer
// (some providers post it first): it is taken all the same.
import { createServer } from 'node:http';
import { FAULT } from './faults.js';

const RANK = { PROCESSING: 1, PAID: 2, FAILED: 2 };
// handler-unknown-id: how long a webhook for a withdrawal not stored yet waits for it before a 404.
const LOOKUP_WAIT_MS = 1500;

export function startWebhookServer() {
  const statuses = new Map();
  const firsts = new Map();
  const stored = new Set();
  const waiters = new Set();
  let seen = 0;
  const notify = () => {
    for (const waiter of waiters) waiter();
  };
  /** Resolves with `value()` once it is defined, or with undefined after `ms`. */
  const when = (value, ms) =>
    new Promise((done) => {
      const check = () => {
        if (value() !== undefined) finish();
      };
      const finish = () => {
        waiters.delete(check);
        clearTimeout(timer);
        done(value());
      };
      const timer = setTimeout(finish, ms);
      waiters.add(check);
      check();
    });
  const server = createServer((request, response) => {
    const chunks = [];
    request.on('data', (chunk) => chunks.push(chunk));
    request.on('end', async () => {
      seen += 1;
      const answer = (status) => {
        response.statusCode = status;
        response.end();
      };
      if (FAULT === 'handler-500') return answer(500);
      if (FAULT === 'handler-slow') return setTimeout(() => answer(200), 12_000).unref();
      let payload;
      try {
        payload = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        if (FAULT === 'handler-crash-on-malformed') {
          request.socket.destroy();
          server.close();
          server.closeAllConnections();
          return undefined;
        }
        return answer(FAULT === 'handler-500-on-malformed' ? 500 : 400);
      }
      if (
        FAULT === 'handler-strict-fields' &&
        Object.keys(payload).some(
          (k) => !['event', 'id', 'code', 'status', 'amount', 'end_to_end_id'].includes(k),
        )
      )
        return answer(422);
      const code = payload.code ?? payload.data?.code;
      const status = payload.status ?? payload.data?.status;
      if (FAULT === 'handler-unknown-id' && !stored.has(code)) {
        const found = await when(() => (stored.has(code) ? true : undefined), LOOKUP_WAIT_MS);
        if (found === undefined) return answer(404);
      }
      if (!firsts.has(code)) firsts.set(code, status);
      const known = statuses.get(code);
      if (FAULT === 'handler-500-on-duplicate' && known === status) return answer(500);
      if (known !== undefined && (RANK[status] ?? 0) < (RANK[known] ?? 0))
        return answer(FAULT === 'handler-409-out-of-order' ? 409 : 200);
      statuses.set(code, status);
      notify();
      return answer(200);
    });
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const url = `http://127.0.0.1:${server.address().port}/pix/webhook?app=example`;
      resolve({
        url,
        delivered: () => seen,
        statusOf: (code) => statuses.get(code),
        /** The application stored the withdrawal: its answer arrived. */
        stored(code) {
          stored.add(code);
          notify();
        },
        /** Resolves with the code's status once it is `wanted`, or with what it is after `ms`. */
        async waitFor(code, wanted, ms = 6000) {
          await when(() => (statuses.get(code) === wanted ? true : undefined), ms);
          return statuses.get(code);
        },
        /** Resolves with the first status a webhook reported for the code, or undefined after `ms`. */
        firstStatus: (code, ms = 6000) => when(() => firsts.get(code), ms),
        close: () =>
          new Promise((done) => {
            server.close(() => done());
            server.closeAllConnections();
          }),
      });
    });
  });
}
