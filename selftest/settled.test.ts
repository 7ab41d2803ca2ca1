/**
 * Promises started together and awaited to the last: a test that sends several requests at once ends
 * only when every one has answered, and then with the first failure in their order.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { allSettledInOrder } from '../src/base/settled.ts';

const after = <T>(ms: number, value: T, fail = false): Promise<T> =>
  new Promise((resolve, reject) =>
    setTimeout(() => (fail ? reject(new Error(String(value))) : resolve(value)), ms),
  );

describe('promises started together', () => {
  it('gives their values in their order, whichever settled first', async () => {
    assert.deepEqual(await allSettledInOrder([after(30, 'a'), after(0, 1)] as const), ['a', 1]);
  });

  it('throws the first failure in their order, once the last one has settled', async () => {
    let lastSettled = false;
    const last = after(60, 'last').then((value) => {
      lastSettled = true;
      return value;
    });
    await assert.rejects(
      allSettledInOrder([after(0, 'ok'), after(40, 'second', true), after(10, 'third', true), last] as const),
      (error) => error instanceof Error && error.message === 'second' && lastSettled,
    );
  });
});
