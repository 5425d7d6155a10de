// TypeScript lint rules for product code and tests; generated code (gen/) is not linted.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['gen/**', 'node_modules/**', 'dist/**', 'build/**', '.data/**', '.local/**', 'test-artifacts/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  // Plain .mjs scripts run on Node before TypeScript tooling exists.
  { files: ['**/*.mjs'], languageOptions: { globals: { process: 'readonly' } } },
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-explicit-any': 'off',
      'no-console': 'off',
    },
  },
);
