/**
 * Node's compile cache for pix-certify and the processes it starts (src/base/lean-node.ts): on a
 * Node that has one, the run's own process turns it on and hands its directory to its children
 * through NODE_COMPILE_CACHE; on Node 20, which has none, nothing changes. The installed tool under
 * Node 20, 22 and 24 is held to the same in package.test.ts.
 */
import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import { cacheCompiledCode } from '../src/base/lean-node.ts';

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
