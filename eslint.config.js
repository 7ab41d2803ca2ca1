// ESLint finds bugs; Prettier owns formatting, so no stylistic rule is enabled here.
import js from '@eslint/js';
import playwright from 'eslint-plugin-playwright';
import { defineConfig, globalIgnores } from 'eslint/config';
import tseslint from 'typescript-eslint';

export default defineConfig(
  globalIgnores([
    'node_modules/',
    'dist/',
    'reports/',
    'test-results/',
    'blob-report/',
    'playwright-report/',
    '.stryker-tmp/',
    'selftest/fixtures/**',
    'src/spec/generated/**',
    'sandbox/generated/**',
  ]),

  js.configs.recommended,

  {
    files: ['**/*.ts'],
    extends: [tseslint.configs.strictTypeChecked],
    languageOptions: {
      parserOptions: {
        projectService: true,
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      // Amounts, statuses and counts are numbers and read naturally in messages; everything else must be
      // turned into a string on purpose.
      '@typescript-eslint/restrict-template-expressions': [
        'error',
        {
          allowNumber: true,
          allowAny: false,
          allowBoolean: false,
          allowNullish: false,
          allowRegExp: false,
          allowNever: false,
        },
      ],
      '@typescript-eslint/no-unused-vars': [
        'error',
        {
          argsIgnorePattern: '^_',
          caughtErrorsIgnorePattern: '^_',
          destructuredArrayIgnorePattern: '^_',
        },
      ],
      // Callbacks such as `() => resolve()` or `(c) => chunks.push(c)` read best as arrow shorthands.
      '@typescript-eslint/no-confusing-void-expression': ['error', { ignoreArrowShorthand: true }],
      // node:test's describe/it return promises that the runner itself awaits; the self-tests call them
      // at top level as the Node docs do.
      '@typescript-eslint/no-floating-promises': [
        'error',
        {
          allowForKnownSafeCalls: [
            { from: 'package', package: 'node:test', name: ['describe', 'it', 'test', 'suite'] },
          ],
        },
      ],
    },
  },

  {
    // Plain ES modules for Node: the scripts a clone runs before its TypeScript, and the self-tests' --import probes.
    files: ['scripts/**/*.mjs', 'selftest/**/*.mjs'],
    languageOptions: { globals: { process: 'readonly', performance: 'readonly' } },
  },

  {
    // The integrator example is a plain Node application (ES modules), as an integrator writes one.
    files: ['examples/integrator/**/*.js'],
    languageOptions: {
      globals: Object.fromEntries(
        [
          'process',
          'Buffer',
          'fetch',
          'AbortSignal',
          'Response',
          'URL',
          'URLSearchParams',
          'setTimeout',
          'clearTimeout',
        ].map((name) => [name, 'readonly']),
      ),
    },
  },

  {
    // The Prism preload script runs as CommonJS inside the mock's Node process.
    files: ['**/*.cjs'],
    languageOptions: {
      sourceType: 'commonjs',
      globals: {
        process: 'readonly',
        console: 'readonly',
        require: 'readonly',
        module: 'writable',
        exports: 'writable',
        __dirname: 'readonly',
        __filename: 'readonly',
      },
    },
  },

  {
    files: ['tests/**/*.spec.ts'],
    extends: [playwright.configs['flat/recommended']],
    rules: {
      'playwright/no-focused-test': 'error',
      'playwright/no-conditional-expect': 'error',
      'playwright/no-conditional-in-test': 'error',
      'playwright/no-wait-for-timeout': 'error',
      // Generated tests take their titles from their checks (titleOf), which keeps the two in step.
      'playwright/valid-title': ['error', { ignoreTypeOfTestName: true }],
      // A test that cannot run says why through test.skip(condition, reason); the reason is the point.
      'playwright/no-skipped-test': 'off',
      // Tests assert through the verify fixture: verify.check and verify.observe record what a test found
      // (every response is judged inside pix). The plugin compares only the called name (the property, for
      // verify.check), and matches names exactly, so helpers named verify* are a pattern.
      'playwright/expect-expect': [
        'error',
        {
          assertFunctionNames: ['verify', 'check', 'checkBody', 'observe'],
          assertFunctionPatterns: ['^verify'],
        },
      ],
    },
  },
);
