/**
 * The documents beside the code: docs/checks.md and docs/configuration.md are generated and must be what
 * the code renders today; docs/traceability.md traces every sentence of docs/interface.md to checks or
 * says why none can.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { CHECKS_DOC_PATH, renderChecksDoc } from '../scripts/checks-doc.ts';
import { CONFIGURATION_DOC_PATH, renderConfigurationDoc } from '../scripts/configuration-doc.ts';
import {
  documentSentences,
  INTERFACE_PATH,
  TRACEABILITY_PATH,
  traceProblems,
  traceRows,
} from '../scripts/traceability.ts';
import { catalogue } from '../src/checks/catalogue.ts';

describe('generated documents', () => {
  it('docs/checks.md lists the current catalogue (npm run docs:checks)', () => {
    assert.equal(
      readFileSync(CHECKS_DOC_PATH, 'utf8'),
      renderChecksDoc(),
      'docs/checks.md is stale: run npm run docs:checks and commit it',
    );
  });

  it('docs/configuration.md lists every variable of the table (npm run docs:configuration)', () => {
    assert.equal(
      readFileSync(CONFIGURATION_DOC_PATH, 'utf8'),
      renderConfigurationDoc(),
      'docs/configuration.md is stale: run npm run docs:configuration and commit it',
    );
  });

  it('docs/traceability.md traces every sentence of interface.md, and every check to a sentence', () => {
    const sentences = documentSentences(readFileSync(INTERFACE_PATH, 'utf8'));
    assert.ok(sentences.length > 50, `only ${sentences.length} sentences found in docs/interface.md`);
    const problems = traceProblems(
      sentences,
      traceRows(readFileSync(TRACEABILITY_PATH, 'utf8')),
      new Set(catalogue('provider').map((c) => c.id)),
    );
    assert.deepEqual(problems, [], `docs/traceability.md:\n${problems.join('\n')}`);
  });
});
