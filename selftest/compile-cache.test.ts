/**
 * Node's compile cache (src/base/compile-cache.ts): on a Node that has one, the run's own process turns
 * it on and hands its directory to its children through NODE_COMPILE_CACHE; on Node 20, which has none,
 * nothing changes. That the installed tool fills one under Node 22 and 24 and not under 20,
 * slow/package.test.ts shows.
 */
import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import { cacheCompiledCode } from '../src/base/compile-cache.ts';

const before = process.env.NODE_COMPILE_CACHE;

describe('compile cache', () => {
  afterEach(() => {
    if (before === undefined) delete process.env.NODE_COMPILE_CACHE;
    else process.env.NODE_COMPILE_CACHE = before;
  });

  it('hands the directory of a cache it turned on to the processes started after', () => {
    delete process.env.NODE_COMPILE_CACHE;
    cacheCompiledCode({ enableCompileCache: () => ({ directory: '/tmp/a-compile-cache' }) });
    assert.equal(process.env.NODE_COMPILE_CACHE, '/tmp/a-compile-cache');
  });

  it('changes nothing on a Node without one, or where it could not be turned on', () => {
    delete process.env.NODE_COMPILE_CACHE;
    cacheCompiledCode({});
    cacheCompiledCode({ enableCompileCache: () => ({}) });
    assert.equal(process.env.NODE_COMPILE_CACHE, undefined);
  });
});
