import { defineConfig } from 'vitest/config';

/**
 * Test tiers (PASSKEYAUTH_TEST_TIER), so the edit-test loop does not wait for whole stacks:
 *   unset    `npm test`: unit and in-memory service tests (each file starts at most an embedded
 *            store or one service in its own process), a few minutes on two cores;
 *   "all"    the above plus the suites that start the whole stack (`npm start`'s processes):
 *            end-to-end (test/e2e), attacks (test/attacks), browser (test/browser), fuzz (test/fuzz) and the container
 *            image (test/deploy/container) and `npm start` itself (deploy/local/test/start.test.ts); `npm run test:all` runs it, then the fault tier and
 *            the embedded store with every document spilled;
 *   "faults" test/faults alone, one file at a time: they kill processes and flood listeners, and
 *            measure what that does, which must neither disturb other suites (a killed process's
 *            port is free for a moment) nor be disturbed by them.
 */
const tier = process.env.PASSKEYAUTH_TEST_TIER ?? 'fast';
if (!['fast', 'all', 'faults'].includes(tier)) throw new Error(`PASSKEYAUTH_TEST_TIER must be "all" or "faults", not "${tier}"`);

const fast = ['deploy/**/test/**/*.test.ts', 'packages/*/test/**/*.test.ts', 'services/**/test/**/*.test.ts', 'gateway/test/**/*.test.ts', 'test/**/*.test.ts'];
/** The suites that start the whole stack. */
const stack = ['test/e2e/**', 'test/attacks/**', 'test/browser/**', 'test/fuzz/**', 'test/deploy/container.test.ts', 'deploy/local/test/start.test.ts'];

export default defineConfig({
  test: {
    include: tier === 'faults' ? ['test/faults/**/*.test.ts'] : fast,
    exclude: tier === 'faults' ? [] : ['test/faults/**', '**/node_modules/**', ...(tier === 'fast' ? stack : [])],
    fileParallelism: tier !== 'faults',
    globalSetup: ['test/buildBundlesOnce.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
