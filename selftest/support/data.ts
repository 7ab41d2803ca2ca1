/**
 * The self-tests' invented data, drawn from faker with one seed so that a failing self-test can be
 * replayed: SELFTEST_SEED=<n> npm test. The default seed is fixed, so a plain npm test always sees
 * the same data.
 */
import { faker } from '@faker-js/faker/locale/pt_BR';
import { isValidCpf } from '../../src/config/pix-keys.ts';

export const SELFTEST_SEED = Number(process.env.SELFTEST_SEED ?? '20261124');
faker.seed(SELFTEST_SEED);

/** A CPF with valid check digits: nine invented digits, then the one pair of check digits that fits. */
function inventCpf(): string {
  const base = faker.string.numeric({ length: 9, allowLeadingZeros: true });
  const valid = Array.from({ length: 100 }, (_, d) => `${base}${String(d).padStart(2, '0')}`).find(
    isValidCpf,
  );
  // Nine equal digits have no valid CPF; draw again.
  return valid ?? inventCpf();
}

/** A payee with a random key (EVP), a valid CPF and a Brazilian name. */
export function inventPayee(): { key: string; document: string; name: string } {
  return { key: faker.string.uuid(), document: inventCpf(), name: faker.person.fullName() };
}

/** A fresh withdrawal code and webhook path for the sandbox's own tests. */
export function inventWithdrawal(): { code: string; path: string } {
  return {
    code: `sandbox-test-${faker.string.alphanumeric({ length: 12, casing: 'upper' })}`,
    path: `/hooks/${faker.string.hexadecimal({ length: 32, casing: 'lower', prefix: '' })}`,
  };
}
