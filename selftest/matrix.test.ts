/**
 * The fault matrix's declarations, without a run: a verdict band for every scenario and a fault for every
 * check that can yield FAILED or WARNING. npm run test:slow runs every scenario (selftest/slow/matrix.test.ts).
 */
import { describe } from 'node:test';
import { faultMatrixDeclarations } from './support/fault-matrix.ts';

describe('fault matrix, its declarations', () => {
  faultMatrixDeclarations();
});
