// Lint rules for the whole tree: typescript-eslint's recommended set (syntax only, no type
// information, so a full run takes seconds), with formatting left to Prettier.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import prettier from 'eslint-config-prettier';
import globals from 'globals';
import regexp from 'eslint-plugin-regexp';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'coverage/**', '.muninn/**', 'libs/client/src/generated/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  prettier,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' },
      ],
    },
  },
  {
    // The npm bin shim is plain CommonJS, run by node before anything is compiled.
    files: ['**/*.js'],
    languageOptions: { sourceType: 'commonjs' },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    // No request may hold an event loop (docs/limits-and-security.md, "Work per byte"): a pattern whose
    // backtracking grows faster than its input fails the lint. Production code only: tests and benches run
    // fixed inputs. A pattern kept on a bounded input says so where it stands.
    files: ['apps/**/*.ts', 'libs/**/*.ts'],
    ignores: ['**/*.spec.ts', 'libs/testing/**'],
    plugins: { regexp },
    rules: {
      'regexp/no-super-linear-backtracking': 'error',
      'regexp/no-super-linear-move': 'error',
    },
  },
  {
    // Tests and benchmarks poke at untyped JSON bodies; `any` there is the honest type.
    files: ['**/*.spec.ts', '**/*.e2e-spec.ts', 'test/**', 'bench/**', 'libs/testing/**'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
);
