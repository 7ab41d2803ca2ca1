/** The whole fault matrix (selftest/support/fault-matrix.ts): every scenario of the sandbox, run once each. */
import { describe } from 'node:test';
import { SCENARIOS } from '../../sandbox/scenarios.ts';
import { faultMatrixDeclarations, faultMatrixRuns } from '../support/fault-matrix.ts';

describe('fault matrix', () => {
  faultMatrixDeclarations();
  faultMatrixRuns(SCENARIOS);
});
