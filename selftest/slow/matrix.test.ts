/** The whole fault matrix (selftest/support/fault-matrix.ts): every scenario of the sandbox, run once each. */
import { describe } from 'node:test';
import { SCENARIOS } from '../../sandbox/scenarios.ts';
import { faultMatrixDeclarations, faultMatrixRuns } from '../support/fault-matrix.ts';

/** MATRIX_ONLY=a,b runs those scenarios alone, for iterating. */
const ONLY = process.env.MATRIX_ONLY?.split(',').filter((name) => name !== '');

describe('fault matrix', () => {
  faultMatrixDeclarations();
  faultMatrixRuns(ONLY === undefined ? SCENARIOS : SCENARIOS.filter((s) => ONLY.includes(s.name)));
});
