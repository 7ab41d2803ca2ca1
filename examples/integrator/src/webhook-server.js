// The integrator's webhook handler: it stores each withdrawal's newest status, takes the same
// webhook twice without acting twice, never steps a PAID withdrawal back, ignores fields it does not
// know and answers 400 to a body it cannot read.
import { createServer } from 'node:http';
import { FAULT } from './faults.js';

const RANK = { PROCESSING: 1, PAID: 2, FAILED: 2 };

export function startWebhookServer() {
  const statuses = new Map();
  const waiters = new Set();
  let seen = 0;
  const server = createServer((request, response) => {
    const chunks = [];
    request.on('data', (chunk) => chunks.push(chunk));
    request.on('end', () => {
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
      const known = statuses.get(code);
      if (FAULT === 'handler-500-on-duplicate' && known === status) return answer(500);
      if (known !== undefined && (RANK[status] ?? 0) < (RANK[known] ?? 0))
        return answer(FAULT === 'handler-409-out-of-order' ? 409 : 200);
      statuses.set(code, status);
      for (const waiter of waiters) waiter();
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
        /** Resolves with the code's status once it is `wanted`, or with what it is after `ms`. */
        waitFor(code, wanted, ms = 4000) {
          return new Promise((done) => {
            const check = () => {
              if (statuses.get(code) !== wanted) return;
              finish();
            };
            const finish = () => {
              waiters.delete(check);
              clearTimeout(timer);
              done(statuses.get(code));
            };
            const timer = setTimeout(finish, ms);
            waiters.add(check);
            check();
          });
        },
        close: () =>
          new Promise((done) => {
            server.close(() => done());
            server.closeAllConnections();
          }),
      });
    });
  });
}
