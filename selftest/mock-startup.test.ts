/**
 * The embedded mock's start-up (src/run/mock/prism.ts): Prism's own `prism mock` command line in a
 * thread of this process, which answers once ready, warms Prism up without a webhook leaving, and
 * is gone once stopped; faker's English build seeded for it (src/run/mock/faker-english-only.cjs)
 * takes, and faker still works inside Prism's generator.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { answers, startMock } from '../src/run/mock/prism.ts';

const ROOT = join(import.meta.dirname, '..');
const SEED = join(ROOT, 'src', 'run', 'mock', 'faker-english-only.cjs');

/** Loads Prism's JSON Schema generator as Prism's command does, with or without the seed, and reports. */
function inPrismThread(seeded: boolean): { locales: string[]; firstName: unknown } {
  const script = `
    const { createRequire } = require('node:module');
    const fromCli = createRequire(require.resolve('@stoplight/prism-cli/package.json'));
    const fromMocker = createRequire(fromCli.resolve('@stoplight/prism-http/package.json'));
    const generator = fromMocker('./dist/mocker/generator/JSONSchema.js');
    const schema = { type: 'object', required: ['n'], properties: { n: { type: 'string', 'x-faker': 'name.firstName' } } };
    const generated = generator.generate({}, undefined, schema);
    process.stdout.write(JSON.stringify({
      locales: Object.keys(fromMocker('@faker-js/faker').default.locales),
      firstName: generated.right?.n,
    }));`;
  const output = execFileSync(process.execPath, [...(seeded ? ['--require', SEED] : []), '-e', script], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  return JSON.parse(output) as { locales: string[]; firstName: unknown };
}

describe('embedded mock start-up', () => {
  it("gives Prism faker's English build, not every locale", () => {
    assert.deepEqual(inPrismThread(true).locales, ['en']);
    assert.ok(inPrismThread(false).locales.length > 10, 'without the seed Prism loads every locale');
  });

  it('keeps faker working in Prism generator: x-faker still gives a first name', () => {
    assert.match(String(inPrismThread(true).firstName), /^[A-Z][a-z]+$/);
  });

  it('warms Prism up once it listens, with requests none of which posts a webhook', async () => {
    const lines: string[] = [];
    const mock = await startMock({ logLevel: 'info', onLog: (line) => lines.push(line) });
    try {
      const count = (text: string | RegExp): number =>
        lines.filter((line) => (typeof text === 'string' ? line.includes(text) : text.test(line))).length;
      const WARM_UP_REQUESTS = 12;
      for (let waited = 0; count('Request received') < WARM_UP_REQUESTS && waited < 10_000; waited += 50)
        await new Promise((resolve) => setTimeout(resolve, 50));
      assert.equal(count('Request received'), WARM_UP_REQUESTS, 'three rounds of four requests');
      // Prism runs its callback on every withdrawal, even a refused one: with no PostBackUrl, each fails here.
      // A callback's failure is logged a moment after it starts: the last ones are waited for (a callback
      // that posted would never log one).
      const tried = (): number => count(/Executing \\?"post\\?" callback/);
      const failed = (): number => count('Request failed: Only absolute URLs are supported');
      for (let waited = 0; failed() < tried() && waited < 5_000; waited += 50)
        await new Promise((resolve) => setTimeout(resolve, 50));
      assert.ok(tried() > 0, 'the withdrawals went as far as the callback');
      assert.equal(failed(), tried(), 'no callback had an address');
    } finally {
      await mock.stop();
    }
    assert.equal(await answers(mock.url), false, 'stopped, nothing answers');
  });
});
