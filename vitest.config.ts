import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['deploy/**/test/**/*.test.ts', 'services/**/test/**/*.test.ts', 'gateway/test/**/*.test.ts', 'test/**/*.test.ts'],
    globalSetup: ['test/buildBundlesOnce.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
