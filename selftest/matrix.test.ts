/**
 * The fault matrix's declarations, and a sample of its runs: a conforming reading, a FAILED fault of
 * each operation, a WARNING and an observation. npm run test:slow runs every scenario.
 */
import { describe } from 'node:test';
import { SCENARIOS } from '../sandbox/scenarios.ts';
import { faultMatrixDeclarations, faultMatrixRuns } from './support/fault-matrix.ts';

const SAMPLE = ['reference', 'token-any-cert', 'payment-any-secret', 'lax-body', 'webhook-statuses'];

describe('fault matrix, a sample', () => {
  faultMatrixDeclarations();
  faultMatrixRuns(SCENARIOS.filter((s) => SAMPLE.includes(s.name)));
});
