/**
 * Pix key and document formats from the central bank's key directory and the federal revenue's
 * rules (see docs/pix-domain.md). Used for the suite's own configuration and examples only: the interface
 * document states no format, so nothing here may ever make a provider FAIL.
 */

export type KeyKind = 'CPF' | 'CNPJ' | 'PHONE' | 'EMAIL' | 'EVP';

/** Spellings providers use for each key type; the suite sends the integrator's spelling unchanged. */
const KIND_SPELLINGS: Readonly<Record<string, KeyKind>> = {
  cpf: 'CPF',
  cnpj: 'CNPJ',
  phone: 'PHONE',
  telefone: 'PHONE',
  celular: 'PHONE',
  email: 'EMAIL',
  'e-mail': 'EMAIL',
  evp: 'EVP',
  random: 'EVP',
  aleatoria: 'EVP',
  'chave aleatoria': 'EVP',
};

export function keyKindOf(spelling: string): KeyKind | undefined {
  return KIND_SPELLINGS[spelling.trim().toLowerCase()];
}

function checkDigit(values: readonly number[], weights: readonly number[]): number {
  const sum = values.reduce((acc, value, i) => acc + value * (weights[i] ?? 0), 0);
  const rest = sum % 11;
  return rest < 2 ? 0 : 11 - rest;
}

export function isValidCpf(value: string): boolean {
  if (!/^[0-9]{11}$/.test(value) || /^(\d)\1{10}$/.test(value)) return false;
  const digits = Array.from(value, Number);
  const first = checkDigit(digits.slice(0, 9), [10, 9, 8, 7, 6, 5, 4, 3, 2]);
  const second = checkDigit(digits.slice(0, 10), [11, 10, 9, 8, 7, 6, 5, 4, 3, 2]);
  return first === digits[9] && second === digits[10];
}

/** Numeric and alphanumeric CNPJ alike: each character is worth its ASCII code minus 48. */
export function isValidCnpj(value: string): boolean {
  if (!/^[0-9A-Z]{12}[0-9]{2}$/.test(value) || /^(\d)\1{13}$/.test(value)) return false;
  const values = Array.from(value, (c) => c.charCodeAt(0) - 48);
  const first = checkDigit(values.slice(0, 12), [5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2]);
  const second = checkDigit(values.slice(0, 13), [6, 5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2]);
  return first === values[12] && second === values[13];
}

const KEY_RULES: Readonly<Record<KeyKind, { test: (key: string) => boolean; shape: string }>> = {
  CPF: { test: isValidCpf, shape: '11 digits with valid check digits, e.g. 52998224725' },
  CNPJ: {
    test: isValidCnpj,
    shape: '14 characters (12 digits or capital letters, 2 digits) with valid check digits',
  },
  PHONE: {
    test: (k) => /^\+[1-9]\d{1,14}$/.test(k),
    shape: 'E.164: + country code and number, e.g. +5511998765432',
  },
  EMAIL: {
    test: (k) => k.length <= 77 && k === k.toLowerCase() && /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(k),
    shape: 'a lowercase e-mail address of at most 77 characters',
  },
  EVP: {
    test: (k) => /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(k),
    shape: 'a lowercase UUID, e.g. 123e4567-e89b-12d3-a456-426614174000',
  },
};

/** Returns why the key does not fit its kind, or undefined when it does. */
export function keyProblem(kind: KeyKind, key: string): string | undefined {
  const rule = KEY_RULES[kind];
  return rule.test(key) ? undefined : `a ${kind} key must be ${rule.shape}`;
}

export function isValidDocument(value: string): boolean {
  return isValidCpf(value) || isValidCnpj(value);
}
