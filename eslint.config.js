// `npm run lint:eslint`: typescript-eslint's type-checked recommended rules over every package,
// with the types of the tsconfig.json nearest each file; eslint-config-prettier last, so that
// layout is Prettier's alone.
import js from '@eslint/js';
import { defineConfig } from 'eslint/config';
import prettier from 'eslint-config-prettier';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default defineConfig(
  { ignores: ['**/dist/', '**/node_modules/', '.data/', '.schemathesis/'] },
  js.configs.recommended,
  tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      globals: globals.node,
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      // tsc's convention, which the code already follows: a leading underscore marks a binding
      // kept on purpose, and destructuring with a rest drops the named siblings.
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_', ignoreRestSiblings: true },
      ],
      // A `let` read by a closure declared before its one assignment stays a `let`: a `const` there
      // would throw if the closure ran first.
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
      // A rejection passes on what a callback or an abort signal handed over, typed `any` or
      // `unknown` by its library: the same allowance `only-throw-error` makes for `throw`.
      '@typescript-eslint/prefer-promise-reject-errors': ['error', { allowThrowingAny: true, allowThrowingUnknown: true }],
    },
  },
  {
    // Tests, and the backup drill comparing a system before and after its restore, read JSON
    // answers of every shape, valid and broken, and assert on each field they read: a body whose
    // shape is wrong fails its assertion, which is the check these rules add.
    files: ['**/test/**/*.{ts,tsx}', 'scripts/ci/backup-drill/drill.ts'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
    },
  },
  {
    files: ['apps/console/src/**/*.{ts,tsx}'],
    languageOptions: { globals: globals.browser },
  },
  {
    // Plain JavaScript has no types to check; the generated-client walkthroughs are type-checked
    // against the clients generated next to them in CI (scripts/ci/api-clients.sh), which are not
    // in the repository.
    files: ['**/*.{js,mjs,cjs}', 'scripts/ci/api-clients/*.mts'],
    extends: [tseslint.configs.disableTypeChecked],
  },
  {
    // Mocha loads its reporter with require(): a CommonJS module, whose imports are require() calls.
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs' },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  prettier,
);
