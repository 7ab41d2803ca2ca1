/**
 * Node's compile cache for pix-certify and the processes it starts (src/base/lean-node.ts): on a
 * Node that has one, the run's own process turns it on and hands its directory to its children
 * through NODE_COMPILE_CACHE; on Node 20, which has none, nothing changes.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, it } from 'node:test';
import { cacheCompiledCode } from '../src/base/lean-node.ts';
import { nodeReleaseBinDir } from './support/installed-package.ts';

const ROOT = join(import.meta.dirname, '..');
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

  it('is used by a child of the run on Node 22, where the package self-test installed it', (t) => {
    const node22 = join(nodeReleaseBinDir('node22'), 'node');
    if (!existsSync(node22)) {
      t.skip(`no ${node22} (the package self-test installs it)`);
      return;
    }
    const script = `
      import { execFileSync } from 'node:child_process';
      import { cacheCompiledCode } from './src/base/lean-node.ts';
      cacheCompiledCode();
      const child = 'process.stdout.write(String(require("node:module").getCompileCacheDir()))';
      process.stdout.write(execFileSync(process.execPath, ['-e', child], { encoding: 'utf8' }));`;
    // Without NODE_COMPILE_CACHE, a child has a cache only if the parent turned one on and said where.
    const childDir = execFileSync(node22, ['--import', 'tsx', '--input-type=module', '-e', script], {
      cwd: ROOT,
      encoding: 'utf8',
      env: { PATH: process.env.PATH ?? '' },
    });
    assert.match(childDir, /node-compile-cache/);
  });
});
