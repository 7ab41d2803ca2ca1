/**
 * How the suite's own Node processes and threads are started (src/base/lean-node.ts). Node's compile
 * cache: on a Node that has one, the run's own process turns it on and hands its directory to its
 * children through NODE_COMPILE_CACHE; on Node 20, which has none, nothing changes (the installed
 * tool under Node 20, 22 and 24 is held to the same in package.test.ts). The young generation: a
 * thread started with the thread limits gets the new space a process gets from the flags. Playwright's
 * TypeScript loader: switched off for the compiled package's own configuration only (that the installed
 * tool's tests load and run without it, package.test.ts shows under Node 20, 22 and 24). The stacks
 * of a worker's steps: mapped without reading Playwright's bundles. The allocator: two glibc arenas
 * for the suite's children, unless the user chose. The flags: `npm run certify` starts with the same.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { afterEach, describe, it } from 'node:test';
import { Worker } from 'node:worker_threads';
import {
  cacheCompiledCode,
  LEAN_NODE_FLAGS,
  LEAN_THREAD_LIMITS,
  leanAllocatorEnvironment,
  playwrightLoaderEnvironment,
  playwrightSourceMapSupport,
  spareStackFileReads,
} from '../src/base/lean-node.ts';

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

describe('flags', () => {
  it("start npm run certify's own process as the suite starts its children", () => {
    const manifest = JSON.parse(fs.readFileSync(join(import.meta.dirname, '..', 'package.json'), 'utf8')) as {
      scripts: Record<string, string>;
    };
    assert.ok(
      manifest.scripts.certify?.startsWith(`node ${LEAN_NODE_FLAGS.join(' ')} `),
      `the certify script (${String(manifest.scripts.certify)}) repeats LEAN_NODE_FLAGS, which package.json cannot import`,
    );
  });
});

describe('allocator', () => {
  it("gives the suite's children two malloc arenas", () => {
    assert.deepEqual(leanAllocatorEnvironment({}), { MALLOC_ARENA_MAX: '2' });
  });

  it('leaves a value the user set, whatever it is', () => {
    assert.deepEqual(leanAllocatorEnvironment({ MALLOC_ARENA_MAX: '8' }), {});
    assert.deepEqual(leanAllocatorEnvironment({ MALLOC_ARENA_MAX: '' }), {});
  });
});

/** Churns through short-lived objects until the new space has grown to its limit: an expression of its size. */
const NEW_SPACE_AT_LIMIT = `(() => {
  let kept = [];
  for (let i = 0; i < 2e6; i++) { kept.push({ i, text: 'x' + i }); if (kept.length > 1000) kept = []; }
  return require('node:v8').getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size;
})()`;

describe('young generation', () => {
  it("gives Prism's thread the new space the flags give a process, and less than V8's default", async () => {
    const inProcess = (flags: readonly string[]): number =>
      Number(execFileSync(process.execPath, [...flags, '-p', NEW_SPACE_AT_LIMIT], { encoding: 'utf8' }));
    const inThread = new Promise<number>((resolve, reject) => {
      const thread = new Worker(
        `require('node:worker_threads').parentPort.postMessage(${NEW_SPACE_AT_LIMIT})`,
        {
          eval: true,
          resourceLimits: LEAN_THREAD_LIMITS,
        },
      );
      thread.once('message', (size: number) => resolve(size));
      thread.once('error', reject);
    });
    const lean = inProcess(LEAN_NODE_FLAGS);
    assert.equal(await inThread, lean);
    assert.ok(lean < inProcess([]), 'the flags make the new space smaller than the default');
  });
});

describe("Playwright's TypeScript loader", () => {
  const OFF = { PW_DISABLE_TS_ESM: '1' };

  it("is switched off for the compiled package's own configuration", () => {
    assert.deepEqual(playwrightLoaderEnvironment([], '.js', {}), OFF);
    assert.deepEqual(playwrightLoaderEnvironment(['--grep', 'token', '-x'], '.js', {}), OFF);
    assert.deepEqual(
      playwrightLoaderEnvironment(['--reporter=./mine.js', 'tests/a.spec.js:40'], '.js', {}),
      OFF,
    );
  });

  it('stays from the sources, with a configuration of the user, or when the user chose', () => {
    assert.deepEqual(playwrightLoaderEnvironment([], '.ts', {}), {});
    for (const args of [['--config', 'mine.ts'], ['-c', 'mine.ts'], ['--config=mine.ts']])
      assert.deepEqual(playwrightLoaderEnvironment(args, '.js', {}), {}, args.join(' '));
    for (const args of [
      ['--reporter=./mine.ts'],
      ['--reporter', 'list,./mine.mts'],
      ['--reporter=./mine.cts,dot'],
    ])
      assert.deepEqual(playwrightLoaderEnvironment(args, '.js', {}), {}, args.join(' '));
    assert.deepEqual(playwrightLoaderEnvironment([], '.js', { PW_DISABLE_TS_ESM: '' }), {});
  });
});

describe("the stacks of a worker's test steps", () => {
  it("are mapped without reading Playwright's own modules, and still read the others", () => {
    // The source-map-support Playwright's worker maps stacks with (its common/index.js installs it).
    const retrieveSourceMap = playwrightSourceMapSupport()?.retrieveSourceMap;
    assert.ok(retrieveSourceMap !== undefined, "Playwright's runtime has its source-map-support");
    const lib = join(createRequire(import.meta.url).resolve('playwright'), '..', 'lib');
    const reads: string[] = [];
    const read = fs.readFileSync;
    const counting = ((path: fs.PathOrFileDescriptor, ...rest: unknown[]) => {
      reads.push(String(path));
      return (read as (...args: unknown[]) => unknown)(path, ...rest);
    }) as typeof fs.readFileSync;
    fs.readFileSync = counting;
    try {
      // Before: looking for a map reads the module (the reading this spares).
      retrieveSourceMap(join(lib, 'util.js'));
      assert.ok(reads.some((path) => path.endsWith('util.js')));
      spareStackFileReads();
      reads.length = 0;
      retrieveSourceMap(join(lib, 'globals.js'));
      retrieveSourceMap(import.meta.filename);
      assert.deepEqual(reads, [import.meta.filename]);
    } finally {
      fs.readFileSync = read;
    }
  });
});
