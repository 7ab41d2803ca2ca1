/**
 * The embedded mock's start-up preload (src/run/mock/faker-english-only.cjs): Prism gets
 * faker's English build instead of every locale, and faker still works inside Prism's generator.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, it } from 'node:test';

const ROOT = join(import.meta.dirname, '..');
const PRELOAD = join(ROOT, 'src', 'run', 'mock', 'faker-english-only.cjs');

/** Loads Prism's JSON Schema generator as Prism does, with or without the preload, and reports. */
function inPrismProcess(preload: boolean): { locales: string[]; firstName: unknown } {
  const script = `
    const { createRequire } = require('node:module');
    const fromMocker = createRequire(require.resolve('@stoplight/prism-http/package.json'));
    const generator = fromMocker('./dist/mocker/generator/JSONSchema.js');
    const schema = { type: 'object', required: ['n'], properties: { n: { type: 'string', 'x-faker': 'name.firstName' } } };
    const generated = generator.generate({}, undefined, schema);
    process.stdout.write(JSON.stringify({
      locales: Object.keys(fromMocker('@faker-js/faker').default.locales),
      firstName: generated.right?.n,
    }));`;
  const output = execFileSync(process.execPath, [...(preload ? ['--require', PRELOAD] : []), '-e', script], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  return JSON.parse(output) as { locales: string[]; firstName: unknown };
}

describe('embedded mock start-up', () => {
  it('gives Prism faker with the English locale only', () => {
    assert.deepEqual(inPrismProcess(true).locales, ['en']);
    assert.ok(inPrismProcess(false).locales.length > 10, 'without the preload Prism loads every locale');
  });

  it('keeps faker working in Prism generator: x-faker still gives a first name', () => {
    assert.match(String(inPrismProcess(true).firstName), /^[A-Z][a-z]+$/);
  });
});
