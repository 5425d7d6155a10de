import { defineConfig } from 'vitest/config';

/**
 * `npm test`: everything but the fault suites. `npm run test:faults` runs test/faults alone,
 * one file at a time: they kill processes and flood listeners, and measure what that does,
 * which must neither disturb other suites (a killed process's port is free for a moment) nor be
 * disturbed by them.
 */
const faults = process.env.PASSKEYAUTH_TEST_TIER === 'faults';

export default defineConfig({
  test: {
    include: faults ? ['test/faults/**/*.test.ts'] : ['deploy/**/test/**/*.test.ts', 'services/**/test/**/*.test.ts', 'gateway/test/**/*.test.ts', 'test/**/*.test.ts'],
    exclude: faults ? [] : ['test/faults/**', '**/node_modules/**'],
    fileParallelism: !faults,
    globalSetup: ['test/buildBundlesOnce.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
