/**
 * src/base/deadline.ts: a deadline the environment must meet expires only once what had already
 * arrived has been read, so that a process held busy past it never blames the environment.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Worker } from 'node:worker_threads';
import { holdThread } from './support/hold-thread.ts';
import { deadline } from '../src/base/deadline.ts';

describe('a deadline', () => {
  it('expires when nothing arrives in time', async () => {
    const start = Date.now();
    const expiredAfter = await new Promise<number>((resolve) => {
      deadline(30, () => resolve(Date.now() - start));
    });
    assert.ok(expiredAfter >= 30, `expired after ${expiredAfter} ms`);
  });

  it('never expires once cleared', async (t) => {
    t.mock.timers.enable({ apis: ['setTimeout'] });
    let expired = false;
    deadline(10, () => (expired = true)).clear();
    t.mock.timers.tick(1_000);
    // An expiry runs a turn after its timer.
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(expired, false);
  });

  it('reads an answer that arrived while the thread was held past it, and does not expire', async (t) => {
    // Another thread answers as soon as it is asked; this one asks, then is held for a second, well
    // past the 50 ms deadline, from a check-phase callback: the loop's next turn runs its timers
    // before it reads the answer waiting for it.
    const answering = new Worker(
      "const { parentPort } = require('node:worker_threads'); parentPort.once('message', () => parentPort.postMessage('answer'));",
      { eval: true },
    );
    t.after(() => answering.terminate());
    await new Promise((resolve) => answering.once('online', resolve));
    const outcome = await new Promise<string>((resolve) => {
      setImmediate(() => {
        const timer = deadline(50, () => resolve('time-out'));
        answering.once('message', () => {
          timer.clear();
          resolve('answered');
        });
        answering.postMessage('ask');
        holdThread(1_000);
      });
    });
    assert.equal(outcome, 'answered');
  });
});
