/** The documents generated from the code are committed; each must be what the code renders today. */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { CHECKS_DOC_PATH, renderChecksDoc } from '../scripts/checks-doc.ts';

describe('generated documents', () => {
  it('docs/checks.md lists the current catalogue (npm run docs:checks)', () => {
    assert.equal(
      readFileSync(CHECKS_DOC_PATH, 'utf8'),
      renderChecksDoc(),
      'docs/checks.md is stale: run npm run docs:checks and commit it',
    );
  });
});
