// TypeScript lint rules for product code and tests; generated code (gen/) is not linted.
import js from '@eslint/js';
import { createNodeResolver, importX } from 'eslint-plugin-import-x';
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
  // No import circles. import-x/no-cycle follows value imports (imports are written './x.js' for
  // './x.ts' under NodeNext, hence the alias); it skips `import type` by design, so
  // deploy/tools/findImportCycles.ts (run by `npm run lint`) checks type-only circles too.
  {
    files: ['**/*.ts'],
    plugins: { 'import-x': importX },
    settings: {
      'import-x/extensions': ['.ts', '.js', '.mjs'],
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts'] },
      'import-x/resolver-next': [createNodeResolver({ extensions: ['.ts', '.js', '.mjs', '.json'], extensionAlias: { '.js': ['.ts', '.js'] } })],
    },
    rules: { 'import-x/no-cycle': ['error', { ignoreExternal: true }] },
  },
  // The workspace packages (packages/embedded-mongo, examples/demo) are imported by their names, never
  // by a path into their folders: what a package offers is its package.json's `exports`, and a path
  // would tie the importer to its files. (Listed before the domain and store rules, which replace
  // this rule's options for their files with stricter ones.)
  {
    files: ['**/*.ts'],
    ignores: ['packages/**', 'examples/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [{ regex: '^\\.{1,2}/(.*/)?(packages|examples)/', message: 'import a workspace package by its name (@passkeyauth/embedded-mongo, @passkeyauth/demo), not by a path into its folder' }] },
      ],
    },
  },
  // The domain is pure logic: no generated protobuf code, no protobuf runtime, no Connect transport, no
  // database driver (stores own MongoDB and report outcomes such as 'duplicate' as values). What it needs
  // of other services it declares as small interfaces of plain types (ports); adapters in each
  // service's clients/ (or next to main.ts) build the messages, carry headers and map errors.
  {
    files: ['services/*/src/**/domain/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { regex: '(^|/)gen/', message: 'domain code never imports generated protobuf code; declare a plain type (or a port) in the domain and map it in handlers/ or clients/' },
            { regex: '^@connectrpc/', message: 'domain code never imports the transport; throw DomainError and let an adapter in clients/ talk to other services' },
            { regex: '^@bufbuild/', message: 'domain code never imports the protobuf runtime; use plain TypeScript types (map them in handlers/ or clients/)' },
            { regex: '^(mongodb|bson)(/|$)', message: 'domain code never imports the database driver; a store answers with values (e.g. \'duplicate\') and services take stores, not a Db' },
          ],
        },
      ],
    },
  },
  // Stores are below the domain: they own their record and query types and never import domain
  // code (domain rules may import store types, not the other way round).
  {
    files: ['services/*/src/**/store/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [{ regex: '(^|/)domain(/|$)', message: 'store code never imports domain code; move the type it needs into the store module that owns it' }] },
      ],
    },
  },
);
