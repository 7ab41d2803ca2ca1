/** Messages name the command where the user is: pix-certify once installed, npm run in a clone. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { INSTALLED, suiteCommand } from '../src/base/invocation.ts';

describe('the command a message names', () => {
  it('is pix-certify once installed, certify options following it directly', () => {
    assert.equal(suiteCommand('certify', '--help', true), 'pix-certify --help');
    assert.equal(suiteCommand('certify', '', true), 'pix-certify');
    assert.equal(suiteCommand('list', '', true), 'pix-certify list');
    assert.equal(suiteCommand('verify', 'reports/', true), 'pix-certify verify reports/');
    assert.equal(suiteCommand('receiver', '', true), 'pix-certify receiver');
  });

  it('is the npm script in a clone, its arguments after --', () => {
    assert.equal(suiteCommand('certify', '--help', false), 'npm run certify -- --help');
    assert.equal(suiteCommand('list', '', false), 'npm run certify -- --list');
    assert.equal(suiteCommand('verify', 'reports/', false), 'npm run verify -- reports/');
    assert.equal(suiteCommand('history', 'a b', false), 'npm run history -- a b');
    assert.equal(suiteCommand('sandbox', '', false), 'npm run sandbox');
  });

  it('is the clone’s here, where the suite runs from its TypeScript sources', () => {
    assert.equal(INSTALLED, false);
    assert.equal(suiteCommand('verify', 'reports/'), 'npm run verify -- reports/');
  });
});
