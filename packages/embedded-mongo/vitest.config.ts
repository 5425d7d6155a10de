import { defineConfig } from 'vitest/config';

/**
 * The store's own suite, run from this folder (`npm test -w @passkeyauth/embedded-mongo`). The
 * repository's `npm test` runs the same files under the root vitest.config.ts.
 */
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
